package io.partkit.strategy.range;

import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.StrategyOption;
import io.partkit.strategy.support.CommonOptions;
import java.util.List;

/**
 * Provides the {@code range} strategy. Options:
 * <ul>
 *   <li>{@code partitions}: ranges of a first table, cut evenly over the keys' first 8 bytes,
 *       1..{@value CommonOptions#MAX_PARTITIONS}, default
 *       {@value RangePartitioner#DEFAULT_PARTITIONS}.
 *   <li>{@code split-points}: the split keys of a first table instead, comma-separated, strictly
 *       increasing in byte order; {@code 0x}-prefixed hex for raw bytes, else UTF-8 (so
 *       {@code "g,n,t"} gives four ranges). Not together with {@code partitions}.
 *   <li>{@code replicas}: copies per range, primary included, 1..7, default 1.
 *   <li>{@code zone-aware}: spread a range's replicas over distinct zones, then racks, while the
 *       labels allow; default {@code true}.
 * </ul>
 */
public final class RangePartitionerProvider implements PartitionerProvider {

  /** For {@link java.util.ServiceLoader}; does no work. */
  public RangePartitionerProvider() {}

  @Override
  public String name() {
    return RangePartitioner.NAME;
  }

  @Override
  public String description() {
    return "key ranges over the byte order of keys, split and merged by size or load; choose it"
        + " for range scans over consecutive keys";
  }

  @Override
  public List<StrategyOption> options() {
    return List.of(
        new StrategyOption("partitions", Integer.toString(RangePartitioner.DEFAULT_PARTITIONS),
            "ranges of a first table, even over the keys' first 8 bytes, 1.."
                + CommonOptions.MAX_PARTITIONS),
        new StrategyOption("split-points", "none",
            "split keys of a first table instead: comma-separated, increasing, 0x-hex or UTF-8"),
        CommonOptions.replicasOption("range"),
        CommonOptions.zoneAwareOption());
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  @Override
  public Partitioner create(PartitionerConfig config) {
    return RangePartitioner.create(config);
  }
}
