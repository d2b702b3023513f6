/**
 * What a replica node measures of the requests it serves, and how it is read: {@link
 * io.partkit.replica.node.load.LoadMeters} (Micrometer meters per partition and per node, and the
 * hot-key sketch), {@link io.partkit.replica.node.load.HotKeys}
 * (Apache DataSketches' frequent-items sketch over time windows), {@link
 * io.partkit.replica.node.load.NodeLoad} (one node's load view: per partition, its requests,
 * bytes and keys; its hottest keys) and {@link io.partkit.replica.node.load.ClusterLoad} (every
 * node's view of one table, turned into the {@code PartitionLoads} a load-aware strategy takes),
 * {@link io.partkit.replica.node.load.CopiesReceived} (what a replica node received from
 * the others to create or level its copies, which its load answer carries too), and {@link
 * io.partkit.replica.node.load.PartitionSizes} (the keys and split key of each partition of a
 * coordinator's table over the replica cores, for its size-driven splits).
 *
 * <p>Plain data and counting only: no sockets, no encoding. The node decides what it served and
 * when a partition's meters come and go ({@code RequestMeters}), and encodes the view in its
 * wire form ({@code Codec}), so that what is counted stays apart from how it travels.
 */
package io.partkit.replica.node.load;
