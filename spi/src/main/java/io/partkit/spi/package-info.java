/**
 * The partitioning SPI: what a strategy and a migration executor promise, and the values they
 * exchange.
 *
 * <p>Reading order: {@link io.partkit.spi.Partitioner} (the strategy, pure and deterministic),
 * {@link io.partkit.spi.PartitionAssignment} (its immutable, versioned output: key to partition
 * to ordered replicas), {@link io.partkit.spi.Partitioners} (discovery by name through
 * {@link java.util.ServiceLoader}), then {@link io.partkit.spi.MigrationExecutor} (what a data
 * plane implements to move partitions for a coordinator, with one nested interface per optional
 * ability, such as {@link io.partkit.spi.MigrationExecutor.SplitsPartitions}). Key hashing is in
 * {@link io.partkit.spi.hash}.
 *
 * <p>Only contracts and value types live here. The coordinator's API ({@code Coordinator},
 * {@code RebalancePlan}) is in {@code partkit-coordinator}, package
 * {@code io.partkit.coordinator}; balance and movement figures ({@code PlacementStatistics},
 * {@code Movement}) are in {@code partkit-stats}, package {@code io.partkit.stats}.
 */
package io.partkit.spi;
