/**
 * Plumbing shared by the coordinator and its metadata stores (embedded here, etcd in
 * {@code partkit-coordinator-etcd}). Not API: it may change in any release.
 */
package io.partkit.coordinator.internal;
