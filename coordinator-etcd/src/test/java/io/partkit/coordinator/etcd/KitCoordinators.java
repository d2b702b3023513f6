package io.partkit.coordinator.etcd;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.testkit.CoordinatorSettings;
import io.partkit.spi.PartitionerConfig;

/**
 * Maps the contract kit's settings onto {@link Coordinators#builder()}: one place for the
 * coordinator kit's runs on the embedded store and on etcd, which both live in this module
 * because it is the first downstream of coordinator-testkit, the coordinator and the
 * {@code fixed} strategy (the coordinator's own tests cannot use coordinator-testkit: it depends
 * on the coordinator).
 */
final class KitCoordinators {

  private KitCoordinators() {}

  /** A coordinator over {@code store} running {@code fixed} (64 partitions, 2 replicas). */
  static ClusterCoordinator build(MetadataStore store, CoordinatorSettings s) {
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
    s.loadSource().ifPresent(b::loadSource);
    return b.build();
  }
}
