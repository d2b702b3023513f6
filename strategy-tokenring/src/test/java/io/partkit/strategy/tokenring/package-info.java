/**
 * Tests of the {@code tokenring} strategy: the contract kit per token chooser, exactness against
 * Cassandra's own {@code Murmur3Partitioner}, seeded ring properties and golden values, and the
 * measured figures of docs/strategy-tokenring.md.
 */
package io.partkit.strategy.tokenring;
