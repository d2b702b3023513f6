package io.partkit.strategy.rendezvous;

import io.partkit.spi.PartitionerConfig;
import io.partkit.testkit.PartitionerContractKit;
import java.util.List;

/** The whole partitioner contract, applied to plain {@code rendezvous} over 1024 partitions. */
class RendezvousContractTest extends PartitionerContractKit {

  @Override
  protected String strategyName() {
    return "rendezvous";
  }

  @Override
  protected PartitionerConfig config() {
    return PartitionerConfig.of("partitions", 1024);
  }

  /**
   * Plain HRW over P partitions is a balls-into-bins draw: the fullest of 100 members holds about
   * 1 + sqrt(2 ln N / (P/N)) times the average (about 1.9 here; Ignite's complaint measured 1.97
   * on 120 nodes). The suite's 100-node view is fixed, so this is a deterministic check.
   */
  @Override
  protected double balanceBound(int nodes) {
    return 2.25;
  }

  /**
   * A join moves exactly what the joiner wins, a binomial draw around the optimum: allow four
   * standard deviations, 1 + 4 / sqrt(P / (n + 1)) (1.18 at n = 1, 2.26 at n = 100). Nothing ever
   * moves between members that stay (the churn bound stays 0).
   */
  @Override
  protected double moveBound(int nodes) {
    return 1 + 4 / Math.sqrt(1024.0 / (nodes + 1));
  }

  @Override
  protected List<PartitionerConfig> invalidConfigs() {
    return List.of(
        PartitionerConfig.of("partitions", 0),
        PartitionerConfig.of("replicas", 8),
        PartitionerConfig.of("seed", "x"),
        PartitionerConfig.of("load-bound", 0.5),
        PartitionerConfig.of("partitions", -1, "load-bound", "high"));
  }
}
