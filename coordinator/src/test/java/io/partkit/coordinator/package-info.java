/**
 * Tests of the coordinator and the embedded store, the
 * {@link io.partkit.coordinator.MetadataStoreContractKit} that every store passes, and a test-only
 * strategy.
 */
package io.partkit.coordinator;
