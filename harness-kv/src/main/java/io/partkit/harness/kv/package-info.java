/**
 * partkit's kvstore as a system under test ({@code --system kv}): node processes, a coordinator
 * process running the fixed strategy, and the kvstore's routing clients.
 */
package io.partkit.harness.kv;
