/**
 * The reference data plane: a small partitioned, replicated key-value store and the migration
 * protocol that moves its partitions. This package holds the vocabulary every part shares: a
 * partition's {@link io.partkit.kvstore.PartitionState} and {@link
 * io.partkit.kvstore.PartitionStatus} on a node, one key and its value as a scan returns them
 * ({@link io.partkit.kvstore.KvEntry}), the largest key, value and frame ({@link
 * io.partkit.kvstore.KvLimits}), and the form of the nodes' and the executor's event lines ({@link
 * io.partkit.kvstore.EventLine}). The cluster's secret, its login handshake and the connection
 * limits are a replica node's ({@code io.partkit.replica.node.access}), shared by both kinds of
 * node.
 *
 * <p>The parts are its subpackages, in layers: each imports only the layers below it, so no two
 * packages import each other ({@code PackageLayersTest} holds the sources to this list).
 *
 * <ol>
 *   <li>{@code io.partkit.kvstore} (this package): imports no other package of the kvstore.
 *   <li>{@code wire}: the protocol between the parts (frames, requests, replies, pooled
 *       connections); not an API.
 *   <li>{@code load}: what nodes measure per partition and its hot keys, and the cluster's view.
 *   <li>{@code client}: the routing client ({@code KvClient}) and range scans; {@code node}: a
 *       storage node ({@code KvNode}, {@code KvNodeMain}). Neither imports the other.
 *   <li>{@code migration}: {@code KvMigrationExecutor}, which moves partitions between nodes
 *       through the wire; it takes the nodes' default replica timeout from {@code KvNode}.
 * </ol>
 *
 * <p>The API is this package, {@code client}, {@code load}, {@code node} and {@code migration};
 * {@code wire} is not, though its classes are public because the packages above it use them.
 * The module has no module-info to hide it: the hot-key sketch's library (datasketches-java)
 * names no module, and a descriptor would have to require it by the name its jar file gives.
 *
 * <p>It is the system the migration protocol, the tests and the Jepsen-style harness run
 * against, not a production database: a thread per connection.
 */
package io.partkit.kvstore;
