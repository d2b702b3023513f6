/**
 * What the nodes measure and how it is read: {@link io.partkit.kvstore.load.NodeLoad} (a node's
 * requests, bytes and keys per partition, and its hot keys, from a frequent-items sketch in
 * {@code HotKeys}), {@link io.partkit.kvstore.load.ClusterLoad} (every node's view of one table,
 * turned into the {@code PartitionLoads} a load-aware strategy takes, with each partition's
 * median key as its split key) and {@link io.partkit.kvstore.load.LoadSampler} (the sampler a
 * coordinator's load source is wired to).
 *
 * <p>It imports {@code io.partkit.kvstore} and {@code wire} ({@code NodeLoad.of}, {@code reply}
 * and {@code read} are the LOAD answer's decoding, encoding and request), never the client or
 * the node, which both use it: the client returns a {@code ClusterLoad}, the node's metrics
 * feed {@code HotKeys} and answer a {@code NodeLoad}. So a {@code LoadSampler} takes its readings
 * as a function ({@code client::load}) rather than the client.
 *
 * <p>{@code HotKeys} is public because the node's metrics feed it.
 */
package io.partkit.kvstore.load;
