package io.partkit.kvstore;

import io.partkit.coordinator.MetadataStore;
import io.partkit.kvstore.migration.KvMigrationExecutor;
import io.partkit.spi.Member;
import io.partkit.spi.NodeId;

/**
 * A {@link KvMigrationExecutor} wired to a metadata store the way a coordinator's process does
 * it: node addresses from the member registrations, the members as nodes to reconcile. The
 * executor itself never reads the store.
 */
public final class StoreWiring {

  private StoreWiring() {}

  /** A builder that resolves addresses and lists nodes through {@code store}'s members. */
  public static KvMigrationExecutor.Builder executor(MetadataStore store) {
    return KvMigrationExecutor.builder()
        .addresses((NodeId id) -> store.members().find(id).map(Member::address).orElse(null))
        .nodes(() -> store.members().ids());
  }
}
