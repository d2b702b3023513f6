package io.partkit.coordinator.etcd;

import io.partkit.coordinator.MetadataStore;

/** The etcd store (work in progress: the interface is committed first for the data plane). */
final class EtcdMetadataStore {

  private EtcdMetadataStore() {}

  static MetadataStore connect(EtcdMetadataStores.Builder settings) {
    throw new UnsupportedOperationException("the etcd store is not implemented yet");
  }
}
