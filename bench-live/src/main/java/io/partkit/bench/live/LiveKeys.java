package io.partkit.bench.live;

/**
 * The keys of a live run: the {@code i}-th key is {@code i} passed through a bijective 64-bit
 * mix (SplitMix64's finalizer), so that the keys are distinct and spread over the whole key space.
 * Hashing placements do not care; key ranges do: the counters {@code 0..n-1} as 8-byte keys share
 * their first bytes and would all fall in the first of ranges cut evenly over the key space.
 */
final class LiveKeys {

  private LiveKeys() {}

  static long key(long index) {
    long z = index + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
