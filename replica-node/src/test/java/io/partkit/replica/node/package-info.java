/** Tests of the replica node driver: codec, log, a cluster of real processes. */
package io.partkit.replica.node;
