/** Tests of the replica system: verify runs of it on processes. */
package io.partkit.harness.replica;
