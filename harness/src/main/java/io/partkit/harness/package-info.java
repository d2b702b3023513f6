/**
 * A Jepsen-style harness: {@link io.partkit.harness.VerifyRun#run} starts a real system
 * ({@link io.partkit.harness.system}) on a node runtime ({@link io.partkit.harness.runtime}),
 * drives seeded client workloads ({@link io.partkit.harness.workload}) while a nemesis injects
 * faults ({@link io.partkit.harness.nemesis}), records the history, checks it for linearizability
 * per key and for lost acknowledged writes ({@link io.partkit.harness.check}), and stores it with
 * a report under {@code store/<system>/<time>/}.
 */
package io.partkit.harness;
