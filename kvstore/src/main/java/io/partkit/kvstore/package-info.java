/**
 * The reference data plane: a small partitioned key-value store and the migration protocol.
 *
 * <ul>
 *   <li>{@link io.partkit.kvstore.KvNode}: a storage node on a TCP port on loopback, holding its
 *       partitions with a state each ({@link io.partkit.kvstore.PartitionState}), a write-ahead
 *       log so that {@code kill -9} loses nothing acknowledged, and fencing by epoch.
 *   <li>{@link io.partkit.kvstore.KvClient}: routes get/put/cas by key, partition and owner from a
 *       cached table; retries MOVING, refreshes on REDIRECT. Range scans read the partitions a
 *       {@code ScanCoverage} names, page by page, and merge them into key order.
 *   <li>{@link io.partkit.kvstore.KvMigrationExecutor}: moves a partition between nodes in
 *       recorded steps (PLANNED, FENCED, COPIED, COMMITTED, SOURCE_DROPPED) so that a crash of
 *       source, target or coordinator is completed or rolled back by {@code resume}.
 *   <li>{@link io.partkit.kvstore.NodeLoad}: what a node measured per partition (Micrometer
 *       meters on the registry it is given) and its hot keys (a frequent-items sketch), read by
 *       {@link io.partkit.kvstore.KvClient#load()} and turned into {@code PartitionLoads} by
 *       {@link io.partkit.kvstore.ClusterLoad}, with each partition's median key as its split
 *       key ({@code ClusterLoad.splitKeys}, what {@code RangeSplits} takes); {@code
 *       KvClient.Builder.spreadKey} spreads a hot key's writes over sub-keys.
 * </ul>
 *
 * <p>It is the system the migration protocol, the tests and the Jepsen-style harness run
 * against, not a production database: one replica per partition, a thread per connection.
 */
package io.partkit.kvstore;
