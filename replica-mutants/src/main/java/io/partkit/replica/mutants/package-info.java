/**
 * Planted bugs around the unchanged replica core ({@link io.partkit.replica.mutants.Mutant}), and
 * the rewrites of one node's inputs, outputs and log that plant the node-side ones ({@link
 * io.partkit.replica.mutants.NodeMutations}). Used by the simulator and by the harness's mutant
 * node process; the production node and control never refer to this package.
 */
package io.partkit.replica.mutants;
