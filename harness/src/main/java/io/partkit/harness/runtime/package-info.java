/**
 * Where a run's nodes live ({@link io.partkit.harness.runtime.NodeRuntime}): processes on
 * loopback, processes each in a Linux network namespace on a private bridge (real partitions), or
 * containers where a Docker engine runs. {@link io.partkit.harness.runtime.Runtimes} picks one by
 * name.
 */
package io.partkit.harness.runtime;
