package io.partkit.stats;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Balance of measured load under one assignment: each partition's load counts on its primary,
 * which serves the partition's reads and writes (a backup only applies the writes, and a store
 * reports the load it measured at the primary). {@link PlacementStatistics} counts partitions and
 * key space; a partition that takes most of the traffic is invisible there and visible here.
 *
 * <p>Loads are weight-normalized as in {@link PlacementStatistics}: a node's normalized load is
 * its load over its weight, and "max/mean" is the largest normalized load over the total load per
 * unit of weight (1.0 is perfect). Members of the view that hold nothing count, with load 0.
 *
 * <p>The loads are applied to {@code assignment} by partition number, whatever epoch either
 * carries: a planner evaluates loads measured under the table in force against the table it
 * proposes. That the loads describe the same partitions is the caller's check
 * ({@link PartitionLoads#describes}); here only the partition counts must agree.
 */
public final class LoadStatistics {

  private final Map<NodeId, Double> loads;
  private final Map<NodeId, Integer> weights;
  private final double total;
  private final long totalWeight;

  private LoadStatistics(Map<NodeId, Double> loads, Map<NodeId, Integer> weights) {
    this.loads = Collections.unmodifiableMap(loads);
    this.weights = Collections.unmodifiableMap(weights);
    double sum = 0;
    for (double l : loads.values()) {
      sum += l;
    }
    long w = 0;
    for (int x : weights.values()) {
      w += x;
    }
    this.total = sum;
    this.totalWeight = w;
  }

  /**
   * Load per member of {@code view}, with its weight; a node the assignment places data on that
   * is not in the view (a failed node not yet replaced) counts with weight 1.
   *
   * @throws IllegalArgumentException if the loads are for another number of partitions
   */
  public static LoadStatistics of(PartitionAssignment assignment, PartitionLoads partitionLoads,
      MembershipView view) {
    requireNonNull(assignment, "assignment");
    requireNonNull(partitionLoads, "partitionLoads");
    requireNonNull(view, "view");
    if (partitionLoads.partitionCount() != assignment.partitionCount()) {
      throw new IllegalArgumentException("loads of " + partitionLoads.partitionCount()
          + " partitions cannot describe a table of " + assignment.partitionCount());
    }
    TreeMap<NodeId, Double> loads = new TreeMap<>();
    TreeMap<NodeId, Integer> weights = new TreeMap<>();
    for (Member m : view.members()) {
      loads.put(m.id(), 0.0);
      weights.put(m.id(), m.weight());
    }
    for (int p = 0; p < assignment.partitionCount(); p++) {
      NodeId primary = assignment.primary(p);
      weights.putIfAbsent(primary, 1);
      loads.merge(primary, partitionLoads.load(p), Double::sum);
    }
    return new LoadStatistics(loads, weights);
  }

  /** Load per node (primary-attributed, not normalized), in id order. */
  public Map<NodeId, Double> loads() {
    return loads;
  }

  /** Weight per node, in id order. */
  public Map<NodeId, Integer> weights() {
    return weights;
  }

  /** The sum of all partitions' loads. */
  public double total() {
    return total;
  }

  /** The total load per unit of weight: what every node would carry per unit if perfect. */
  public double meanPerWeight() {
    return totalWeight == 0 ? 0 : total / totalWeight;
  }

  /** The largest load per unit of weight of one node. */
  public double maxPerWeight() {
    double max = 0;
    for (Map.Entry<NodeId, Double> e : loads.entrySet()) {
      max = Math.max(max, e.getValue() / weights.get(e.getKey()));
    }
    return max;
  }

  /** {@link #maxPerWeight()} over {@link #meanPerWeight()}: 1.0 is perfect; 0 without load. */
  public double maxOverMean() {
    double mean = meanPerWeight();
    return mean == 0 ? 0 : maxPerWeight() / mean;
  }

  /** Standard deviation of per-weight loads relative to their mean (0 without load). */
  public double relativeStdDev() {
    double mean = meanPerWeight();
    if (mean == 0) {
      return 0;
    }
    double sum = 0;
    for (Map.Entry<NodeId, Double> e : loads.entrySet()) {
      double d = e.getValue() / weights.get(e.getKey()) - mean;
      sum += d * d;
    }
    return Math.sqrt(sum / loads.size()) / mean;
  }

  /** Equal when every node has the same load and weight. */
  @Override
  public boolean equals(Object o) {
    return o instanceof LoadStatistics other && loads.equals(other.loads)
        && weights.equals(other.weights);
  }

  @Override
  public int hashCode() {
    return loads.hashCode() * 31 + weights.hashCode();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "LoadStatistics{nodes=%d, total=%.4g, max/mean=%.4f, stddev=%.4f}", loads.size(), total,
        maxOverMean(), relativeStdDev());
  }
}
