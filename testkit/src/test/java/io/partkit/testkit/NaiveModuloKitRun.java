package io.partkit.testkit;

import io.partkit.spi.PartitionerConfig;
import java.util.List;

/**
 * The kit applied to {@link ModuloPartitionerProvider}. Not a test of its own (the name keeps
 * Surefire from running it): {@link ContractKitCatchesBrokenStrategiesTest} runs it and expects
 * the right checks to fail.
 */
class NaiveModuloKitRun extends PartitionerContractKit {

  @Override
  protected String strategyName() {
    return "naive-modulo";
  }

  @Override
  protected PartitionerConfig config() {
    return PartitionerConfig.of("partitions", 1000);
  }

  @Override
  protected double balanceBound(int nodes) {
    // 1000 slots on 100 nodes: 10 each; slot widths differ by at most 2^-32 of the line
    return 1.000001;
  }

  @Override
  protected List<PartitionerConfig> invalidConfigs() {
    return List.of(PartitionerConfig.of("partitions", 0));
  }
}
