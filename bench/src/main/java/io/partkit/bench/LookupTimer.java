package io.partkit.bench;

import io.partkit.spi.hash.KeyHash;

/**
 * The in-process lookup harness used by the default report: a warm-up, then several timed rounds
 * over the same Zipf-skewed keys; every round is kept, so the report can show their spread. It
 * is JMH's method reduced to what a few seconds allow (no forks, so figures are indicative and
 * profile pollution can add a nanosecond or two to everyone); {@code LookupBenchmark} is the
 * authoritative measurement. The bare Murmur3 hash is timed with the same loop shape in rounds
 * alternating with the subject's, so a ratio compares figures taken at the same moment.
 */
final class LookupTimer {

  /** Written once per measurement so the JIT cannot drop the loop. */
  static volatile long sink;
  private static final Object SENTINEL = new Object();

  private LookupTimer() {}

  /**
   * Nanoseconds per operation of each round: {@code lookups[r]} and {@code hashes[r]} were timed
   * back to back (hash, then lookup), so {@code lookups[r] / hashes[r]} compares figures taken
   * at the same moment even when the machine's load changes between rounds.
   */
  record Rounds(double[] lookups, double[] hashes) {}

  /**
   * Times {@code rounds} rounds of lookups of the 8-byte keys, each right after a round of the
   * bare Murmur3 x64_128 hash of the same keys, after a warm-up of both.
   */
  static Rounds measure(Lookup lookup, long[] keys, long warmupNanos, long measureNanos,
      int rounds) {
    runHashes(keys, warmupNanos / 2);
    runLookups(lookup, keys, warmupNanos);
    double[] lookups = new double[rounds];
    double[] hashes = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      hashes[r] = runHashes(keys, measureNanos / rounds);
      lookups[r] = runLookups(lookup, keys, measureNanos / rounds);
    }
    return new Rounds(lookups, hashes);
  }

  private static double runLookups(Lookup lookup, long[] keys, long nanos) {
    long ops = 0;
    long hits = 0;
    long start = System.nanoTime();
    long end = start + nanos;
    long now;
    do {
      for (long key : keys) {
        if (lookup.primaryOf(key) == SENTINEL) {
          hits++;
        }
      }
      ops += keys.length;
      now = System.nanoTime();
    } while (now < end);
    sink = hits;
    return (double) (now - start) / ops;
  }

  private static double runHashes(long[] keys, long nanos) {
    long ops = 0;
    long acc = 0;
    long start = System.nanoTime();
    long end = start + nanos;
    long now;
    do {
      for (long key : keys) {
        acc += KeyHash.MURMUR3_128.hashLong(key);
      }
      ops += keys.length;
      now = System.nanoTime();
    } while (now < end);
    sink = acc;
    return (double) (now - start) / ops;
  }

  static double median(double[] values) {
    double[] v = values.clone();
    java.util.Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  static double min(double[] values) {
    return java.util.Arrays.stream(values).min().orElse(Double.NaN);
  }

  static double max(double[] values) {
    return java.util.Arrays.stream(values).max().orElse(Double.NaN);
  }
}
