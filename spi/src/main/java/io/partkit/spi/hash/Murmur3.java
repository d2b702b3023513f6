package io.partkit.spi.hash;

/**
 * MurmurHash3 x64_128, seed 0, returning the first 64-bit word (h1), in two flavours.
 *
 * <p>Canonical: exactly Austin Appleby's reference {@code MurmurHash3_x64_128}, and so equal to
 * Guava's {@code Hashing.murmur3_128(0).hashBytes(b).asLong()} (checked by the tests). Cassandra:
 * the variant in Cassandra's {@code org.apache.cassandra.utils.MurmurHash.hash3_x64_128}, whose
 * tail bytes are sign-extended before they are shifted, so keys whose last {@code length % 16}
 * bytes include one >= 0x80 hash differently. Cassandra's tokens are persisted in that variant
 * and a ring that must agree with Cassandra has to reproduce it exactly.
 *
 * <p>Written out here rather than called through Guava because the routing hot path must not
 * allocate (Guava returns a {@code HashCode} object per call) and because Guava has no
 * Cassandra variant.
 */
final class Murmur3 {

  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;

  private Murmur3() {}

  static long canonical(byte[] key, int offset, int length) {
    return hash(key, offset, length, false);
  }

  static long cassandra(byte[] key, int offset, int length) {
    return hash(key, offset, length, true);
  }

  /** The canonical hash of the 8 big-endian bytes of {@code value}, without materializing them. */
  static long canonicalLong(long value) {
    // One 8-byte tail: its little-endian reading is the byte-reversed big-endian value.
    long k1 = mixK1(Long.reverseBytes(value));
    return finish(k1, 0, 8);
  }

  /** The Cassandra-variant hash of the 8 big-endian bytes of {@code value}. */
  static long cassandraLong(long value) {
    // Cassandra's tail loop XORs in byte i sign-extended: (long) b_i << 8i. That is the canonical
    // k1 (the little-endian reading) XOR, for each negative byte i < 7, all-ones in the bytes
    // above i. So byte j of the correction is 0xFF when an odd number of bytes below j are
    // negative: a prefix parity over bytes, without a loop or a branch. One multiply sums the
    // sign bits of all lower bytes into each byte (at most 7, so no carry crosses a byte) and the
    // parity is that sum's low bit: a shorter dependency chain than three shift-XOR steps, which
    // matters because this sits on every token-ring lookup.
    long k1 = Long.reverseBytes(value);
    long negative = (k1 >>> 7) & 0x0101010101010101L; // 1 in byte i when byte i is negative
    long parity = (negative * 0x0101010101010100L) & 0x0101010101010101L;
    k1 ^= (parity << 8) - parity;                     // 0x01 per byte -> 0xFF, no borrows
    return finish(mixK1(k1), 0, 8);
  }

  private static long hash(byte[] key, int offset, int length, boolean signExtendTail) {
    long h1 = 0;
    long h2 = 0;
    int blocks = length >>> 4;
    for (int i = 0; i < blocks; i++) {
      int at = offset + (i << 4);
      long k1 = littleEndianLong(key, at);
      long k2 = littleEndianLong(key, at + 8);

      h1 ^= mixK1(k1);
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + 0x52dce729;

      h2 ^= mixK2(k2);
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + 0x38495ab5;
    }

    int tail = offset + (blocks << 4);
    int rest = length & 15;
    long k1 = 0;
    long k2 = 0;
    for (int i = rest - 1; i >= 8; i--) {
      k2 ^= tailByte(key[tail + i], signExtendTail) << (8 * (i - 8));
    }
    for (int i = Math.min(rest, 8) - 1; i >= 0; i--) {
      k1 ^= tailByte(key[tail + i], signExtendTail) << (8 * i);
    }
    if (rest > 8) {
      h2 ^= mixK2(k2);
    }
    if (rest > 0) {
      h1 ^= mixK1(k1);
    }
    return finish(h1, h2, length);
  }

  /** Finalization for a key with no full block whose tail already went into h1/h2. */
  private static long finish(long h1, long h2, long length) {
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    return h1;
  }

  private static long tailByte(byte b, boolean signExtend) {
    return signExtend ? (long) b : (b & 0xffL);
  }

  private static long mixK1(long k1) {
    k1 *= C1;
    k1 = Long.rotateLeft(k1, 31);
    k1 *= C2;
    return k1;
  }

  private static long mixK2(long k2) {
    k2 *= C2;
    k2 = Long.rotateLeft(k2, 33);
    k2 *= C1;
    return k2;
  }

  private static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  private static long littleEndianLong(byte[] b, int at) {
    return (b[at] & 0xffL)
        | (b[at + 1] & 0xffL) << 8
        | (b[at + 2] & 0xffL) << 16
        | (b[at + 3] & 0xffL) << 24
        | (b[at + 4] & 0xffL) << 32
        | (b[at + 5] & 0xffL) << 40
        | (b[at + 6] & 0xffL) << 48
        | (b[at + 7] & 0xffL) << 56;
  }
}
