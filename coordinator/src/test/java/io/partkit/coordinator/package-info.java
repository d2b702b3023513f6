/**
 * Tests of the coordinator and the embedded store, and test-only strategies. The store contract
 * every store passes ({@code MetadataStoreContractKit}) is in coordinator-testkit.
 */
package io.partkit.coordinator;
