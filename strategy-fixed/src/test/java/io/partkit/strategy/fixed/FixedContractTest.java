package io.partkit.strategy.fixed;

import io.partkit.spi.PartitionerConfig;
import io.partkit.stats.PlacementStatistics;
import io.partkit.testkit.PartitionerContractKit;
import java.util.List;

/** The whole partitioner contract, applied to {@code fixed} with Ignite's 1024 partitions. */
class FixedContractTest extends PartitionerContractKit {

  @Override
  protected String strategyName() {
    return "fixed";
  }

  @Override
  protected PartitionerConfig config() {
    return PartitionerConfig.of("partitions", 1024);
  }

  /** Floor/ceil exactly; slot widths differ by at most 2^-32 of the hash line. */
  @Override
  protected double balanceBound(int nodes) {
    return PlacementStatistics.bestMaxOverAvg(1024, nodes) + 1e-6;
  }

  @Override
  protected List<PartitionerConfig> invalidConfigs() {
    return List.of(
        PartitionerConfig.of("partitions", 0),
        PartitionerConfig.of("partitions", 2_000_000),
        PartitionerConfig.of("replicas", 8),
        PartitionerConfig.of("zone-aware", "sometimes"),
        PartitionerConfig.of("partitions", "many", "replicas", 0));
  }
}
