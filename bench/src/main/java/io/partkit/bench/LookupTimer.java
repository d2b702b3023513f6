package io.partkit.bench;

import io.partkit.spi.hash.KeyHash;

/**
 * The in-process lookup harness used by the default report: a warm-up, then several timed rounds
 * over the same Zipf-skewed keys; the result is the median round. It is JMH's method reduced to
 * what a few seconds allow (no forks, so figures are indicative and profile pollution can add a
 * nanosecond or two to everyone); {@code LookupBenchmark} is the authoritative measurement. The
 * bare Murmur3 hash is timed with the same loop shape in rounds alternating with the subject's,
 * so a ratio compares figures taken at the same moment.
 */
final class LookupTimer {

  private static final int ROUNDS = 5;
  /** Written once per measurement so the JIT cannot drop the loop. */
  static volatile long sink;
  private static final Object SENTINEL = new Object();

  private LookupTimer() {}

  /**
   * Nanoseconds per lookup and per bare Murmur3 x64_128 hash of the same 8-byte keys, in
   * alternating rounds (hash, lookup, hash, lookup, ...) so that both see the same machine load;
   * each is the median of its rounds.
   *
   * @return {@code {lookup ns, bare hash ns}}
   */
  static double[] measure(Lookup lookup, long[] keys, long warmupNanos, long measureNanos) {
    runHashes(keys, warmupNanos / 2);
    runLookups(lookup, keys, warmupNanos);
    double[] lookups = new double[ROUNDS];
    double[] hashes = new double[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      hashes[r] = runHashes(keys, measureNanos / ROUNDS);
      lookups[r] = runLookups(lookup, keys, measureNanos / ROUNDS);
    }
    return new double[] {median(lookups), median(hashes)};
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

  private static double median(double[] values) {
    double[] v = values.clone();
    java.util.Arrays.sort(v);
    return v[v.length / 2];
  }
}
