/**
 * Where a run's nodes live ({@link io.partkit.harness.runtime.NodeRuntime}): processes on
 * loopback, processes each in a Linux network namespace on a private bridge (real partitions), or
 * containers on a Docker engine, each with its own address on a network of the run's own (real
 * partitions without root). {@link io.partkit.harness.runtime.Runtimes} picks one by name.
 */
package io.partkit.harness.runtime;
