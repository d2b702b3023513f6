package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.hash.KeyHash;

/**
 * {@code count} slots of (almost exactly) equal width over the hash line.
 *
 * <p>Persisted format: with {@code u = hash ^ Long.MIN_VALUE} (the hash read as an unsigned
 * offset from {@code Long.MIN_VALUE}), {@code partition = ((u >>> 32) * count) >>> 32}.
 * Lemire's multiply-shift reduction: uniform like {@code hash mod count} but without a division,
 * and monotone in the hash, so each slot is one contiguous range (slot widths differ by at most
 * 2<sup>-32</sup> of the space).
 *
 * @param count number of slots, 1..{@value #MAX_COUNT}
 * @param keyHash hash function keys go through
 */
public record HashSlots(int count, KeyHash keyHash) implements PartitionScheme {

  /** Most slots supported: 2^24, far beyond any partition table that fits in memory on a client. */
  public static final int MAX_COUNT = 1 << 24;

  /**
   * @throws IllegalArgumentException if count is outside 1..{@value #MAX_COUNT}
   */
  public HashSlots {
    requireNonNull(keyHash, "keyHash");
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException(
          "partition count must be in 1.." + MAX_COUNT + ": " + count);
    }
  }

  /** {@code count} slots over {@link KeyHash#MURMUR3_128}. */
  public static HashSlots of(int count) {
    return new HashSlots(count, KeyHash.MURMUR3_128);
  }

  @Override
  public int partitionCount() {
    return count;
  }

  @Override
  public int partitionOf(long hash) {
    return slotOf(hash, count);
  }

  /** The persisted formula, in one place; {@link PartitionAssignment} calls it on its hot path. */
  static int slotOf(long hash, long count) {
    return (int) ((((hash ^ Long.MIN_VALUE) >>> 32) * count) >>> 32);
  }

  /**
   * The smallest high word {@code u >>> 32} that lands in {@code partition}:
   * ceil(p * 2^32 / count).
   */
  private long lowWord(int partition) {
    return ((long) partition << 32) / count + (((long) partition << 32) % count == 0 ? 0 : 1);
  }

  @Override
  public double share(int partition) {
    checkPartition(partition);
    return (lowWord(partition + 1) - lowWord(partition)) / 4294967296.0;
  }

  @Override
  public void forEachRange(RangeVisitor visitor) {
    for (int p = 0; p < count; p++) {
      long first = (lowWord(p) << 32) ^ Long.MIN_VALUE;
      // for the last slot lowWord(count) << 32 overflows to 0 and 0 - 1 is the top of the line
      long last = ((lowWord(p + 1) << 32) - 1) ^ Long.MIN_VALUE;
      visitor.range(first, last, p);
    }
  }

  private void checkPartition(int partition) {
    if (partition < 0 || partition >= count) {
      throw new IndexOutOfBoundsException(
          "partition must be in 0.." + (count - 1) + ": " + partition);
    }
  }
}
