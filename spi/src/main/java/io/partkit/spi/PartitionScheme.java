package io.partkit.spi;

import io.partkit.spi.hash.KeyHash;

/**
 * How keys are cut into partitions: the key -> partition half of an assignment. Every scheme cuts
 * the signed line {@code [Long.MIN_VALUE, Long.MAX_VALUE]} of its {@link #keyHash()} into
 * contiguous ranges, so any two assignments can be compared range by range (as
 * {@code io.partkit.stats.Movement} does), whatever their strategies.
 *
 * <ul>
 *   <li>{@link HashSlots}: a fixed number of equal slots; key -> partition never changes with
 *       membership (Hazelcast's 271, Ignite's 1024).
 *   <li>{@link TokenRanges}: Cassandra's ring: partition {@code i} is the range
 *       {@code (token[i-1], token[i]]}, partition 0 wrapping around past {@code Long.MAX_VALUE}.
 *   <li>{@link KeyRanges}: ranges of the keys' own byte order, cut at split keys (keys are not
 *       hashed); its line is an order-preserving 64-bit projection of the keys, so its line
 *       methods are exact only up to keys that share 8 bytes with a split key, while
 *       {@link #partitionOfKey} is exact.
 * </ul>
 *
 * <p>Route real keys with {@link #partitionOfKey} and {@link #partitionOfLongKey}: for the
 * hashing schemes they are {@code partitionOf(keyHash().hash(key))}, for {@link KeyRanges} they
 * compare the key with the split keys.
 *
 * <p>Implementations are immutable and thread-safe; {@link #partitionOf(long)} allocates nothing.
 */
public sealed interface PartitionScheme permits HashSlots, TokenRanges, KeyRanges {

  /** Number of partitions; partitions are numbered {@code 0 .. partitionCount()-1}. */
  int partitionCount();

  /** The hash function keys go through before {@link #partitionOf(long)}. */
  KeyHash keyHash();

  /** The partition of a key whose hash (by {@link #keyHash()}) is {@code hash}. */
  int partitionOf(long hash);

  /**
   * The partition of a key given as bytes: {@code partitionOf(keyHash().hash(key))}, except for
   * {@link KeyRanges}, which compares the key's bytes with its split keys (exact where its
   * projection is not).
   */
  default int partitionOfKey(byte[] key) {
    return partitionOf(keyHash().hash(key));
  }

  /** The partition of a {@code long} key (its 8 big-endian bytes); as {@link #partitionOfKey}. */
  default int partitionOfLongKey(long key) {
    return partitionOf(keyHash().hashLong(key));
  }

  /**
   * Fraction of the hash space, in [0, 1], that the partition covers: in (0, 1] for the hashing
   * schemes; a {@link KeyRanges} partition whose split keys share their first 8 bytes has 0.
   */
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
