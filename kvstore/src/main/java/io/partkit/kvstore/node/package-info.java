/**
 * A storage node: {@link io.partkit.kvstore.node.KvNode} (started in-process, with the nodes'
 * default timeouts) and {@link io.partkit.kvstore.node.KvNodeMain} (one node per process). The node
 * serves the requests of {@code io.partkit.kvstore.wire} on a TCP port, one thread per connection
 * ({@code TcpKvNode}, which admits connections by the replica node's {@code Admission}); holds its
 * partitions with a state each ({@code NodePartition}); keeps a write-ahead log so that {@code kill
 * -9} loses nothing acknowledged ({@code WriteAheadLog}, {@code LogRecords}, and {@code LogReach},
 * which tells a log that lost its end from one that simply ends); fences by epoch; and runs the
 * node's side of moves ({@code NodeMigration}: fence, pre-copy, copy, activate, drop), of
 * replication ({@code NodeReplication}, {@code ReplicaLinks}: as a primary, each write sent to
 * every backup) and of splits ({@code NodeSplits}). It measures its load per partition ({@code
 * NodeMetrics}, on the Micrometer registry it is given). {@code UnsafeTestFault} holds the
 * deliberate bugs a node can be started with, for fault-injection tests only.
 *
 * <p>It imports {@code io.partkit.kvstore}, {@code wire} and {@code load}; never the client or
 * the migration executor, which drive it over the wire.
 *
 * <p>Public: {@code KvNode}, {@code KvNodeMain} and the two log exceptions a start may throw
 * ({@code CorruptLogException}, {@code LostLogRecordsException}); the rest is package-private.
 */
package io.partkit.kvstore.node;
