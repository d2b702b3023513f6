package io.partkit.backend.hazelcast;

/**
 * MurmurHash3 x86_32 (Austin Appleby's public-domain reference, {@code MurmurHash3.cpp}):
 * 4-byte blocks read little-endian, tail bytes unsigned. Equal to Guava's
 * {@code Hashing.murmur3_32_fixed(seed)} and to Hazelcast's {@code HashUtil.MurmurHash3_x86_32}
 * (the tests check both). A copy of a dozen lines rather than a Guava dependency at run time.
 */
final class Murmur3x86 {

  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private Murmur3x86() {}

  static int hash32(byte[] data, int offset, int length, int seed) {
    int h1 = seed;
    int end = offset + (length & ~3);
    for (int i = offset; i < end; i += 4) {
      int k1 = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16
          | (data[i + 3] & 0xff) << 24;
      h1 ^= mixK1(k1);
      h1 = Integer.rotateLeft(h1, 13);
      h1 = h1 * 5 + 0xe6546b64;
    }
    int k1 = 0;
    switch (length & 3) {
      case 3:
        k1 ^= (data[end + 2] & 0xff) << 16;
        // fall through
      case 2:
        k1 ^= (data[end + 1] & 0xff) << 8;
        // fall through
      case 1:
        k1 ^= data[end] & 0xff;
        h1 ^= mixK1(k1);
        break;
      default:
        break;
    }
    h1 ^= length;
    h1 ^= h1 >>> 16;
    h1 *= 0x85ebca6b;
    h1 ^= h1 >>> 13;
    h1 *= 0xc2b2ae35;
    h1 ^= h1 >>> 16;
    return h1;
  }

  private static int mixK1(int k1) {
    k1 *= C1;
    k1 = Integer.rotateLeft(k1, 15);
    return k1 * C2;
  }
}
