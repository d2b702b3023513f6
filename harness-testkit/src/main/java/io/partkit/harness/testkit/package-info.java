/**
 * Contract tests for a system under {@code partkit verify}: extend {@link
 * io.partkit.harness.testkit.SystemProviderContract} in the provider's own tests.
 */
package io.partkit.harness.testkit;
