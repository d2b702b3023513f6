package io.partkit.strategy.fixed;

import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.StrategyOption;
import io.partkit.strategy.support.CommonOptions;
import java.util.List;

/**
 * Provides the {@code fixed} strategy. Options:
 * <ul>
 *   <li>{@code partitions}: number of logical partitions, 1..{@value CommonOptions#MAX_PARTITIONS},
 *       default {@value FixedPartitioner#DEFAULT_PARTITIONS} (Hazelcast's default).
 *   <li>{@code replicas}: copies per partition, primary included, 1..7, default 1.
 *   <li>{@code zone-aware}: spread a partition's replicas over distinct zones, then racks, while
 *       the labels allow; default {@code true}.
 * </ul>
 */
public final class FixedPartitionerProvider implements PartitionerProvider {

  /** For {@link java.util.ServiceLoader}; does no work. */
  public FixedPartitionerProvider() {}

  @Override
  public String name() {
    return FixedPartitioner.NAME;
  }

  @Override
  public String description() {
    return "fixed logical partitions (Hazelcast/Ignite style) with a balanced, minimal-move "
        + "partition table; choose it when a coordinator stores the table";
  }

  @Override
  public List<StrategyOption> options() {
    return List.of(
        new StrategyOption("partitions", Integer.toString(FixedPartitioner.DEFAULT_PARTITIONS),
            "logical partitions, 1.." + CommonOptions.MAX_PARTITIONS
                + " (271 is Hazelcast's default)"),
        CommonOptions.replicasOption("partition"),
        CommonOptions.zoneAwareOption());
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  @Override
  public Partitioner create(PartitionerConfig config) {
    return FixedPartitioner.create(config);
  }
}
