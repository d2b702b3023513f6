/**
 * partkit's replicated key-value store as a system under test ({@code --system kv}): the Fixed
 * Partitions protocol's replica cores as node processes of {@code io.partkit.replica.node}, each
 * with a write-ahead log, a control process (or a partkit coordinator), and routing clients; the
 * same decision code as {@code partkit simulate} under real processes, sockets, disks and faults.
 */
package io.partkit.harness.kv;
