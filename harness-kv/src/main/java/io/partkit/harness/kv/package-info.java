/**
 * partkit's kvstore as a system under test ({@code --system kv}): node processes, a coordinator
 * process running a partkit strategy (fixed unless the option strategy names another), and the
 * kvstore's routing clients.
 */
package io.partkit.harness.kv;
