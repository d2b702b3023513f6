package io.partkit.coordinator.etcd;

import io.partkit.coordinator.Coordinator;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.testkit.CoordinatorContractKit;
import io.partkit.coordinator.testkit.CoordinatorSettings;
import io.partkit.test.support.EtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordinator contract on one real etcd member: each coordinator gets its own client (as
 * separate processes would), all of one test share a key prefix.
 */
class EtcdCoordinatorTest extends CoordinatorContractKit {

  @RegisterExtension static final EtcdMember etcd = new EtcdMember();
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private final String prefix = "/test/coordinator-" + PREFIXES.incrementAndGet();
  private final List<MetadataStore> stores = new ArrayList<>();

  @Override
  protected Coordinator createCoordinator(CoordinatorSettings s) {
    MetadataStore store = EtcdMetadataStores.builder().endpoints(etcd.endpoints())
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
