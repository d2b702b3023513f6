/**
 * What the nodes measure and how it is read: {@link io.partkit.kvstore.load.NodeLoad} (a node's
 * requests, bytes and keys per partition, and its hot keys, from a frequent-items sketch in
 * {@code HotKeys}), {@link io.partkit.kvstore.load.ClusterLoad} (every node's view of one table,
 * turned into the {@code PartitionLoads} a load-aware strategy takes, with each partition's
 * median key as its split key) and {@link io.partkit.kvstore.load.LoadSampler} (the sampler a
 * coordinator's load source is wired to).
 *
 * <p>{@code HotKeys} is public because the node's metrics ({@code io.partkit.kvstore.node}) feed
 * it; {@code NodeLoad.of} and {@code reply} are the load reply's decoding and encoding.
 */
package io.partkit.kvstore.load;
