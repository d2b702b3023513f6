/**
 * Plumbing shared by the coordinator and its metadata stores (embedded here, etcd in
 * {@code partkit-coordinator-etcd}). Not API: it may change in any release. The module exports
 * it to {@code io.partkit.coordinator.etcd} only; its types are public because Java has no
 * visibility between packages of different jars other than that.
 */
package io.partkit.coordinator.internal;
