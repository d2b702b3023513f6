package io.partkit.stats;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Balance of one assignment: per node, partitions and exact key-space share, and summaries.
 *
 * <p>Loads are weight-normalized: a node's load is what it holds divided by its weight, so a
 * weight-2 node holding twice as much as a weight-1 node is perfectly balanced. "max/avg" is the
 * largest normalized load over the weighted mean (1.0 is perfect; it is what the hottest node
 * pays); "stddev" is the standard deviation of normalized loads relative to their mean (the
 * coefficient of variation, comparable across cluster sizes). Nodes of the view that hold
 * nothing count, with load 0.
 */
public final class PlacementStatistics {

  private final List<NodeLoad> loads;
  private final int partitionCount;
  private final int replicationFactor;

  private PlacementStatistics(List<NodeLoad> loads, int partitionCount, int replicationFactor) {
    this.loads = Collections.unmodifiableList(loads);
    this.partitionCount = partitionCount;
    this.replicationFactor = replicationFactor;
  }

  /** Statistics over the nodes that appear in the assignment, all of weight 1. */
  public static PlacementStatistics of(PartitionAssignment assignment) {
    List<Member> members = new ArrayList<>();
    for (NodeId id : assignment.nodes()) {
      members.add(new Member(id, "", 1, "", ""));
    }
    return compute(assignment, members);
  }

  /**
   * Statistics over the members of {@code view}, with their weights.
   *
   * @throws IllegalArgumentException if the assignment places data on a node that is not a
   *     member of the view
   */
  public static PlacementStatistics of(PartitionAssignment assignment, MembershipView view) {
    requireNonNull(view, "view");
    for (NodeId id : assignment.nodes()) {
      if (!view.contains(id)) {
        throw new IllegalArgumentException(
            "assignment places data on " + id + ", which is not in the view " + view.ids());
      }
    }
    return compute(assignment, view.members());
  }

  private static PlacementStatistics compute(PartitionAssignment a, List<Member> members) {
    Map<NodeId, Integer> index = new HashMap<>();
    for (int i = 0; i < members.size(); i++) {
      index.put(members.get(i).id(), i);
    }
    int n = members.size();
    int[] primaryCount = new int[n];
    int[] replicaCount = new int[n];
    double[] primaryShare = new double[n];
    double[] replicaShare = new double[n];
    int rf = a.replicationFactor();
    for (int p = 0; p < a.partitionCount(); p++) {
      double share = a.scheme().share(p);
      for (int r = 0; r < rf; r++) {
        int i = index.get(a.replica(p, r));
        replicaCount[i]++;
        replicaShare[i] += share;
        if (r == 0) {
          primaryCount[i]++;
          primaryShare[i] += share;
        }
      }
    }
    List<NodeLoad> loads = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Member m = members.get(i);
      loads.add(new NodeLoad(m.id(), m.weight(), primaryCount[i], replicaCount[i],
          primaryShare[i], replicaShare[i]));
    }
    return new PlacementStatistics(loads, a.partitionCount(), rf);
  }

  /**
   * The best max/avg any placement of {@code partitions} equal partitions on {@code nodes}
   * equal nodes can reach: {@code ceil(P/N) / (P/N)}.
   */
  public static double bestMaxOverAvg(int partitions, int nodes) {
    if (partitions < 1 || nodes < 1) {
      throw new IllegalArgumentException(
          "partitions and nodes must be >= 1: " + partitions + ", " + nodes);
    }
    double avg = (double) partitions / nodes;
    return Math.ceil(avg) / avg;
  }

  /** Per node, in id order. */
  public List<NodeLoad> loads() {
    return loads;
  }

  /** Number of partitions of the assignment. */
  public int partitionCount() {
    return partitionCount;
  }

  /** Replicas per partition. */
  public int replicationFactor() {
    return replicationFactor;
  }

  /** Fewest primary partitions on one node. */
  public int minPrimaryPartitions() {
    return loads.stream().mapToInt(NodeLoad::primaryPartitions).min().orElse(0);
  }

  /** Most primary partitions on one node. */
  public int maxPrimaryPartitions() {
    return loads.stream().mapToInt(NodeLoad::primaryPartitions).max().orElse(0);
  }

  /** max/avg of weight-normalized primary partition counts. */
  public double primaryPartitionsMaxOverAvg() {
    return maxOverAvg(Measure.PRIMARY_PARTITIONS);
  }

  /** Relative standard deviation of weight-normalized primary partition counts. */
  public double primaryPartitionsStdDev() {
    return relativeStdDev(Measure.PRIMARY_PARTITIONS);
  }

  /** max/avg of weight-normalized replica partition counts. */
  public double replicaPartitionsMaxOverAvg() {
    return maxOverAvg(Measure.REPLICA_PARTITIONS);
  }

  /** max/avg of weight-normalized primary key-space shares: the hottest node's excess load. */
  public double primaryShareMaxOverAvg() {
    return maxOverAvg(Measure.PRIMARY_SHARE);
  }

  /** Relative standard deviation of weight-normalized primary key-space shares. */
  public double primaryShareStdDev() {
    return relativeStdDev(Measure.PRIMARY_SHARE);
  }

  /** max/avg of weight-normalized replica key-space shares (all copies). */
  public double replicaShareMaxOverAvg() {
    return maxOverAvg(Measure.REPLICA_SHARE);
  }

  /** Relative standard deviation of weight-normalized replica key-space shares. */
  public double replicaShareStdDev() {
    return relativeStdDev(Measure.REPLICA_SHARE);
  }

  private enum Measure {
    PRIMARY_PARTITIONS, REPLICA_PARTITIONS, PRIMARY_SHARE, REPLICA_SHARE;

    double of(NodeLoad l) {
      return switch (this) {
        case PRIMARY_PARTITIONS -> l.primaryPartitions();
        case REPLICA_PARTITIONS -> l.replicaPartitions();
        case PRIMARY_SHARE -> l.primaryShare();
        case REPLICA_SHARE -> l.replicaShare();
      };
    }
  }

  /** Weighted mean load per unit of weight. */
  private double meanPerWeight(Measure m) {
    double total = 0;
    long weight = 0;
    for (NodeLoad l : loads) {
      total += m.of(l);
      weight += l.weight();
    }
    return weight == 0 ? 0 : total / weight;
  }

  private double maxOverAvg(Measure m) {
    double mean = meanPerWeight(m);
    double max = 0;
    for (NodeLoad l : loads) {
      max = Math.max(max, m.of(l) / l.weight());
    }
    return mean == 0 ? 0 : max / mean;
  }

  private double relativeStdDev(Measure m) {
    double mean = meanPerWeight(m);
    if (mean == 0 || loads.isEmpty()) {
      return 0;
    }
    double sum = 0;
    for (NodeLoad l : loads) {
      double d = m.of(l) / l.weight() - mean;
      sum += d * d;
    }
    return Math.sqrt(sum / loads.size()) / mean;
  }

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT,
        "PlacementStatistics{nodes=%d, partitions=%d, rf=%d, partitions max/avg=%.4f, "
            + "key space max/avg=%.4f, key space stddev=%.4f}",
        loads.size(), partitionCount, replicationFactor, primaryPartitionsMaxOverAvg(),
        primaryShareMaxOverAvg(), primaryShareStdDev());
  }
}
