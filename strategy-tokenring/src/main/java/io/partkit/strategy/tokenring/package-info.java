/**
 * The {@code tokenring} strategy: a Cassandra-style token ring with virtual nodes.
 *
 * <p>Keys hash with {@link io.partkit.spi.hash.KeyHash#CASSANDRA_MURMUR3} (Cassandra's
 * {@code Murmur3Partitioner} token, bit for bit); partition {@code i} is the range
 * {@code (token[i-1], token[i]]} of a {@link io.partkit.spi.TokenRanges} scheme and its primary is
 * the node that owns {@code token[i]}; replicas are found by walking the ring clockwise, spread
 * over zones and racks the way Cassandra's {@code NetworkTopologyStrategy} spreads over racks.
 * Tokens come from one of two choosers: seeded random tokens (a pure function of seed, node id and
 * vnode index) or a greedy allocator that balances ownership in the spirit of Cassandra's
 * {@code ReplicationAwareTokenAllocator}.
 *
 * <p>The only public type is the provider; the strategy is created through
 * {@link io.partkit.spi.Partitioners} by the name {@code "tokenring"}.
 */
package io.partkit.strategy.tokenring;
