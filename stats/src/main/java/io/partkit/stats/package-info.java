/**
 * Placement statistics as a library: how evenly an assignment spreads partitions and key space
 * ({@link io.partkit.stats.PlacementStatistics}) and how much data a change of assignment
 * moves, next to the theoretical minimum ({@link io.partkit.stats.Movement}); and, given the
 * measured load of each partition, how evenly the load falls on the nodes
 * ({@link io.partkit.stats.LoadStatistics}).
 *
 * <p>Both work on exact key-space shares (the ranges of the
 * {@link io.partkit.spi.PartitionScheme}), not on sampled keys, so they are exact and repeatable,
 * and they compare assignments of different strategies, partition counts and schemes range by
 * range.
 *
 * <p>A module of its own, not part of the SPI: strategies do not need it to implement the
 * contract, and the SPI stays contracts and value types only.
 */
package io.partkit.stats;
