/**
 * Moving partitions between nodes, driven from the coordinator's process: {@link
 * io.partkit.kvstore.migration.KvMigrationExecutor}, the kvstore's {@code MigrationExecutor}. It
 * runs single-owner moves (fence, copy, commit, drop, with roll back) and replica changes ({@code
 * ReplicaAdmin}: a partition with backups changes its whole replica list, failing over when the
 * primary is gone), and brings the nodes in line with every committed table: {@code
 * ReconcilePlan} decides what to do from the table, the nodes' listings and the moves in flight,
 * without I/O, and {@code ReconcileRun} carries it out. {@code SplitProtocol} prepares and
 * settles splits (scheme changes) with the requests {@code SplitRequests} encodes; {@code
 * NodeCalls} reaches the nodes (pooled connections, retries until the step timeout).
 *
 * <p>The top layer: it imports {@code io.partkit.kvstore} and {@code wire}, through which it
 * speaks to the nodes, and {@code node} only for {@code KvNode}'s default replica timeout,
 * which its own default matches. Nothing of the kvstore imports it.
 *
 * <p>Public: {@code KvMigrationExecutor}, {@code MigrationStep}, {@code
 * MigrationRolledBackException}, and {@code ReplicaAdmin}, because the node tests build
 * replicated partitions with it.
 */
package io.partkit.kvstore.migration;
