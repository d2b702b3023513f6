/**
 * The {@link io.partkit.coordinator.MetadataStore} on etcd, through jetcd: build one with
 * {@link io.partkit.coordinator.etcd.EtcdMetadataStores#builder()}.
 */
package io.partkit.coordinator.etcd;
