/**
 * What the clients do: seeded operations over many independent registers
 * ({@link io.partkit.harness.workload.RegisterWorkload}).
 */
package io.partkit.harness.workload;
