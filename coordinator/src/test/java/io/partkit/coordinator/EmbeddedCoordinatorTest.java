package io.partkit.coordinator;

import io.partkit.spi.Coordinator;
import io.partkit.spi.PartitionerConfig;
import io.partkit.testkit.CoordinatorContractKit;
import io.partkit.testkit.CoordinatorSettings;
import org.junit.jupiter.api.AfterEach;

/** The coordinator contract on the embedded store. */
class EmbeddedCoordinatorTest extends CoordinatorContractKit {

  private final MetadataStore store = MetadataStores.embedded();

  @Override
  protected Coordinator createCoordinator(CoordinatorSettings s) {
    return build(store, s);
  }

  /** Maps the kit's settings onto the builder; shared with the etcd tests. */
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
    return b.build();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }
}
