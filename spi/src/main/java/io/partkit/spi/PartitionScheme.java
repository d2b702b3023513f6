package io.partkit.spi;

import io.partkit.spi.hash.KeyHash;

/**
 * How the 64-bit key-hash space is cut into partitions: the key -> partition half of an
 * assignment. Both schemes cut the signed hash line {@code [Long.MIN_VALUE, Long.MAX_VALUE]} into
 * contiguous ranges, so any two assignments can be compared range by range (as
 * {@code io.partkit.stats.Movement} does), whatever their strategies.
 *
 * <ul>
 *   <li>{@link HashSlots}: a fixed number of equal slots; key -> partition never changes with
 *       membership (Hazelcast's 271, Ignite's 1024).
 *   <li>{@link TokenRanges}: Cassandra's ring: partition {@code i} is the range
 *       {@code (token[i-1], token[i]]}, partition 0 wrapping around past {@code Long.MAX_VALUE}.
 * </ul>
 *
 * <p>Implementations are immutable and thread-safe; {@link #partitionOf(long)} allocates nothing.
 */
public sealed interface PartitionScheme permits HashSlots, TokenRanges {

  /** Number of partitions; partitions are numbered {@code 0 .. partitionCount()-1}. */
  int partitionCount();

  /** The hash function keys go through before {@link #partitionOf(long)}. */
  KeyHash keyHash();

  /** The partition of a key whose hash (by {@link #keyHash()}) is {@code hash}. */
  int partitionOf(long hash);

  /** Fraction of the hash space, in (0, 1], that the partition covers. */
  double share(int partition);

  /**
   * Visits the contiguous hash ranges in increasing signed order; together they cover the whole
   * line exactly once. A partition may appear in more than one range (the ring's wrap-around).
   */
  void forEachRange(RangeVisitor visitor);

  /** Receives one contiguous range of hashes, both ends inclusive. */
  @FunctionalInterface
  interface RangeVisitor {
    void range(long firstHash, long lastHash, int partition);
  }
}
