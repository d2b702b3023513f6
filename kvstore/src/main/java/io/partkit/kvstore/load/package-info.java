/**
 * The kvstore's side of the load view, whose data and metering it shares with the replica node
 * ({@link io.partkit.replica.node.load}: {@code NodeLoad}, {@code ClusterLoad}, {@code HotKeys},
 * {@code LoadMeters}): {@link io.partkit.kvstore.load.LoadAnswer} (the {@code LOAD} answer in the
 * kvstore's wire form) and {@link io.partkit.kvstore.load.LoadSampler} (the sampler a
 * coordinator's load source is wired to).
 *
 * <p>It imports {@code io.partkit.kvstore} and {@code wire} ({@code LoadAnswer} is the LOAD
 * answer's decoding, encoding and request), never the client or the node, which both use it: the
 * client returns a {@code ClusterLoad}, the node answers a {@code NodeLoad}. So a {@code
 * LoadSampler} takes its readings as a function ({@code client::load}) rather than the client.
 */
package io.partkit.kvstore.load;
