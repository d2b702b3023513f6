/**
 * The Fixed Partitions protocol's replica cores as a system under test ({@code --system
 * replica}): node processes of {@code io.partkit.replica.node}, each a replica core with a
 * write-ahead log, a control process, and routing clients; the same decision code as {@code
 * partkit simulate} under real processes, sockets, disks and faults.
 */
package io.partkit.harness.replica;
