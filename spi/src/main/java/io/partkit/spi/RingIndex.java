package io.partkit.spi;

/**
 * A direct-mapped index over a token ring that answers most lookups with one read of one
 * {@code long} and no data-dependent branch: the value (a partition, or whatever the caller maps
 * partitions to) of the range holding a hash.
 *
 * <p>The hash line is cut into {@code 2^bits} equal buckets by the top bits of
 * {@code hash ^ Long.MIN_VALUE}. With at least four buckets per token almost every bucket holds
 * at most one token, and a bucket with at most one token is described exactly by one entry:
 *
 * <pre>
 *   bits 63..50  split: the 14 bits of the bucket's token just below the bucket bits
 *                (all ones when the bucket has no token)
 *   bits 49..25  above: the value for hashes past the split
 *   bits 24..0   atOrBelow: the value for hashes at or before the split
 * </pre>
 *
 * A lookup compares the hash's own 14 bits below the bucket bits with the split and picks one of
 * the two values arithmetically, not by a branch: which side a key falls on is a coin toss the
 * branch predictor would lose. Two cases go to an exact search over the tokens, both rare and so
 * well predicted: a hash whose 14 bits equal the split (about 2^-14 of lookups: the truncated
 * split cannot tell which side it is on), and a bucket with two or more tokens (about 2.6% of
 * buckets for random tokens at four buckets per token; 1.1% for the greedy allocator's tokens
 * at 1000 nodes x 16 vnodes), whose
 * entry is {@code split 0, above SLOW, atOrBelow} its first token. The search starts at a token no
 * later than the answer and gallops, so even a bucket crowded with thousands of tokens costs a
 * logarithmic search.
 *
 * <p>Memory: 8 bytes per bucket, 4 to 8 buckets per token up to {@value #MAX_BITS} bits (8 MiB);
 * rings beyond 2^18 tokens get fewer buckets per token and more searches. The index is derived
 * from the tokens, so it changes nothing about which range a hash falls in.
 */
final class RingIndex {

  /** Most index bits: 2^20 buckets, 8 MiB, whatever the ring size. */
  static final int MAX_BITS = 20;
  /** Width of a value: partitions are < 2^24 ({@link HashSlots#MAX_COUNT}) plus {@link #SLOW}. */
  static final int VALUE_BITS = 25;
  static final long VALUE_MASK = (1L << VALUE_BITS) - 1;
  /** Marks a bucket that needs the search (two or more tokens). */
  static final int SLOW = (int) VALUE_MASK;
  /** The split sits above both values: {@code 64 - 2 * 25 = 14} bits. */
  private static final int SPLIT_SHIFT = 2 * VALUE_BITS;
  private static final long NO_SPLIT = (1L << (64 - SPLIT_SHIFT)) - 1;

  private final long[] tokens;
  /** Value of partition p; null when the value is the partition itself. */
  private final int[] values;
  private final int bits;
  /** {@code 64 - bits}: kept rather than subtracted on every lookup. */
  private final int shift;
  private final long[] entries;

  /**
   * @param tokens sorted, distinct ring tokens (not copied: the caller never changes them)
   * @param values value of each partition, each below {@link #SLOW}; null for the partitions
   *     themselves
   */
  RingIndex(long[] tokens, int[] values) {
    this.tokens = tokens;
    this.values = values;
    this.bits = bitsFor(tokens.length);
    this.shift = 64 - bits;
    this.entries = new long[1 << bits];
    int n = tokens.length;
    int t = 0;
    for (int b = 0; b < entries.length; b++) {
      int first = t;
      while (t < n && bucketOf(tokens[t]) == b) {
        t++;
      }
      int count = t - first;
      if (count == 0) {
        long v = valueOf(first == n ? 0 : first);
        entries[b] = NO_SPLIT << SPLIT_SHIFT | v << VALUE_BITS | v;
      } else if (count == 1) {
        long below = valueOf(first);
        long above = valueOf(first + 1 == n ? 0 : first + 1);
        entries[b] = subOf(tokens[first]) << SPLIT_SHIFT | above << VALUE_BITS | below;
      } else {
        entries[b] = (long) SLOW << VALUE_BITS | first;
      }
    }
  }

