package io.partkit.coordinator.etcd;

import io.partkit.coordinator.Coordinator;
import io.partkit.coordinator.MetadataStore;
import io.partkit.test.support.EtcdCluster;
import io.partkit.test.support.RequiresEtcd;
import io.partkit.testkit.CoordinatorContractKit;
import io.partkit.testkit.CoordinatorSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The coordinator contract on one real etcd member: each coordinator gets its own client (as
 * separate processes would), all of one test share a key prefix.
 */
@ExtendWith(RequiresEtcd.class)
class EtcdCoordinatorTest extends CoordinatorContractKit {

  private static EtcdCluster etcd;
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private final String prefix = "/test/coordinator-" + PREFIXES.incrementAndGet();
  private final List<MetadataStore> stores = new ArrayList<>();

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdCluster.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Override
  protected Coordinator createCoordinator(CoordinatorSettings s) {
    MetadataStore store = EtcdMetadataStores.builder().endpoints(etcd.allEndpoints())
        .prefix(prefix).connectTimeout(Duration.ofSeconds(30)).leaderTtl(Duration.ofSeconds(2))
        .build();
    stores.add(store);
    return KitCoordinators.build(store, s);
  }


  @AfterEach
  void closeStores() {
    stores.forEach(MetadataStore::close);
  }
}
