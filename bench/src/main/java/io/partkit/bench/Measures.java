package io.partkit.bench;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.util.List;
import java.util.Optional;

/**
 * Balance and movement of placements, exact where both sides are partkit assignments over hash
 * ranges ({@link PlacementStatistics}, {@link Movement}), otherwise over a key sample pushed
 * through the subject's real key -> partition function. The sampled figures use the same
 * definitions as the exact ones (weight-normalized loads, max/avg, relative standard deviation),
 * so both kinds sit in one table.
 */
final class Measures {

  private Measures() {}

  /** Balance of one placement. */
  record Balance(String method, int partitions, double partitionsMaxAvg, double partitionsStdDev,
      double keysMaxAvg, double keysStdDev, double replicaKeysMaxAvg, double replicaKeysStdDev) {}

  /** Movement caused by one membership change. */
  record Move(String method, double moved, double optimal, double movedBetweenStaying,
      double replicaMoved) {}

  static Balance balance(Placement placement, long[] sample) {
    Optional<PartitionAssignment> exact = placement.exact();
    if (exact.isPresent()) {
      PlacementStatistics s = PlacementStatistics.of(exact.get(), placement.view());
      return new Balance("exact", placement.partitionCount(), s.primaryPartitionsMaxOverAvg(),
          s.primaryPartitionsStdDev(), s.primaryShareMaxOverAvg(), s.primaryShareStdDev(),
          s.replicaShareMaxOverAvg(), s.replicaShareStdDev());
    }
    MembershipView view = placement.view();
    int n = view.size();
    int rf = placement.replicationFactor();
    int partitions = placement.partitionCount();
    double[] primaryPartitions = new double[n];
    for (int p = 0; p < partitions; p++) {
      primaryPartitions[placement.replica(p, 0)]++;
    }
    long[] perPartition = new long[partitions];
    for (int p : placement.partitionsOf(sample)) {
      perPartition[p]++;
    }
    double[] primaryShare = new double[n];
    double[] replicaShare = new double[n];
    for (int p = 0; p < partitions; p++) {
      if (perPartition[p] == 0) {
        continue;
      }
      double share = (double) perPartition[p] / sample.length;
      primaryShare[placement.replica(p, 0)] += share;
      for (int r = 0; r < rf; r++) {
        replicaShare[placement.replica(p, r)] += share;
      }
    }
    double[] weights = new double[n];
    for (int i = 0; i < n; i++) {
      weights[i] = view.member(i).weight();
    }
    return new Balance("sampled " + sampleLabel(sample.length), partitions,
        maxOverAvg(primaryPartitions, weights), relativeStdDev(primaryPartitions, weights),
        maxOverAvg(primaryShare, weights), relativeStdDev(primaryShare, weights),
        maxOverAvg(replicaShare, weights), relativeStdDev(replicaShare, weights));
  }

  static Move movement(Placement before, Placement after, long[] sample) {
    Optional<PartitionAssignment> a = before.exact();
    Optional<PartitionAssignment> b = after.exact();
    if (a.isPresent() && b.isPresent()) {
      Movement m = Movement.between(a.get(), before.view(), b.get(), after.view());
      return new Move("exact", m.primaryMovedShare(), m.optimalShare(),
          m.primaryMovedBetweenStayingShare(), m.replicaMovedShare());
    }
    MembershipView va = before.view();
    MembershipView vb = after.view();
    int[] afterToBefore = new int[vb.size()];
    boolean[] stays = new boolean[va.size()];
    for (int i = 0; i < vb.size(); i++) {
      afterToBefore[i] = va.indexOf(vb.member(i).id());
      if (afterToBefore[i] >= 0) {
        stays[afterToBefore[i]] = true;
      }
    }
    int[] pa = before.partitionsOf(sample);
    pa = pa.clone(); // a cached array may be replaced by the next call
    int[] pb = after.partitionsOf(sample);
    int rfA = before.replicationFactor();
    int rfB = after.replicationFactor();
    long moved = 0;
    long churn = 0;
    long newCopies = 0;
    for (int k = 0; k < sample.length; k++) {
      int oldPrimary = before.replica(pa[k], 0);
      int newPrimary = afterToBefore[after.replica(pb[k], 0)];
      if (oldPrimary != newPrimary) {
        moved++;
        if (newPrimary >= 0 && stays[oldPrimary]) {
          churn++;
        }
      }
      for (int r = 0; r < rfB; r++) {
        int node = afterToBefore[after.replica(pb[k], r)];
        boolean had = false;
        for (int q = 0; q < rfA && !had; q++) {
          had = before.replica(pa[k], q) == node;
        }
        if (!had) {
          newCopies++;
        }
      }
    }
    double n = sample.length;
    return new Move("sampled " + sampleLabel(sample.length), moved / n, optimal(va, vb),
        churn / n, newCopies / (n * rfB));
  }

  /** The least share any placement must move: joiners' weight share plus leavers' weight share. */
  static double optimal(MembershipView before, MembershipView after) {
    double joined = share(after.members(), before);
    double left = share(before.members(), after);
    return Math.min(1.0, joined + left);
  }

  /** Weight share of the members of {@code members} that are not in {@code other}. */
  private static double share(List<Member> members, MembershipView other) {
    long total = 0;
    long absent = 0;
    for (Member m : members) {
      total += m.weight();
      if (!other.contains(m.id())) {
        absent += m.weight();
      }
    }
    return total == 0 ? 0 : (double) absent / total;
  }

  static String sampleLabel(int keys) {
    return keys % 1_000_000 == 0 ? keys / 1_000_000 + "M keys"
        : keys % 1000 == 0 ? keys / 1000 + "k keys" : keys + " keys";
  }

  private static double meanPerWeight(double[] load, double[] weight) {
    double total = 0;
    double w = 0;
    for (int i = 0; i < load.length; i++) {
      total += load[i];
      w += weight[i];
    }
    return w == 0 ? 0 : total / w;
  }

  static double maxOverAvg(double[] load, double[] weight) {
    double mean = meanPerWeight(load, weight);
    double max = 0;
    for (int i = 0; i < load.length; i++) {
      max = Math.max(max, load[i] / weight[i]);
    }
    return mean == 0 ? 0 : max / mean;
  }

  static double relativeStdDev(double[] load, double[] weight) {
    double mean = meanPerWeight(load, weight);
    if (mean == 0) {
      return 0;
    }
    double sum = 0;
    for (int i = 0; i < load.length; i++) {
      double d = load[i] / weight[i] - mean;
      sum += d * d;
    }
    return Math.sqrt(sum / load.length) / mean;
  }
}
