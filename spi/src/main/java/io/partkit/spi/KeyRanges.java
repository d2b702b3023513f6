package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Key-range partitioning over the byte order of keys (Bigtable's tablets, HBase's regions,
 * CockroachDB's ranges): sorted split keys, and partition {@code i} holds the keys {@code k} with
 * {@code split[i-1] <= k < split[i]} in unsigned lexicographic byte order; partition 0 starts at
 * the empty key and the last partition has no upper end. Keys are encoded as everywhere in
 * partkit ({@link KeyHash}): {@code byte[]} as given, {@code String} as UTF-8, {@code long} as 8
 * big-endian bytes (so negative longs sort after positive ones, as their bytes do).
 *
 * <p>Unlike {@link HashSlots} and {@link TokenRanges}, keys are not hashed: consecutive keys share
 * a partition, which is what makes range scans cheap, and sequential inserts all land in the last
 * partition until it splits. The boundaries are part of the table, so a split or merge is a
 * scheme change ({@link #withSplit}, {@link #withoutSplit}).
 *
 * <h2>Two ways to route a key</h2>
 * {@link #partitionOfKey(byte[])} is exact: a binary search over the split keys, allocation-free.
 * The hash-line methods every scheme has ({@link #keyHash()}, {@link #partitionOf(long)},
 * {@link #share}, {@link #forEachRange}), which {@code Movement}, placement statistics and the
 * coordinator's split check use to compare schemes, work on an order-preserving projection of
 * each key and split to 64 bits, {@link KeyHash#ORDERED_PREFIX} (its first 8 bytes). They agree
 * with the exact routing for every key except those whose first 8 bytes (zero-padded) equal
 * those of a split key: such a key may be counted in the partition that split key starts. When
 * two split keys share their 8-byte prefix, the partitions between them have share 0 on the line.
 * Shares are therefore the key-space fractions of keys whose first 8 bytes are uniformly random,
 * not of any real key distribution: balance by real data needs measured sizes (see
 * {@link PartitionLoads}).
 *
 * <p>Immutable and thread-safe. A final class rather than a record because its state is arrays,
 * which a record would compare by identity; {@link #equals} compares the split keys' contents.
 */
public final class KeyRanges implements PartitionScheme {

  /** Most split keys: a table with more than a million ranges no longer fits on every client. */
  public static final int MAX_SPLITS = (1 << 20) - 1;

  private static final HexFormat HEX = HexFormat.of();

  /** The split keys, strictly increasing, none empty; never handed out without a copy. */
  private final byte[][] splits;
  /** {@code projected[i] = ORDERED_PREFIX.hash(splits[i])}: non-decreasing. */
  private final long[] projected;

  private KeyRanges(byte[][] splits) {
    this.splits = splits;
    this.projected = new long[splits.length];
    for (int i = 0; i < splits.length; i++) {
      projected[i] = KeyHash.ORDERED_PREFIX.hash(splits[i]);
    }
  }

  /**
   * Ranges cut at the given split keys (copied), {@code splits.length + 1} partitions.
   *
   * @throws IllegalArgumentException naming the offending index if a split key is empty (the
   *     first partition already starts at the empty key), or the keys are not strictly increasing
   *     in unsigned byte order, or there are more than {@value #MAX_SPLITS}
   */
  public static KeyRanges of(byte[]... splits) {
    requireNonNull(splits, "splits");
    return of(Arrays.asList(splits));
  }

  /** As {@link #of(byte[]...)}, from a list. */
  public static KeyRanges of(List<byte[]> splits) {
    requireNonNull(splits, "splits");
    if (splits.size() > MAX_SPLITS) {
      throw new IllegalArgumentException("key ranges: at most " + MAX_SPLITS
          + " split keys, got " + splits.size());
    }
    byte[][] copy = new byte[splits.size()][];
    for (int i = 0; i < copy.length; i++) {
      byte[] s = splits.get(i);
      if (s == null || s.length == 0) {
        throw new IllegalArgumentException("key ranges: split key " + i + " is "
            + (s == null ? "null" : "empty")
            + "; expected a non-empty key (partition 0 already starts at the empty key)");
      }
      copy[i] = s.clone();
      if (i > 0 && Arrays.compareUnsigned(copy[i - 1], copy[i]) >= 0) {
        throw new IllegalArgumentException("key ranges: split keys must be strictly increasing"
            + " in unsigned byte order, but split " + (i - 1) + " = " + hex(copy[i - 1])
            + " >= split " + i + " = " + hex(copy[i]));
      }
    }
    return new KeyRanges(copy);
  }

  /**
   * {@code count} ranges of equal share of the 8-byte-prefix line: the split keys are the
   * 8-byte big-endian values {@code i * 2^64 / count}, trailing zero bytes dropped. For keys with
   * uniformly random first bytes this is as balanced as {@link HashSlots}; for real keys it is a
   * starting point that splits refine.
   *
   * @throws IllegalArgumentException if count is outside 1..{@value #MAX_SPLITS}+1
   */
  public static KeyRanges even(int count) {
    if (count < 1 || count > MAX_SPLITS + 1) {
      throw new IllegalArgumentException(
          "key ranges: partition count must be in 1.." + (MAX_SPLITS + 1) + ": " + count);
    }
    byte[][] splits = new byte[count - 1][];
    for (int i = 1; i < count; i++) {
      splits[i - 1] = trimmed(unsignedFraction(i, count));
    }
    return new KeyRanges(splits);
  }

  /** floor(i * 2^64 / count) for 0 < i < count, as an unsigned long. */
  private static long unsignedFraction(int i, int count) {
    // the product needs 84 bits; this runs once per split of a first table
    return java.math.BigInteger.valueOf(i).shiftLeft(64)
        .divide(java.math.BigInteger.valueOf(count)).longValue();
  }

  /** The 8 big-endian bytes of {@code v} without trailing zeros (never empty for v != 0). */
  private static byte[] trimmed(long v) {
    int n = Long.BYTES - Long.numberOfTrailingZeros(v) / 8;
    byte[] b = new byte[n];
    for (int k = 0; k < n; k++) {
      b[k] = (byte) (v >>> (56 - 8 * k));
    }
    return b;
  }

  /** Number of split keys: {@code partitionCount() - 1}. */
  public int splitCount() {
    return splits.length;
  }

  /** Split key {@code index} (a copy): the first key of partition {@code index + 1}. */
  public byte[] split(int index) {
    if (index < 0 || index >= splits.length) {
      throw new IndexOutOfBoundsException(
          "split index must be in 0.." + (splits.length - 1) + ": " + index);
    }
    return splits[index].clone();
  }

  /** Copies of all split keys, in order. */
  public List<byte[]> splits() {
    List<byte[]> list = new ArrayList<>(splits.length);
    for (byte[] s : splits) {
      list.add(s.clone());
    }
    return list;
  }

  /** The first key of {@code partition} (a copy; empty for partition 0). */
  public byte[] lowerBound(int partition) {
    checkPartition(partition);
    return partition == 0 ? new byte[0] : splits[partition - 1].clone();
  }

  /** The first key after {@code partition} (a copy), or null for the last partition. */
  public byte[] upperBound(int partition) {
    checkPartition(partition);
    return partition == splits.length ? null : splits[partition].clone();
  }

  /**
   * This table with {@code partition} cut in two at {@code at}: partition {@code partition} keeps
   * the keys below {@code at}, a new partition {@code partition + 1} takes the rest, and every
   * later partition's number grows by one.
   *
   * @throws IllegalArgumentException if {@code at} is not strictly inside the partition (it must
   *     be above its lower bound and below its upper bound, so that both halves are non-empty)
   */
  public KeyRanges withSplit(int partition, byte[] at) {
    checkPartition(partition);
    requireNonNull(at, "at");
    if (at.length == 0 || partition > 0 && Arrays.compareUnsigned(splits[partition - 1], at) >= 0
        || partition < splits.length && Arrays.compareUnsigned(at, splits[partition]) >= 0) {
      throw new IllegalArgumentException("key ranges: cannot split partition " + partition
          + " [" + hex(lowerBound(partition)) + ", "
          + (partition < splits.length ? hex(splits[partition]) : "end") + ") at " + hex(at)
          + "; expected a key strictly inside the partition, above its first key");
    }
    byte[][] next = new byte[splits.length + 1][];
    System.arraycopy(splits, 0, next, 0, partition);
    next[partition] = at.clone();
    System.arraycopy(splits, partition, next, partition + 1, splits.length - partition);
    return new KeyRanges(next);
  }

  /**
   * This table with split key {@code index} removed: partitions {@code index} and
   * {@code index + 1} merge into partition {@code index}, and later numbers shrink by one.
   */
  public KeyRanges withoutSplit(int index) {
    if (index < 0 || index >= splits.length) {
      throw new IndexOutOfBoundsException("key ranges: split index must be in 0.."
          + (splits.length - 1) + " to merge: " + index);
    }
    byte[][] next = new byte[splits.length - 1][];
    System.arraycopy(splits, 0, next, 0, index);
    System.arraycopy(splits, index + 1, next, index, splits.length - index - 1);
    return new KeyRanges(next);
  }

  @Override
  public int partitionCount() {
    return splits.length + 1;
  }

  /** {@link KeyHash#ORDERED_PREFIX}: the order-preserving projection, not a hash. */
  @Override
  public KeyHash keyHash() {
    return KeyHash.ORDERED_PREFIX;
  }

  /** Exact: the number of split keys at or below {@code key}, by binary search. */
  @Override
  public int partitionOfKey(byte[] key) {
    requireNonNull(key, "key");
    int lo = 0;
    int hi = splits.length; // answer in [lo, hi]: splits[0..lo) <= key < splits[hi..)
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(splits[mid], key) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Exact, without encoding the key: compares split keys with its 8 big-endian bytes. */
  @Override
  public int partitionOfLongKey(long key) {
    int lo = 0;
    int hi = splits.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (compareWithLong(splits[mid], key) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** {@code Arrays.compareUnsigned(split, bigEndianBytes(key))} without the array. */
  private static int compareWithLong(byte[] split, long key) {
    int n = Math.min(split.length, Long.BYTES);
    for (int k = 0; k < n; k++) {
      int a = split[k] & 0xFF;
      int b = (int) (key >>> (56 - 8 * k)) & 0xFF;
      if (a != b) {
        return a - b;
      }
    }
    return split.length - Long.BYTES;
  }

  /**
   * On the projected line: the last partition whose first key projects at or below
   * {@code hash} (see the class comment for where this differs from {@link #partitionOfKey}).
   */
  @Override
  public int partitionOf(long hash) {
    int lo = 0;
    int hi = projected.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (projected[mid] <= hash) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The partition's share of the projected line; 0 when its split keys share 8 bytes. */
  @Override
  public double share(int partition) {
    checkPartition(partition);
    long first = partition == 0 ? Long.MIN_VALUE : projected[partition - 1];
    if (partition < splits.length && projected[partition] == first) {
      return 0.0; // empty on the line: the next partition starts at the same projection
    }
    long end = partition == splits.length ? Long.MAX_VALUE : projected[partition] - 1;
    double width = unsignedToDouble(end - first) + 1.0;
    return width / 0x1p64;
  }

  /** Visits the partitions with a non-empty projected range (see {@link #share}), in order. */
  @Override
  public void forEachRange(RangeVisitor visitor) {
    for (int p = 0; p <= splits.length; p++) {
      long first = p == 0 ? Long.MIN_VALUE : projected[p - 1];
      if (p == splits.length) {
        visitor.range(first, Long.MAX_VALUE, p);
      } else if (projected[p] != first) {
        visitor.range(first, projected[p] - 1, p);
      }
    }
  }

  private static double unsignedToDouble(long v) {
    return (double) (v >>> 1) * 2.0 + (v & 1);
  }

  private void checkPartition(int partition) {
    if (partition < 0 || partition > splits.length) {
      throw new IndexOutOfBoundsException(
          "partition must be in 0.." + splits.length + ": " + partition);
    }
  }

  /** A key as lower-case hex, for messages. */
  static String hex(byte[] key) {
    return key.length == 0 ? "(empty)" : "0x" + HEX.formatHex(key);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyRanges other && Arrays.deepEquals(splits, other.splits);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(splits);
  }

  @Override
  public String toString() {
    if (splits.length <= 4) {
      StringBuilder b = new StringBuilder("KeyRanges{splits=[");
      for (int i = 0; i < splits.length; i++) {
        b.append(i == 0 ? "" : ", ").append(hex(splits[i]));
      }
      return b.append("]}").toString();
    }
    return "KeyRanges{" + partitionCount() + " ranges, " + hex(splits[0]) + " .. "
        + hex(splits[splits.length - 1]) + "}";
  }
}
