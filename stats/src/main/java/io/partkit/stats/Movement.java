package io.partkit.stats;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How much data a change from one assignment to another moves, computed exactly over the hash
 * line: the two schemes' ranges are merged, and each piece of key space is compared under both
 * tables. Works across strategies and partition counts.
 *
 * <p>A {@link io.partkit.spi.KeyRanges} table puts keys on the line in their own byte order
 * ({@link KeyHash#ORDERED_PREFIX}), a hashing table by their hash: between one of each, a point
 * of one line is not the same keys as that point of the other, so comparing range by range would
 * be meaningless. A key's hash is independent of where it falls in byte order, so the figures are
 * then the expectations that follow from each node's shares alone: a key keeps its primary with
 * probability {@code sum(a_n * b_n)} over nodes {@code n}, where {@code a_n} and {@code b_n} are
 * n's primary shares before and after, and a copy on {@code n} is new with probability
 * {@code 1 - holdBefore_n}, weighted by {@code holdAfter_n} (for keys whose first 8 bytes are
 * uniformly random, as every range share assumes). Two hashing schemes are compared on the line
 * even when their hashes differ: partkit's two Murmur3 variants agree on most keys.
 *
 * <p>The optimum is the least any placement could move for the same membership change: the
 * share the joining nodes must take ({@code 1/(n+1)} for one equal node joining n) plus the share
 * the leaving nodes held ({@code 1/n} for one of n leaving), by weight when views are given.
 *
 * @param primaryMovedShare fraction of the key space whose primary changed
 * @param replicaMovedShare fraction of all replica copies that are new (must be copied in)
 * @param primaryMovedBetweenStayingShare fraction of the key space whose primary moved from a node
 *     that stayed to another node that was already there: pure churn, 0 for a minimal strategy
 * @param replicaCopiesToStayingShare fraction of all replica copies that are new copies on nodes
 *     that were already there (on a leave some are needed to restore the replication factor)
 * @param optimalShare the least primary share any placement must move for this membership change
 * @param joined nodes in {@code after} but not in {@code before}
 * @param left nodes in {@code before} but not in {@code after}
 */
public record Movement(double primaryMovedShare, double replicaMovedShare,
    double primaryMovedBetweenStayingShare, double replicaCopiesToStayingShare,
    double optimalShare, Set<NodeId> joined, Set<NodeId> left) {

  /** Canonical constructor: copies the node sets. */
  public Movement {
    joined = Set.copyOf(joined);
    left = Set.copyOf(left);
  }

  /**
   * Movement between two assignments, membership taken from the nodes each assignment uses, all
   * of weight 1.
   */
  public static Movement between(PartitionAssignment before, PartitionAssignment after) {
    return compute(before, after, weightOne(before.nodes()), weightOne(after.nodes()));
  }

  /**
   * Movement between two assignments of the given views; the optimum uses the members' weights
   * and members that hold nothing still count as staying or leaving.
   */
  public static Movement between(PartitionAssignment before, MembershipView beforeView,
      PartitionAssignment after, MembershipView afterView) {
    return compute(before, after, beforeView.members(), afterView.members());
  }

  /** Moved primary share over the optimum: 1.0 is minimal; {@code NaN} when nothing had to move. */
  public double primaryMovedOverOptimal() {
    return optimalShare == 0 ? Double.NaN : primaryMovedShare / optimalShare;
  }

  private static List<Member> weightOne(List<NodeId> ids) {
    List<Member> list = new ArrayList<>(ids.size());
    ids.forEach(id -> list.add(new Member(id, "", 1, "", "")));
    return list;
  }

  private static Movement compute(PartitionAssignment before, PartitionAssignment after,
      List<Member> beforeMembers, List<Member> afterMembers) {
    requireNonNull(before, "before");
    requireNonNull(after, "after");
    Set<NodeId> beforeIds = new HashSet<>();
    beforeMembers.forEach(m -> beforeIds.add(m.id()));
    Set<NodeId> afterIds = new HashSet<>();
    afterMembers.forEach(m -> afterIds.add(m.id()));
    Set<NodeId> joined = new TreeSet<>(afterIds);
    joined.removeAll(beforeIds);
    Set<NodeId> left = new TreeSet<>(beforeIds);
    left.removeAll(afterIds);

    if ((before.scheme().keyHash() == KeyHash.ORDERED_PREFIX)
        != (after.scheme().keyHash() == KeyHash.ORDERED_PREFIX)) {
      return independent(before, after, beforeMembers, afterMembers, beforeIds, afterIds, joined,
          left);
    }
    Ranges a = Ranges.of(before.scheme());
    Ranges b = Ranges.of(after.scheme());
    double primaryMoved = 0;
    double replicaMoved = 0;
    double churn = 0;
    double copiesToStaying = 0;
    int i = 0;
    int j = 0;
    long start = Long.MIN_VALUE;
    int rfAfter = after.replicationFactor();
    List<NodeId> oldReplicas;
    while (true) {
      long end = Math.min(a.last[i], b.last[j]);
      double width = unsignedWidth(start, end);
      int pa = a.partition[i];
      int pb = b.partition[j];
      NodeId oldPrimary = before.primary(pa);
      NodeId newPrimary = after.primary(pb);
      if (!oldPrimary.equals(newPrimary)) {
        primaryMoved += width;
        if (afterIds.contains(oldPrimary) && beforeIds.contains(newPrimary)) {
          churn += width;
        }
      }
      oldReplicas = before.replicas(pa);
      for (NodeId n : after.replicas(pb)) {
        if (!oldReplicas.contains(n)) {
          replicaMoved += width;
          if (beforeIds.contains(n)) {
            copiesToStaying += width;
          }
        }
      }
      if (end == Long.MAX_VALUE) {
        break;
      }
      start = end + 1;
      if (a.last[i] == end) {
        i++;
      }
      if (b.last[j] == end) {
        j++;
      }
    }
    double line = 0x1p64;
    double optimal = weightShare(afterMembers, joined) + weightShare(beforeMembers, left);
    return new Movement(primaryMoved / line, replicaMoved / (line * rfAfter), churn / line,
        copiesToStaying / (line * rfAfter), Math.min(1.0, optimal), joined, left);
  }

  /** Movement between a range table and a hash table: see the class comment. */
  private static Movement independent(PartitionAssignment before, PartitionAssignment after,
      List<Member> beforeMembers, List<Member> afterMembers, Set<NodeId> beforeIds,
      Set<NodeId> afterIds, Set<NodeId> joined, Set<NodeId> left) {
    Map<NodeId, Double> primaryBefore = new HashMap<>();
    Map<NodeId, Double> holdBefore = new HashMap<>();
    shares(before, primaryBefore, holdBefore);
    Map<NodeId, Double> primaryAfter = new HashMap<>();
    Map<NodeId, Double> holdAfter = new HashMap<>();
    shares(after, primaryAfter, holdAfter);
    double kept = 0;
    double oldFromStaying = 0; // share of keys whose old primary stayed
    double newFromOld = 0; // share of keys whose new primary was there before
    double keptAmongBoth = 0; // same primary, a node both before and after
    for (Map.Entry<NodeId, Double> e : primaryBefore.entrySet()) {
      double b = primaryAfter.getOrDefault(e.getKey(), 0.0);
      kept += e.getValue() * b;
      if (afterIds.contains(e.getKey())) {
        oldFromStaying += e.getValue();
        if (beforeIds.contains(e.getKey())) {
          keptAmongBoth += e.getValue() * b;
        }
      }
    }
    for (Map.Entry<NodeId, Double> e : primaryAfter.entrySet()) {
      if (beforeIds.contains(e.getKey())) {
        newFromOld += e.getValue();
      }
    }
    double newCopies = 0;
    double newCopiesToStaying = 0;
    for (Map.Entry<NodeId, Double> e : holdAfter.entrySet()) {
      double fresh = e.getValue() * (1.0 - holdBefore.getOrDefault(e.getKey(), 0.0));
      newCopies += fresh;
      if (beforeIds.contains(e.getKey())) {
        newCopiesToStaying += fresh;
      }
    }
    int rfAfter = after.replicationFactor();
    double optimal = weightShare(afterMembers, joined) + weightShare(beforeMembers, left);
    return new Movement(clamp(1.0 - kept), clamp(newCopies / rfAfter),
        clamp(oldFromStaying * newFromOld - keptAmongBoth), clamp(newCopiesToStaying / rfAfter),
        Math.min(1.0, optimal), joined, left);
  }

  /** Each node's primary share and the share of keys it holds a copy of. */
  private static void shares(PartitionAssignment t, Map<NodeId, Double> primary,
      Map<NodeId, Double> hold) {
    for (int p = 0; p < t.partitionCount(); p++) {
      double share = t.scheme().share(p);
      primary.merge(t.primary(p), share, Double::sum);
      for (NodeId n : t.replicas(p)) {
        hold.merge(n, share, Double::sum);
      }
    }
  }

  /** Rounding may leave a figure a hair outside [0, 1]. */
  private static double clamp(double v) {
    return Math.max(0.0, Math.min(1.0, v));
  }

  private static double weightShare(List<Member> members, Set<NodeId> subset) {
    long total = 0;
    long part = 0;
    for (Member m : members) {
      total += m.weight();
      if (subset.contains(m.id())) {
        part += m.weight();
      }
    }
    return total == 0 ? 0 : (double) part / total;
  }

  /** Number of hashes in [start, end], as a double (2^64 for the whole line). */
  private static double unsignedWidth(long start, long end) {
    long d = end - start; // unsigned difference, exact
    double w = (double) (d >>> 1) * 2.0 + (d & 1);
    return w + 1.0;
  }

  /** A scheme's ranges as parallel arrays, in increasing order. */
  private static final class Ranges {
    final long[] last;
    final int[] partition;

    private Ranges(long[] last, int[] partition) {
      this.last = last;
      this.partition = partition;
    }

    static Ranges of(PartitionScheme scheme) {
      List<long[]> list = new ArrayList<>(scheme.partitionCount() + 1);
      scheme.forEachRange((first, last, p) -> list.add(new long[] {last, p}));
      long[] last = new long[list.size()];
      int[] partition = new int[list.size()];
      for (int k = 0; k < list.size(); k++) {
        last[k] = list.get(k)[0];
        partition[k] = (int) list.get(k)[1];
      }
      return new Ranges(last, partition);
    }
  }
}
