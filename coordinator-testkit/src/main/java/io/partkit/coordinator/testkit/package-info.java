/**
 * Contract-test kits for the coordinator:
 * {@link io.partkit.coordinator.testkit.CoordinatorContractKit} tests the
 * {@link io.partkit.coordinator.Coordinator} API over any metadata store, and
 * {@link io.partkit.coordinator.testkit.MetadataStoreContractKit} tests a
 * {@link io.partkit.coordinator.MetadataStore}. An implementation extends the kit with a short
 * subclass, as with the SPI kits in {@code io.partkit.testkit}.
 *
 * <p>A module of its own because it depends on the coordinator: in {@code testkit} it put the
 * coordinator on the test path of every strategy. The coordinator's own tests cannot use it (it
 * depends on them); its runs on the embedded store are in {@code coordinator-etcd}.
 */
package io.partkit.coordinator.testkit;
