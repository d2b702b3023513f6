/**
 * The routing client applications use: {@link io.partkit.kvstore.client.KvClient} routes get,
 * put and cas by key to the partition's primary from a cached table, retries MOVING and refreshes
 * on REDIRECT ({@code RoutingKvClient}). Range scans read the partitions a {@code ScanCoverage}
 * names, page by page, and merge them into key order ({@code RangeScan}). {@code
 * KvClient.Builder.spreadKey} spreads a hot key's writes over sub-keys ({@code KeySpreading}).
 *
 * <p>{@code RangeScan} is public for its argument check and key successor, which the scan page
 * encoding in {@code io.partkit.kvstore.wire} and the node tests share, and {@code KeySpreading}
 * for the sub-key layout, which is what a spread key's writes look like on the nodes.
 */
package io.partkit.kvstore.client;
