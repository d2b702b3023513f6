package io.partkit.replica.node;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The load of each partition from two samples of the control's load view ({@link
 * io.partkit.replica.Control#served}): the requests a second its primaries answered between
 * them. Pure.
 */
final class LoadRates {

  private LoadRates() {}

  /** The control's load view at one moment of the monotonic clock. */
  record Sample(long atNanos, SortedMap<Integer, SortedMap<Integer, Long>> served) {}

  /**
   * Requests a second of partitions {@code 0..partitions-1} between {@code before} and {@code
   * after}, summed over the nodes that served each as primary. A node whose count went down
   * restarted within the window: its count is all since. A node a sample before did not report
   * for a partition counts nothing in this window (its count may hold requests from before it):
   * a new primary's load shows from the next window on, never as more than it was.
   *
   * @throws IllegalArgumentException when {@code after} is not later than {@code before}
   */
  static double[] between(Sample before, Sample after, int partitions) {
    double[] rates = new double[partitions];
    byPartition(before, after).forEach((partition, rate) -> {
      if (partition >= 0 && partition < partitions) {
        rates[partition] = rate;
      }
    });
    return rates;
  }

  /**
   * As {@link #between}, for every partition {@code after} reports, by its number: a core's
   * numbers grow sparse with splits ({@code p + m}), which an array indexed by them would not.
   *
   * @throws IllegalArgumentException when {@code after} is not later than {@code before}
   */
  static SortedMap<Integer, Double> byPartition(Sample before, Sample after) {
    long nanos = after.atNanos() - before.atNanos();
    if (nanos <= 0) {
      throw new IllegalArgumentException("a load sample at " + after.atNanos()
          + " ns is not after the one at " + before.atNanos() + " ns");
    }
    double seconds = nanos / 1e9;
    SortedMap<Integer, Double> rates = new TreeMap<>();
    after.served().forEach((partition, byNode) -> {
      SortedMap<Integer, Long> was = before.served().get(partition);
      long sum = 0;
      for (Map.Entry<Integer, Long> e : byNode.entrySet()) {
        Long earlier = was == null ? null : was.get(e.getKey());
        if (earlier != null) {
          sum += e.getValue() < earlier ? e.getValue() : e.getValue() - earlier;
        }
      }
      rates.put(partition, sum / seconds);
    });
    return rates;
  }
}
