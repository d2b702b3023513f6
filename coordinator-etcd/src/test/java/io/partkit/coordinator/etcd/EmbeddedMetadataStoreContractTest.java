package io.partkit.coordinator.etcd;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.testkit.MetadataStoreContractKit;
import org.junit.jupiter.api.AfterEach;

/**
 * The store contract on the embedded store. Here and not in the coordinator's tests because the
 * kit is in coordinator-testkit, which depends on the coordinator; its file persistence is tested
 * there
 * ({@code EmbeddedMetadataStoreTest}).
 */
class EmbeddedMetadataStoreContractTest extends MetadataStoreContractKit {

  private final MetadataStore store = MetadataStores.embedded();

  @Override
  protected MetadataStore store() {
    return store;
  }

  @Override
  protected MetadataStore secondClient() {
    return store; // in-process: every client is the same object
  }

  @AfterEach
  void close() {
    store.close();
  }
}
