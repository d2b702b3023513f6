/**
 * What a run's history is checked for besides linearizability (which the {@code verification}
 * module's checker decides per key): lost acknowledged writes
 * ({@link io.partkit.harness.check.LostWrites}) and availability and latency
 * ({@link io.partkit.harness.check.RunStats}).
 */
package io.partkit.harness.check;
