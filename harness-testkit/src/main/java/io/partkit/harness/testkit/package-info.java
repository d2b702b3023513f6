/**
 * Contract tests and test helpers for a system under {@code partkit verify}: extend {@link
 * io.partkit.harness.testkit.SystemProviderContract} in the provider's own tests; drive a
 * rebalancing system's events with {@link io.partkit.harness.testkit.RebalancingEvents}.
 */
package io.partkit.harness.testkit;
