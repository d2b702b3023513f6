/**
 * Where a run's nodes live ({@link io.partkit.harness.runtime.NodeRuntime}): processes on
 * loopback, processes each in a Linux network namespace on a private bridge (real partitions),
 * containers on a Docker engine, each with its own address on a network of the run's own (real
 * partitions without root), or processes on real hosts reached over SSH (Jepsen's control node
 * and DB nodes). Each is a {@link io.partkit.harness.runtime.RuntimeProvider} found through
 * {@link java.util.ServiceLoader}, with typed options ({@link
 * io.partkit.harness.runtime.RuntimeOption}); {@link io.partkit.harness.runtime.Runtimes} finds
 * them by name, and a jar of your own adds one the same way.
 */
package io.partkit.harness.runtime;
