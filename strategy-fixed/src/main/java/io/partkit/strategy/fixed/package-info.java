/**
 * The {@code fixed} strategy: a fixed number of logical partitions (Hazelcast's 271, Ignite's
 * 1024) over {@link io.partkit.spi.HashSlots}, so key -> partition never changes with membership,
 * and a partition table that a minimal-move rebalancer keeps at the optimal floor/ceil balance.
 *
 * <p>The only public type is {@link io.partkit.strategy.fixed.FixedPartitionerProvider}; pick the
 * strategy by name through {@link io.partkit.spi.Partitioners}:
 * <pre>{@code
 * Partitioner fixed =
 *     Partitioners.load().create("fixed", PartitionerConfig.of("partitions", 1024));
 * }</pre>
 */
package io.partkit.strategy.fixed;
