/**
 * The {@code range} strategy: key-range partitioning over the byte order of keys
 * ({@link io.partkit.spi.KeyRanges}), whose split keys are part of the table, and
 * {@link io.partkit.strategy.range.RangeSplits}, which splits a range that grew past a size or
 * load threshold and merges small neighbours, as metadata only.
 *
 * <p>Pick the strategy by name through {@link io.partkit.spi.Partitioners}:
 * <pre>{@code
 * Partitioner range =
 *     Partitioners.load().create("range", PartitionerConfig.of("split-points", "g,n,t"));
 * }</pre>
 */
package io.partkit.strategy.range;
