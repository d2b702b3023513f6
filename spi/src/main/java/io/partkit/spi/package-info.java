/**
 * The partitioning SPI: what a strategy, a coordinator and a migration executor promise.
 *
 * <p>Reading order: {@link io.partkit.spi.Partitioner} (the strategy, pure and deterministic),
 * {@link io.partkit.spi.PartitionAssignment} (its immutable, versioned output: key to partition
 * to ordered replicas), {@link io.partkit.spi.Partitioners} (discovery by name through
 * {@link java.util.ServiceLoader}), then {@link io.partkit.spi.Coordinator} and
 * {@link io.partkit.spi.MigrationExecutor} (the "Fixed Partitions" protocol around a consistent
 * core). Key hashing is in {@link io.partkit.spi.hash}; balance and movement figures are in
 * {@link io.partkit.spi.stats}.
 */
package io.partkit.spi;
