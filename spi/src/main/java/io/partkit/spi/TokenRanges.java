package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.hash.KeyHash;
import java.util.Arrays;

/**
 * A token ring: sorted, distinct tokens; partition {@code i} is the range
 * {@code (token[i-1], token[i]]} and partition 0 is {@code (token[n-1], Long.MAX_VALUE]} plus
 * {@code [Long.MIN_VALUE, token[0]]}. This is Cassandra's convention: a node owns the range that
 * ends at its token, and a key belongs to the first token at or after its own token, wrapping.
 *
 * <p>Lookup is allocation-free and O(1) on average: a {@code RingIndex} over the top bits of the
 * hash answers almost every hash with one read and no data-dependent branch, where a plain binary
 * search over 16,000 tokens would take 14 dependent, cache-missing reads. The index is derived
 * from the tokens, so it changes nothing about which partition a hash maps to.
 */
public final class TokenRanges implements PartitionScheme {

  private final long[] tokens;
  private final KeyHash keyHash;
  /**
   * Built on the first {@link #partitionOf}: an assignment routes keys through its own index
   * (straight to the primary), so a ring that is only routed through its assignment never pays
   * for this one's memory. Racing threads may each build one; all are equal, and a
   * {@code RingIndex}'s final fields make it safe to publish without a lock.
   */
  private RingIndex index;

  private TokenRanges(long[] tokens, KeyHash keyHash) {
    this.tokens = tokens;
    this.keyHash = keyHash;
  }

  /** The index, for its tests and memory figures. */
  RingIndex index() {
    RingIndex i = index;
    if (i == null) {
      i = new RingIndex(tokens, null);
      index = i;
    }
    return i;
  }

  /** The tokens themselves, not a copy: for indexes built over them in this package. */
  long[] tokensShared() {
    return tokens;
  }

  /**
   * A ring over the given tokens with Cassandra's key hash.
   *
   * @throws IllegalArgumentException if there are no tokens or they are not strictly increasing
   */
  public static TokenRanges of(long... tokens) {
    return of(KeyHash.CASSANDRA_MURMUR3, tokens);
  }

  /**
   * A ring over the given tokens.
   *
   * @throws IllegalArgumentException if there are no tokens or they are not strictly increasing
   */
  public static TokenRanges of(KeyHash keyHash, long... tokens) {
    requireNonNull(keyHash, "keyHash");
    requireNonNull(tokens, "tokens");
    if (tokens.length == 0) {
      throw new IllegalArgumentException("a token ring needs at least one token");
    }
    for (int i = 1; i < tokens.length; i++) {
      if (tokens[i] <= tokens[i - 1]) {
        throw new IllegalArgumentException("tokens must be strictly increasing: token[" + (i - 1)
            + "]=" + tokens[i - 1] + " >= token[" + i + "]=" + tokens[i]);
      }
    }
    return new TokenRanges(tokens.clone(), keyHash);
  }

  /** The token that ends partition {@code i}. */
  public long token(int partition) {
    return tokens[partition];
  }

  /** A copy of the sorted tokens. */
  public long[] tokens() {
    return tokens.clone();
  }

  @Override
  public int partitionCount() {
    return tokens.length;
  }

  @Override
  public KeyHash keyHash() {
    return keyHash;
  }

  @Override
  public int partitionOf(long hash) {
    return index().valueOf(hash);
  }

  @Override
  public double share(int partition) {
    if (partition < 0 || partition >= tokens.length) {
      throw new IndexOutOfBoundsException(
          "partition must be in 0.." + (tokens.length - 1) + ": " + partition);
    }
    if (partition > 0) {
      return unsignedToDouble(tokens[partition] - tokens[partition - 1]) / 0x1p64;
    }
    // the wrapping range: everything not covered by the others
    return 1.0 - unsignedToDouble(tokens[tokens.length - 1] - tokens[0]) / 0x1p64;
  }

  @Override
  public void forEachRange(RangeVisitor visitor) {
    visitor.range(Long.MIN_VALUE, tokens[0], 0);
    for (int i = 1; i < tokens.length; i++) {
      visitor.range(tokens[i - 1] + 1, tokens[i], i);
    }
    long last = tokens[tokens.length - 1];
    if (last != Long.MAX_VALUE) {
      visitor.range(last + 1, Long.MAX_VALUE, 0);
    }
  }

  private static double unsignedToDouble(long v) {
    double d = (double) (v >>> 1) * 2.0;
    return d + (v & 1);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TokenRanges other && keyHash == other.keyHash
        && Arrays.equals(tokens, other.tokens);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(tokens) * 31 + keyHash.hashCode();
  }

  @Override
  public String toString() {
    return "TokenRanges{" + tokens.length + " tokens, " + keyHash + "}";
  }
}
