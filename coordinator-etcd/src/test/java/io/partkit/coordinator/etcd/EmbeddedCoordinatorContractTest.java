package io.partkit.coordinator.etcd;

import io.partkit.coordinator.Coordinator;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.testkit.CoordinatorContractKit;
import io.partkit.coordinator.testkit.CoordinatorSettings;
import org.junit.jupiter.api.AfterEach;

/** The coordinator contract on the embedded store. */
class EmbeddedCoordinatorContractTest extends CoordinatorContractKit {

  private final MetadataStore store = MetadataStores.embedded();

  @Override
  protected Coordinator createCoordinator(CoordinatorSettings s) {
    return KitCoordinators.build(store, s);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }
}