  /**
   * Bits for a ring of {@code n} tokens: the next power of two at or above four buckets per
   * token (so 4 to 8), at most {@value #MAX_BITS}.
   */
  static int bitsFor(int n) {
    int bits = 1;
    while (bits < MAX_BITS && (1L << bits) < 4L * n) {
      bits++;
    }
    return bits;
  }

  private long valueOf(int partition) {
    int v = values == null ? partition : values[partition];
    if (v < 0 || v >= SLOW) {
      throw new IllegalArgumentException("index value out of range: " + v);
    }
    return v;
  }

  /** Bucket of a hash: its top {@link #bits} bits, read unsigned from Long.MIN_VALUE. */
  private int bucketOf(long hash) {
    return (int) ((hash ^ Long.MIN_VALUE) >>> shift);
  }

  /** The 14 bits of a hash just below its bucket bits. */
  private long subOf(long hash) {
    return ((hash ^ Long.MIN_VALUE) << bits) >>> SPLIT_SHIFT;
  }

  /** The value of the range holding {@code hash}: the first token >= hash, wrapping to 0. */
  int valueOf(long hash) {
    long u = hash ^ Long.MIN_VALUE;
    long e = entries[(int) (u >>> shift)];
    long sub = (u << bits) >>> SPLIT_SHIFT;
    long split = e >>> SPLIT_SHIFT;
    // above when sub > split: both are 14-bit, so the difference's sign says which, and a shift
    // by 0 or 25 picks the field. Not a ternary: C2 kept that as a branch, which a key's side
    // of the split makes a coin toss (measured: 10.1 -> 8.5 ns per hash + lookup, 1000 tokens)
    int v = (int) ((e >>> (((split - sub) >> 63) & VALUE_BITS)) & VALUE_MASK);
    if (v == SLOW | sub == split) {
      return searched(hash, e);
    }
    return v;
  }

  /**
   * The value for {@code hash} by an exact search from a token at or before the answer: a
   * crowded bucket's first token; for a tie in the scheme's own index, atOrBelow, which is the
   * bucket's only token or the answer itself (0 when it wraps, still at or before it); else 0
   * (ties are too rare for their O(log n) to matter).
   */
  private int searched(long hash, long e) {
    boolean crowded = (int) ((e >>> VALUE_BITS) & VALUE_MASK) == SLOW;
    int start = crowded || values == null ? (int) (e & VALUE_MASK) : 0;
    int p = firstAtOrAfter(tokens, hash, start);
    int partition = p == tokens.length ? 0 : p;
    return values == null ? partition : values[partition];
  }

  /**
   * The first index i >= start with tokens[i] >= hash, or tokens.length: gallops from start,
   * then a binary search in the last step, so O(log distance).
   */
  static int firstAtOrAfter(long[] tokens, long hash, int start) {
    int n = tokens.length;
    int lo = start;
    int hi = start;
    int step = 1;
    while (hi < n && tokens[hi] < hash) {
      lo = hi + 1;
      hi += step;
      step <<= 1;
    }
    if (hi > n) {
      hi = n;
    }
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (tokens[mid] < hash) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Bits that choose a bucket. */
  int bits() {
    return bits;
  }

  /** Number of buckets. */
  int bucketCount() {
    return entries.length;
  }

  /** Buckets that always need the search (two or more tokens). */
  int crowdedBuckets() {
    int crowded = 0;
    for (long e : entries) {
      if ((int) ((e >>> VALUE_BITS) & VALUE_MASK) == SLOW) {
        crowded++;
      }
    }
    return crowded;
  }
}
