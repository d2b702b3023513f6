package io.partkit.test.support;

import java.util.Arrays;

/**
 * Nanosecond figures a benchmark collects from many threads (latencies, or timestamps of events),
 * and what its report prints of them: percentiles, the maximum, the longest gap between two.
 */
public final class LatencySamples {

  private long[] values = new long[1 << 16];
  private int size;

  /** Adds one figure. */
  public synchronized void add(long nanos) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = nanos;
  }

  /** Every figure added so far, in increasing order. */
  public synchronized long[] sorted() {
    long[] sorted = Arrays.copyOf(values, size);
    Arrays.sort(sorted);
    return sorted;
  }

  /** Count, p50, p99 and maximum in milliseconds, or "no operations". */
  public String summary() {
    long[] sorted = sorted();
    if (sorted.length == 0) {
      return "no operations";
    }
    return String.format("%7d ops  p50 %7.3f ms  p99 %8.3f ms  max %8.3f ms", sorted.length,
        at(sorted, 0.50) / 1e6, at(sorted, 0.99) / 1e6, sorted[sorted.length - 1] / 1e6);
  }

  /** The longest gap between two consecutive figures (timestamps); 0 with fewer than two. */
  public long longestGap() {
    long[] sorted = sorted();
    long gap = 0;
    for (int i = 1; i < sorted.length; i++) {
      gap = Math.max(gap, sorted[i] - sorted[i - 1]);
    }
    return gap;
  }

  /** The {@code q} quantile of {@code sorted} (not empty), as the nearest rank. */
  public static long at(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  /** The integer value of the argument {@code name=value} among {@code args}, or the default. */
  public static int arg(String[] args, String name, int defaultValue) {
    for (String a : args) {
      if (a.startsWith(name + "=")) {
        return Integer.parseInt(a.substring(name.length() + 1));
      }
    }
    return defaultValue;
  }
}
