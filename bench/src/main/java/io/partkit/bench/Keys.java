package io.partkit.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Seeded keys. Balance and movement use a uniform sample of distinct 64-bit keys (a skewed sample
 * would measure the workload, not the placement); lookups use Zipf-skewed draws from a smaller
 * population, like real traffic where a few keys are hot.
 */
final class Keys {

  private Keys() {}

  /** {@code count} distinct uniformly random keys from {@code seed}. */
  static long[] sample(long seed, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("key count must be >= 1: " + count);
    }
    SplittableRandom random = new SplittableRandom(seed);
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = random.nextLong();
    }
    // duplicates among 64-bit random values are astronomically rare; replace any, deterministically
    long[] sorted = keys.clone();
    Arrays.sort(sorted);
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        return sample(seed + 1, count);
      }
    }
    return keys;
  }

  /**
   * {@code draws} keys drawn with Zipf exponent {@code exponent} over a population of
   * {@code population} distinct keys (rank 1 is the hottest), by inverse transform over the exact
   * cumulative distribution.
   */
  static long[] zipf(long seed, int population, int draws, double exponent) {
    long[] keys = sample(seed ^ 0x5DEECE66DL, population);
    int[] ranks = zipfRanks(seed, population, draws, exponent);
    long[] out = new long[draws];
    for (int i = 0; i < draws; i++) {
      out[i] = keys[ranks[i]];
    }
    return out;
  }

  /** As {@link #zipf}, the draws as ranks {@code 0..population-1} (0 is the hottest). */
  static int[] zipfRanks(long seed, int population, int draws, double exponent) {
    double[] cumulative = new double[population];
    double sum = 0;
    for (int rank = 1; rank <= population; rank++) {
      sum += 1 / Math.pow(rank, exponent);
      cumulative[rank - 1] = sum;
    }
    SplittableRandom random = new SplittableRandom(seed);
    int[] out = new int[draws];
    for (int i = 0; i < draws; i++) {
      int index = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
      out[i] = Math.min(population - 1, index < 0 ? -index - 1 : index);
    }
    return out;
  }
}
