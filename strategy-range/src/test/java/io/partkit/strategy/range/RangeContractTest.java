package io.partkit.strategy.range;

import io.partkit.spi.PartitionerConfig;
import io.partkit.stats.PlacementStatistics;
import io.partkit.testkit.PartitionerContractKit;
import java.util.List;

/**
 * The whole partitioner contract, applied to {@code range} with 1024 even ranges: shares are of
 * the keys' 8-byte-prefix line, on which even ranges are as equal as hash slots, and the table is
 * the fixed strategy's, so the bounds are fixed's.
 */
class RangeContractTest extends PartitionerContractKit {

  @Override
  protected String strategyName() {
    return "range";
  }

  @Override
  protected PartitionerConfig config() {
    return PartitionerConfig.of("partitions", 1024);
  }

  @Override
  protected double balanceBound(int nodes) {
    return PlacementStatistics.bestMaxOverAvg(1024, nodes) + 1e-6;
  }

  @Override
  protected List<PartitionerConfig> invalidConfigs() {
    return List.of(
        PartitionerConfig.of("partitions", 0),
        PartitionerConfig.of("replicas", 8),
        PartitionerConfig.of("split-points", "t,g"),
        PartitionerConfig.of("split-points", "a,,c"),
        PartitionerConfig.of("split-points", "0xzz"),
        PartitionerConfig.of("partitions", 4, "split-points", "g"),
        PartitionerConfig.of("zone-aware", "sometimes"));
  }
}
