/**
 * The routing client applications use: {@link io.partkit.kvstore.client.KvClient} routes get,
 * put and cas by key to the partition's primary from a cached table, retries MOVING and refreshes
 * on REDIRECT ({@code RoutingKvClient}). Range scans read the partitions a {@code ScanCoverage}
 * names, page by page, and merge them into key order ({@code RangeScan}, a {@link
 * io.partkit.kvstore.client.KvScanner}). {@code KvClient.Builder.spreadKey} spreads a hot key's
 * writes over sub-keys ({@code KeySpreading}).
 *
 * <p>It imports {@code io.partkit.kvstore}, {@code wire} and {@code load} ({@code KvClient.load()}
 * returns a {@code ClusterLoad}); never the node or the migration executor.
 *
 * <p>Public: the API ({@code KvClient}, {@code KvScanner}, {@code ScanResult}, {@code
 * SpreadWrites}, {@code KvException}) and {@code KeySpreading}, for the sub-key layout, which is
 * what a spread key's writes look like on the nodes; the rest is package-private.
 */
package io.partkit.kvstore.client;
