package io.partkit.coordinator;

import io.partkit.spi.PartitionerConfig;
import io.partkit.testkit.CoordinatorSettings;

/**
 * Maps the contract kit's settings onto {@link Coordinators#builder()}: one place for the
 * embedded tests here and the etcd tests (through this module's test-jar).
 */
public final class KitCoordinators {

  private KitCoordinators() {}

  /** A coordinator over {@code store} running {@code fixed} (64 partitions, 2 replicas). */
  public static ClusterCoordinator build(MetadataStore store, CoordinatorSettings s) {
    Coordinators.Builder b = Coordinators.builder().store(store)
        .strategy("fixed", PartitionerConfig.of("partitions", 64, "replicas", 2))
        .name(s.name())
        .minClusterSize(s.minClusterSize())
        .heartbeatTimeout(s.heartbeatTimeout())
        .clock(s.clock())
        .maxConcurrentMigrations(s.maxConcurrentMigrations())
        .autoRebalance(s.autoRebalance())
        .leaderElection(s.leaderElection());
    s.executor().ifPresent(b::migrationExecutor);
    return b.build();
  }
}
