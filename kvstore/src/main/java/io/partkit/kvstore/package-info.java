/**
 * The reference data plane: a small partitioned, replicated key-value store and the migration
 * protocol that moves its partitions. This package holds the vocabulary every part shares (a
 * partition's {@link io.partkit.kvstore.PartitionState} and {@link
 * io.partkit.kvstore.PartitionStatus} on a node, the cluster's {@link
 * io.partkit.kvstore.KvSecret}, the form of the nodes' and the executor's event lines {@link
 * io.partkit.kvstore.EventLine}); the parts are its subpackages:
 *
 * <ul>
 *   <li>{@code node}: a storage node ({@code KvNode}, {@code KvNodeMain}).
 *   <li>{@code client}: the routing client ({@code KvClient}) and range scans.
 *   <li>{@code wire}: the protocol between them (frames, requests, replies, pooled connections).
 *   <li>{@code migration}: {@code KvMigrationExecutor}, which moves partitions between nodes.
 *   <li>{@code load}: what nodes measure per partition and its hot keys, and the cluster's view.
 * </ul>
 *
 * <p>It is the system the migration protocol, the tests and the Jepsen-style harness run
 * against, not a production database: a thread per connection.
 */
package io.partkit.kvstore;
