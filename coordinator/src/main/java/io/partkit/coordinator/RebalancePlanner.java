package io.partkit.coordinator;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns (table in force, membership) into a {@link RebalancePlan}: pure, so the dry run and the
 * rebalance compute the same plan from the same state.
 *
 * <p>Migrations run in waves of at most K, each wave committing one epoch (Kafka's reassignment
 * throttling and Hazelcast's migration batches serve the same purpose: bound the data in flight
 * and the time a partition is fenced). Wave {@code w} targets epoch {@code E + 1 + w}; partitions
 * whose replicas change without a primary move commit with the first wave, unless the executor
 * moves whole replica lists (then they are migrations too, throttled the same way). When the
 * replication factor changes, tables cannot be mixed partition by partition, so all moves form
 * one wave towards {@code E + 1}. When the scheme changes by splitting partitions (a token-ring
 * join, a key range split by {@code RangeSplits}), the split is committed first, as metadata only
 * ({@link #splitTable}, epoch {@code E + 1}), and the waves run from it, in the new numbering,
 * from {@code E + 2} on.
 *
 * <p>With a {@link LoadSource}, the strategy's placement is adjusted by measured load
 * ({@link LoadBalancer}) before anything else: the adjusted table is then planned exactly like
 * a count-only one.
 *
 * <p>This is where a coordinated table's epoch is decided: the strategy's
 * {@link Partitioner#place} returns an unstamped table, and the plan stamps each table it
 * proposes or commits with the epoch above.
 */
final class RebalancePlanner {

  private final Partitioner partitioner;
  private final int maxConcurrent;
  private final boolean moveData;
  private final boolean wholeReplicaLists;
  /** Null when planning by counts only. */
  private final LoadSource loadSource;
  private final LoadBalancer balancer;

  RebalancePlanner(Partitioner partitioner, int maxConcurrent, boolean moveData) {
    this(partitioner, maxConcurrent, moveData, false);
  }

  /**
   * @param wholeReplicaLists whether the executor moves every replica: then each partition whose
   *     replica list changes (backups included) is a migration carrying both lists; otherwise
   *     only primary moves are, and backup changes commit with the first wave
   */
  RebalancePlanner(Partitioner partitioner, int maxConcurrent, boolean moveData,
      boolean wholeReplicaLists) {
    this(partitioner, maxConcurrent, moveData, wholeReplicaLists, null, 0, 1);
  }

  /**
   * As above, load-aware when {@code loadSource} is not null: every plan reads the loads of the
   * table in force and lets a {@link LoadBalancer} adjust the strategy's placement.
   *
   * @param maxLoadMoves most partitions one plan changes for load
   * @param loadThreshold max/mean at or below which load counts as balanced
   */
  RebalancePlanner(Partitioner partitioner, int maxConcurrent, boolean moveData,
      boolean wholeReplicaLists, LoadSource loadSource, int maxLoadMoves, double loadThreshold) {
    this.partitioner = partitioner;
    this.maxConcurrent = maxConcurrent;
    this.moveData = moveData;
    this.wholeReplicaLists = wholeReplicaLists;
    this.loadSource = loadSource;
    this.balancer = loadSource == null ? null
        : new LoadBalancer(partitioner, maxLoadMoves, loadThreshold);
  }

  /**
   * The plan for {@code view} over {@code current}. Load-aware, the adjusted placement takes the
   * strategy's place from here on: migrations, waves, epochs and figures are computed from it as
   * from any placement, so throttling and the dry run are the same.
   */
  RebalancePlan plan(Optional<PartitionAssignment> current, MembershipView view) {
    // The strategy places; the epochs are this planner's alone (waves, splits), stamped below.
    int replicas = partitioner.replicationFactor();
    PartitionAssignment raw = partitioner.place(view, current, replicas);
    Optional<LoadPlan> load = Optional.empty();
    if (loadSource != null) {
      LoadBalancer.Result adjusted = balanceLoad(current, raw, view, replicas);
      raw = adjusted.table();
      load = Optional.of(adjusted.plan());
    }
    if (current.isPresent() && current.get().samePlacementAs(raw)) {
      PartitionAssignment c = current.get();
      return new RebalancePlan(current, c, List.of(), Optional.of(Movement.between(c, c)),
          Optional.of(balance(c, view)), balance(c, view), load);
    }
    long base = current.map(PartitionAssignment::epoch).orElse(MetadataStore.NO_TABLE);
    List<Migration> migrations = new ArrayList<>();
    long finalEpoch = base + 1;
    if (current.isPresent() && moveData) {
      PartitionAssignment c = current.get();
      if (!c.scheme().equals(raw.scheme())) {
        // Split first, as metadata, then move: the migrations run from the split table, whose
        // scheme is the new one, so they are per new sub-range and throttled as usual.
        c = splitTable(c, raw);
        base = c.epoch();
      }
      boolean sameShape = c.scheme().equals(raw.scheme())
          && c.replicationFactor() == raw.replicationFactor();
      int moves = 0;
      for (int p = 0; p < raw.partitionCount(); p++) {
        long target = sameShape ? base + 1 + moves / maxConcurrent : base + 1;
        if (wholeReplicaLists && !c.replicas(p).equals(raw.replicas(p))) {
          migrations.add(new Migration(p, c.replicas(p), raw.replicas(p), target));
          moves++;
        } else if (!wholeReplicaLists && !c.primary(p).equals(raw.primary(p))) {
          migrations.add(new Migration(p, c.primary(p), raw.primary(p), target));
          moves++;
        }
      }
      if (sameShape && moves > 0) {
        finalEpoch = base + (moves + maxConcurrent - 1) / maxConcurrent;
      } else if (c != current.get()) {
        finalEpoch = c.samePlacementAs(raw) ? base : base + 1; // the split may be all it takes
      }
    }
    PartitionAssignment proposed = raw.withEpoch(finalEpoch);
    return new RebalancePlan(current, proposed, migrations,
        current.map(c -> Movement.between(c, proposed)), current.map(c -> balance(c, view)),
        balance(proposed, view), load);
  }

  /**
   * Reads the loads of the table in force and balances {@code raw} by them; whatever keeps
   * them from applying (no table yet, no loads, a failing source) gives {@code raw} back with
   * the reason.
   */
  private LoadBalancer.Result balanceLoad(Optional<PartitionAssignment> current,
      PartitionAssignment raw, MembershipView view, int replicas) {
    if (current.isEmpty()) {
      return new LoadBalancer.Result(raw,
          LoadPlan.ignored("no table in force yet, so no load measured; count-only plan"));
    }
    PartitionAssignment table = current.get();
    Optional<PartitionLoads> loads;
    try {
      loads = java.util.Objects.requireNonNull(loadSource.loads(table),
          "the load source returned null instead of Optional.empty()");
    } catch (RuntimeException e) {
      // a rebalance after a node failure must not depend on the metrics path
      return new LoadBalancer.Result(raw,
          LoadPlan.ignored("the load source failed (" + e + "); count-only plan"));
    }
    if (loads.isEmpty()) {
      return new LoadBalancer.Result(raw, LoadPlan.ignored("no loads measured under epoch "
          + table.epoch() + " yet; count-only plan"));
    }
    return balancer.balance(table, raw, loads.get(), view, replicas);
  }

  /**
   * Whether committing {@code proposed} over {@code current} needs a split first: the scheme
   * changes (the split table is then {@link #splitTable}).
   */
  static boolean needsSplit(PartitionAssignment current, PartitionAssignment proposed) {
    return !current.scheme().equals(proposed.scheme());
  }

  /**
   * The table that re-cuts {@code current} along {@code proposed}'s scheme without moving any
   * data, at {@code current.epoch() + 1}: each new partition keeps the replicas of the old
   * partition that contains it. Possible only when the new scheme refines the old one (every
   * new range lies inside one old range, as after a token-ring join, whose tokens are the old
   * ones plus the joiner's) with the same key hash and replication factor.
   *
   * @throws IllegalStateException naming what is supported when the change is not a refinement
   *     (ranges merged, as after a token-ring leave, or slots re-cut across their boundaries)
   */
  static PartitionAssignment splitTable(PartitionAssignment current,
      PartitionAssignment proposed) {
    PartitionScheme from = current.scheme();
    PartitionScheme to = proposed.scheme();
    String change = "strategy '" + proposed.strategy() + "' changed the partition scheme from "
        + from + " to " + to + "; with a migration executor the coordinator supports a scheme"
        + " change only when it splits partitions (every new range inside one old range, same"
        + " key hash, same replication factor, as a token-ring join does), not ";
    if (from.keyHash() != to.keyHash()) {
      throw new IllegalStateException(change + "a change of key hash");
    }
    if (current.replicationFactor() != proposed.replicationFactor()) {
      throw new IllegalStateException(change + "together with a change of replication factor");
    }
    if (from instanceof KeyRanges oldRanges && to instanceof KeyRanges newRanges) {
      return keyRangeSplitTable(current, proposed, oldRanges, newRanges, change);
    }
    List<long[]> old = new ArrayList<>(); // first, last, partition: in increasing order
    from.forEachRange((first, last, p) -> old.add(new long[] {first, last, p}));
    int[] parent = new int[to.partitionCount()];
    java.util.Arrays.fill(parent, -1);
    int[] at = {0};
    to.forEachRange((first, last, q) -> {
      while (old.get(at[0])[1] < first) {
        at[0]++; // the old ranges cover the line in order, so the one holding first is ahead
      }
      long[] o = old.get(at[0]);
      int p = (int) o[2];
      if (last > o[1] || parent[q] != -1 && parent[q] != p) {
        throw new IllegalStateException(change + "a merge or a re-cut: new partition " + q
            + " spans old partitions " + p + " and " + (last > o[1] ? old.get(at[0] + 1)[2]
            : parent[q]) + " (a token-ring leave merges ranges: remove such a node without a"
            + " migration executor, or use a strategy with a fixed partition count)");
      }
      parent[q] = p;
    });
    List<List<NodeId>> rows = new ArrayList<>(parent.length);
    for (int p : parent) {
      rows.add(current.replicas(p));
    }
    return PartitionAssignment.of(proposed.strategy(), current.epoch() + 1,
        proposed.membershipVersion(), to, rows);
  }

  /**
   * {@link #splitTable} between two key-range tables, decided on the split keys themselves (the
   * hash line of key ranges is a projection that cannot tell split keys sharing 8 bytes apart):
   * each new range takes the replicas of the old range holding its first key. A new range may
   * also cover several whole old ranges when they all have the same replicas: a merge of
   * {@code io.partkit.strategy.range.RangeSplits}, as metadata-only as a split, since every key
   * stays on the nodes it was on.
   */
  private static PartitionAssignment keyRangeSplitTable(PartitionAssignment current,
      PartitionAssignment proposed, KeyRanges from, KeyRanges to, String change) {
    List<List<NodeId>> rows = new ArrayList<>(to.partitionCount());
    for (int q = 0; q < to.partitionCount(); q++) {
      int first = from.partitionOfKey(to.lowerBound(q));
      byte[] end = to.upperBound(q);
      int last = from.partitionCount() - 1; // the last old range q overlaps
      if (end != null) {
        int r = from.partitionOfKey(end); // q ends before end: r overlaps q unless r starts at end
        last = java.util.Arrays.equals(from.lowerBound(r), end) ? r - 1 : r;
      }
      for (int p = first + 1; p <= last; p++) {
        if (!current.replicas(p).equals(current.replicas(first))) {
          throw new IllegalStateException(change + "a merge of ranges on different replicas:"
              + " new partition " + q + " spans old partitions " + first + " (on "
              + current.replicas(first) + ") and " + p + " (on " + current.replicas(p)
              + "); merge only ranges on the same replicas, or move one first");
        }
      }
      rows.add(current.replicas(first));
    }
    return PartitionAssignment.of(proposed.strategy(), current.epoch() + 1,
        proposed.membershipVersion(), to, rows);
  }

  /**
   * Balance over the view's members plus any node the table still places data on (a failed one).
   */
  static PlacementStatistics balance(PartitionAssignment table, MembershipView view) {
    TreeMap<NodeId, Member> all = new TreeMap<>();
    view.members().forEach(m -> all.put(m.id(), m));
    for (NodeId n : table.nodes()) {
      all.putIfAbsent(n, new Member(n, "", 1, "", ""));
    }
    return PlacementStatistics.of(table, MembershipView.of(view.version(), all.values()));
  }

  /**
   * The plan that joins again the replicas that lost acknowledged records ({@link
   * io.partkit.spi.MigrationExecutor.ReportsLostReplicas#lostReplicas}): each such partition
   * moves to its other replicas, in order, followed by the nodes that lost records, so that a
   * survivor leads and they rejoin as backups that catch up; when that is the row already (they
   * were its last backups), the survivors are rotated, as a migration must change the row to be
   * one. Waves of at most {@code maxConcurrent}, from {@code current}'s epoch + 1. Left out:
   * partitions with no other replica (no copy to catch up from) and a row of one survivor
   * leading the nodes that lost records (no other row to move to).
   */
  static RebalancePlan rejoin(PartitionAssignment current, Map<Integer, Set<NodeId>> lost,
      int maxConcurrent, MembershipView view) {
    List<List<NodeId>> rows = new ArrayList<>(current.replicaTable());
    List<Migration> migrations = new ArrayList<>();
    for (Map.Entry<Integer, Set<NodeId>> e : new TreeMap<>(lost).entrySet()) {
      int p = e.getKey();
      if (p >= current.partitionCount()) {
        continue;
      }
      List<NodeId> from = current.replicas(p);
      List<NodeId> to = new ArrayList<>(from);
      to.removeAll(e.getValue());
      if (to.isEmpty()) {
        continue;
      }
      if (to.equals(from.subList(0, to.size()))) {
        java.util.Collections.rotate(to, -1);
      }
      from.stream().filter(e.getValue()::contains).forEach(to::add);
      if (to.equals(from)) {
        continue; // the one survivor leads with them as its only backups: no other row to take
      }
      migrations.add(new Migration(p, from, to, current.epoch() + 1
          + migrations.size() / maxConcurrent));
      rows.set(p, List.copyOf(to));
    }
    long epoch = current.epoch() + (migrations.size() + maxConcurrent - 1) / maxConcurrent;
    PartitionAssignment proposed = PartitionAssignment.of(current.strategy(), epoch,
        current.membershipVersion(), current.scheme(), rows);
    return new RebalancePlan(Optional.of(current), proposed, migrations,
        Optional.of(Movement.between(current, proposed)), Optional.of(balance(current, view)),
        balance(proposed, view));
  }

  /** The waves of a plan: consecutive migrations with the same target epoch. */
  static List<List<Migration>> waves(List<Migration> migrations) {
    List<List<Migration>> waves = new ArrayList<>();
    long epoch = -1;
    for (Migration m : migrations) {
      if (m.targetEpoch() != epoch) {
        waves.add(new ArrayList<>());
        epoch = m.targetEpoch();
      }
      waves.get(waves.size() - 1).add(m);
    }
    return waves;
  }

  /**
   * The table committed after a wave: {@code current} with the completed migrations' partitions
   * (and, on the first wave, replica-only changes towards {@code proposed}) given their new
   * replicas, at {@code epoch}. When the replication factor changes nothing can be mixed: then
   * {@code proposed} is returned if every migration completed, else empty.
   */
  static Optional<PartitionAssignment> commitTable(
      PartitionAssignment current,
      List<PendingMigration> completed,
      boolean allCompleted,
      Optional<PartitionAssignment> proposed,
      long epoch) {
    return commitTable(current, completed, allCompleted, proposed, epoch, false);
  }

  /**
   * As above; with {@code wholeReplicaLists} every change of a replica list was a migration, so
   * only completed migrations change rows (a failed backup change must not commit either).
   */
  static Optional<PartitionAssignment> commitTable(
      PartitionAssignment current,
      List<PendingMigration> completed,
      boolean allCompleted,
      Optional<PartitionAssignment> proposed,
      long epoch,
      boolean wholeReplicaLists) {
    if (proposed.isPresent() && current.replicationFactor() != proposed.get().replicationFactor()) {
      return allCompleted ? Optional.of(proposed.get().withEpoch(epoch)) : Optional.empty();
    }
    List<List<NodeId>> rows = new ArrayList<>(current.replicaTable());
    BitSet moved = new BitSet();
    for (PendingMigration pm : completed) {
      int p = pm.migration().partition();
      if (pm.targetReplicas().size() != current.replicationFactor()) {
        return Optional.empty(); // recorded for a table of another shape
      }
      rows.set(p, pm.targetReplicas());
      moved.set(p);
    }
    if (proposed.isPresent() && !wholeReplicaLists) {
      PartitionAssignment prop = proposed.get();
      for (int p = 0; p < rows.size(); p++) {
        if (!moved.get(p) && current.primary(p).equals(prop.primary(p))) {
          rows.set(p, prop.replicas(p));
        }
      }
    }
    PartitionAssignment base = proposed.orElse(current);
    return Optional.of(PartitionAssignment.of(base.strategy(), epoch, base.membershipVersion(),
        current.scheme(), rows));
  }
}
