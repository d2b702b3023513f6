/**
 * Faults: {@code kill -9} and restart, {@code SIGSTOP} pauses, network partitions in Jepsen's
 * shapes, membership changes, and faults aimed at a migration in flight, started and healed on a
 * seeded schedule (the harness's {@code NemesisSchedule}).
 */
package io.partkit.harness.nemesis;
