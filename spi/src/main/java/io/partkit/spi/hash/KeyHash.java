package io.partkit.spi.hash;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * A named, frozen function from a key's bytes to a signed 64-bit hash.
 *
 * <h2>Key encodings (persisted)</h2>
 * <ul>
 *   <li>{@code byte[]}: the bytes as given.
 *   <li>{@code String}: its UTF-8 bytes (this allocates the encoded copy; route byte or long keys
 *       on allocation-sensitive paths).
 *   <li>{@code long}: its 8 bytes, big-endian ({@code ByteBuffer.putLong} order), computed without
 *       allocating.
 *   <li>{@code Integer}, {@code Long} objects (keys handed over by Ignite, Hazelcast and other
 *       object APIs): the {@code long} encoding of their value, so {@code 7} and {@code 7L} are
 *       the same key; see {@link #hashObject(Object)}.
 * </ul>
 *
 * <h2>Properties</h2>
 * Every variant is pure, thread-safe, allocation-free for {@code byte[]} and {@code long} keys,
 * and gives the same value on every JVM, platform and release. The output of an existing constant
 * is never changed: a different function is a new constant (the rule Guava follows with
 * {@code murmur3_32} and {@code murmur3_32_fixed}).
 */
public enum KeyHash {

  /**
   * MurmurHash3 x64_128 with seed 0, first 64-bit word: equal to Guava's
   * {@code Hashing.murmur3_128().hashBytes(key).asLong()}. The default for hash-slot schemes.
   */
  MURMUR3_128 {
    @Override
    public long hash(byte[] key, int offset, int length) {
      checkRange(key, offset, length);
      return Murmur3.canonical(key, offset, length);
    }

    @Override
    public long hashLong(long key) {
      return Murmur3.canonicalLong(key);
    }
  },

  /**
   * Cassandra's {@code Murmur3Partitioner} token: the first word of Cassandra's own Murmur3
   * x64_128 (seed 0), whose tail bytes >= 0x80 are sign-extended; an empty key is
   * {@link Long#MIN_VALUE} (Cassandra's minimum token) and a hash equal to {@link Long#MIN_VALUE}
   * becomes {@link Long#MAX_VALUE} (Cassandra reserves the minimum). Known value: the 4-byte
   * big-endian int 1 has token -4069959284402364209.
   */
  CASSANDRA_MURMUR3 {
    @Override
    public long hash(byte[] key, int offset, int length) {
      checkRange(key, offset, length);
      if (length == 0) {
        return Long.MIN_VALUE;
      }
      return normalize(Murmur3.cassandra(key, offset, length));
    }

    @Override
    public long hashLong(long key) {
      return normalize(Murmur3.cassandraLong(key));
    }

    private long normalize(long token) {
      return token == Long.MIN_VALUE ? Long.MAX_VALUE : token;
    }
  },

  /**
   * Not a hash: an order-preserving projection of a key onto the signed 64-bit line, for
   * {@link io.partkit.spi.KeyRanges}, whose partitions are ranges of the keys' byte order. The
   * first 8 bytes of the key, big-endian, zero-padded on the right when the key is shorter, with
   * the sign bit flipped, so that signed order of the result is unsigned lexicographic order of
   * the keys ({@code a < b} implies {@code prefix(a) <= prefix(b)}). Keys that agree on their
   * first 8 bytes (and keys that differ only by trailing zero bytes within them) project to the
   * same point; the empty key projects to {@link Long#MIN_VALUE}. A long key's projection is its
   * big-endian bytes, so {@code hashLong(k) == k ^ Long.MIN_VALUE}: negative longs sort after
   * positive ones, as their bytes do.
   */
  ORDERED_PREFIX {
    @Override
    public long hash(byte[] key, int offset, int length) {
      checkRange(key, offset, length);
      long v = 0;
      int n = Math.min(length, Long.BYTES);
      for (int i = 0; i < n; i++) {
        v = (v << 8) | (key[offset + i] & 0xFF);
      }
      v <<= 8 * (Long.BYTES - n); // zero padding: a prefix sorts before its extensions
      return v ^ Long.MIN_VALUE;
    }

    @Override
    public long hashLong(long key) {
      return key ^ Long.MIN_VALUE;
    }
  };

  /**
   * Hash of {@code length} bytes of {@code key} starting at {@code offset}.
   *
   * @throws IndexOutOfBoundsException if the range does not lie inside the array
   */
  public abstract long hash(byte[] key, int offset, int length);

  /** Hash of the 8 big-endian bytes of {@code key}. */
  public abstract long hashLong(long key);

  /** Hash of all of {@code key}'s bytes. */
  public long hash(byte[] key) {
    return hash(key, 0, key.length);
  }

  /** Hash of the UTF-8 encoding of {@code key}. */
  public long hash(String key) {
    byte[] utf8 = requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8);
    return hash(utf8, 0, utf8.length);
  }

  /**
   * Hash of a key handed over as an object, by the encodings above: {@code String},
   * {@code Long}, {@code Integer} or {@code byte[]}.
   *
   * @throws IllegalArgumentException for any other type: it has no stable encoding here
   *     ({@code hashCode()} is not one), so the caller must encode the key (or its routing part)
   *     as one of these
   */
  public long hashObject(Object key) {
    if (key instanceof String s) {
      return hash(s);
    } else if (key instanceof Long l) {
      return hashLong(l);
    } else if (key instanceof Integer i) {
      return hashLong(i);
    } else if (key instanceof byte[] bytes) {
      return hash(bytes);
    }
    throw new IllegalArgumentException("partkit routes String, Long, Integer and byte[] keys; "
        + "got " + (key == null ? "null" : key.getClass().getName())
        + " (encode the key, or its routing part, as one of those)");
  }

  private static void checkRange(byte[] key, int offset, int length) {
    requireNonNull(key, "key");
    if (offset < 0 || length < 0 || offset > key.length - length) {
      throw new IndexOutOfBoundsException(
          "key range [" + offset + ", " + offset + "+" + length + ") outside array of length "
              + key.length);
    }
  }
}
