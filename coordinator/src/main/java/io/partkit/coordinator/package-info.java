/**
 * The coordinator: the consistent core of the "Fixed Partitions" pattern.
 *
 * <p>{@link io.partkit.coordinator.Coordinators#builder()} builds a
 * {@link io.partkit.coordinator.ClusterCoordinator} over a
 * {@link io.partkit.coordinator.MetadataStore}: the embedded one from
 * {@link io.partkit.coordinator.MetadataStores}, or etcd's from {@code partkit-coordinator-etcd}.
 * {@link io.partkit.coordinator.MetadataCodec} is the stable JSON format of tables, migrations and
 * members shared by the stores and the data plane. Both built-in stores are also
 * {@link io.partkit.coordinator.VersionedValues}: named values replaced by compare-and-set. With a
 * {@link io.partkit.coordinator.LoadSource}, plans are load-aware: measured partition loads adjust
 * the strategy's placement, and {@link io.partkit.coordinator.LoadPlan} reports the figures.
 */
package io.partkit.coordinator;
