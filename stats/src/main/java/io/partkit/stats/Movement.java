package io.partkit.stats;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * How much data a change from one assignment to another moves, computed exactly over the hash
 * line: the two schemes' ranges are merged, and each piece of key space is compared under both
 * tables. Works across strategies and partition counts.
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
