package io.partkit.coordinator;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.RebalancePlan;
import io.partkit.spi.stats.Movement;
import io.partkit.spi.stats.PlacementStatistics;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Turns (table in force, membership) into a {@link RebalancePlan}: pure, so the dry run and the
 * rebalance compute the same plan from the same state.
 *
 * <p>Migrations run in waves of at most K, each wave committing one epoch (Kafka's reassignment
 * throttling and Hazelcast's migration batches serve the same purpose: bound the data in flight
 * and the time a partition is fenced). Wave {@code w} targets epoch {@code E + 1 + w}; partitions
 * whose replicas change without a primary move commit with the first wave, unless the executor
 * moves whole replica lists (then they are migrations too, throttled the same way). When the partition
 * scheme or the replication factor changes, tables cannot be mixed partition by partition, so all
 * moves form one wave towards {@code E + 1}.
 */
final class RebalancePlanner {

  private final Partitioner partitioner;
  private final int maxConcurrent;
  private final boolean moveData;
  private final boolean wholeReplicaLists;

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
    this.partitioner = partitioner;
    this.maxConcurrent = maxConcurrent;
    this.moveData = moveData;
    this.wholeReplicaLists = wholeReplicaLists;
  }

  RebalancePlan plan(Optional<PartitionAssignment> current, MembershipView view) {
    PartitionAssignment raw = partitioner.assign(view, current);
    if (current.isPresent() && current.get().samePlacementAs(raw)) {
      PartitionAssignment c = current.get();
      return new RebalancePlan(current, c, List.of(), Optional.of(Movement.between(c, c)),
          Optional.of(balance(c, view)), balance(c, view));
    }
    long base = current.map(PartitionAssignment::epoch).orElse(MetadataStore.NO_TABLE);
    List<Migration> migrations = new ArrayList<>();
    long finalEpoch = base + 1;
    if (current.isPresent() && moveData) {
      PartitionAssignment c = current.get();
      boolean sameShape = c.scheme().equals(raw.scheme())
          && c.replicationFactor() == raw.replicationFactor();
      if (!c.scheme().equals(raw.scheme())) {
        throw new IllegalStateException("strategy '" + raw.strategy() + "' changed the partition"
            + " scheme from " + c.scheme() + " to " + raw.scheme() + "; the coordinator moves data"
            + " partition by partition and needs a fixed scheme (a strategy with a fixed partition"
            + " count, or a coordinator without a migration executor)");
      }
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
      }
    }
    PartitionAssignment proposed = raw.withEpoch(finalEpoch);
    return new RebalancePlan(current, proposed, migrations,
        current.map(c -> Movement.between(c, proposed)), current.map(c -> balance(c, view)),
        balance(proposed, view));
  }

  /** Balance over the view's members plus any node the table still places data on (a failed one). */
  static PlacementStatistics balance(PartitionAssignment table, MembershipView view) {
    TreeMap<NodeId, Member> all = new TreeMap<>();
    view.members().forEach(m -> all.put(m.id(), m));
    for (NodeId n : table.nodes()) {
      all.putIfAbsent(n, new Member(n, "", 1, "", ""));
    }
    return PlacementStatistics.of(table, MembershipView.of(view.version(), all.values()));
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
  static Optional<PartitionAssignment> commitTable(PartitionAssignment current,
      List<PendingMigration> completed, boolean allCompleted, Optional<PartitionAssignment> proposed,
      long epoch) {
    return commitTable(current, completed, allCompleted, proposed, epoch, false);
  }

  /**
   * As above; with {@code wholeReplicaLists} every change of a replica list was a migration, so
   * only completed migrations change rows (a failed backup change must not commit either).
   */
  static Optional<PartitionAssignment> commitTable(PartitionAssignment current,
      List<PendingMigration> completed, boolean allCompleted, Optional<PartitionAssignment> proposed,
      long epoch, boolean wholeReplicaLists) {
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
