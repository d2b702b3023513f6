package io.partkit.strategy.tokenring;

import io.partkit.spi.PartitionerConfig;
import io.partkit.testkit.PartitionerContractKit;
import java.util.List;

/** The contract with the default chooser, the allocator, at its default 16 vnodes. */
class AllocatorContractTest extends PartitionerContractKit {

  @Override
  protected String strategyName() {
    return "tokenring";
  }

  @Override
  protected PartitionerConfig config() {
    return PartitionerConfig.of("tokens", "allocator", "vnodes", 16);
  }

  /** The allocator's documented bound: max/avg at most 1.10 with 16 vnodes. */
  @Override
  protected double balanceBound(int nodes) {
    return 1.10;
  }

  @Override
  protected List<PartitionerConfig> invalidConfigs() {
    return List.of(PartitionerConfig.of("vnodes", 0), PartitionerConfig.of("vnodes", 1025),
        PartitionerConfig.of("replicas", 8), PartitionerConfig.of("tokens", "ordered"),
        PartitionerConfig.of("seed", "x"), PartitionerConfig.of("zone-aware", "maybe"));
  }
}
