package io.partkit.kvstore.migration;

import static java.util.Objects.requireNonNull;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a reconcile does to bring the nodes in line with a committed table, decided from the
 * table, the nodes' listings and the moves in flight alone: no node is asked anything here, so
 * every decision is unit-tested without sockets. {@link ReconcileRun} carries the actions out, in
 * their order: the targets first (a source is dropped only after its target serves), then the
 * sources, then the copies the table left behind.
 *
 * <p>Two decisions depend on what happens while the actions run, and are carried by the
 * actions as conditions instead: an {@link Kind#UNFENCE} is skipped when an ACTIVATE or ABORT of
 * the same partition and epoch failed before it (a node may still take that partition in), a
 * {@link Kind#DROP_SOURCE} drops only once the owner answers that it serves, and a
 * {@link Kind#DROP_STALE} is skipped when a migration of the partition runs here by then.
 *
 * @param actions the node operations, in the order to issue them
 * @param problems what is known already to keep the nodes out of line with the table
 */
record ReconcilePlan(List<Action> actions, List<String> problems) {

  /** A node operation of a reconcile. */
  enum Kind {
    /** ACTIVATE a committed target that has the data (RECEIVED). */
    ACTIVATE,
    /** ABORT a copy the table does not commit. */
    ABORT,
    /** UNFENCE a source whose move the table did not commit (unless a copy failed to settle). */
    UNFENCE,
    /** DROP a source whose move the table committed, once its owner serves. */
    DROP_SOURCE,
    /** DROP a replica the table's row no longer names (unless a migration of it runs here). */
    DROP_STALE
  }

  /**
   * One node operation.
   *
   * @param node the node it goes to
   * @param epoch the epoch it is sent at
   * @param other for ACTIVATE, the source fenced at that epoch (null if none was listed); for
   *     DROP_SOURCE, the owner that must serve first; null otherwise
   */
  record Action(Kind kind, NodeId node, int partition, long epoch, NodeId other) {
    Action {
      requireNonNull(kind, "kind");
      requireNonNull(node, "node");
    }

    /** The move this action belongs to: the partition at the epoch. */
    String move() {
      return key(partition, epoch);
    }

    @Override
    public String toString() {
      return kind + " " + partition + "@" + epoch + " on " + node
          + (other == null ? "" : " (" + other + ")");
    }
  }

  ReconcilePlan {
    actions = List.copyOf(actions);
    problems = List.copyOf(problems);
  }

  /**
   * The plan for one round.
   *
   * @param table the committed table
   * @param held what each node that answered lists (partition, state, epoch)
   * @param everyoneAnswered whether every node asked answered (a source is unfenced only then:
   *     a node not seen may take the partition in)
   * @param inFlight the moves ({@link #key}) of the migrations running or copied here, which
   *     the reconcile leaves alone
   */
  static ReconcilePlan of(PartitionAssignment table, Map<NodeId, List<PartitionStatus>> held,
      boolean everyoneAnswered, Set<String> inFlight) {
    long epoch = table.epoch();
    List<Action> actions = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Map<String, NodeId> sources = new HashMap<>();
    held.forEach((node, list) -> list.stream()
        .filter(s -> s.state() == PartitionState.MIGRATING_OUT)
        .forEach(s -> sources.put(key(s.partition(), s.epoch()), node)));
    // targets first: a source is dropped only after its target serves
    for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
      NodeId node = e.getKey();
      for (PartitionStatus s : e.getValue()) {
        boolean incoming = s.state() == PartitionState.RECEIVING
            || s.state() == PartitionState.RECEIVED;
        if (!incoming || s.partition() >= table.partitionCount()) {
          continue;
        }
        if (inFlight.contains(key(s.partition(), s.epoch()))) {
          continue; // and so is its source, below
        }
        boolean committedHere = s.epoch() <= epoch && table.primary(s.partition()).equals(node);
        if (committedHere && s.state() == PartitionState.RECEIVING) {
          // The table commits this node as the owner, which happens only after its copy was
          // acknowledged (RECEIVED): the listing is older than the commit. Aborting here would
          // throw away the committed owner's data and leave the partition with no owner that
          // serves it; the next round activates it. (Its source is not unfenced: the table
          // commits the move, so the source is dropped once this node serves.)
          problems.add(node + " still receives partition " + s.partition());
          continue;
        }
        boolean committed = committedHere && s.state() == PartitionState.RECEIVED;
        actions.add(committed
            ? new Action(Kind.ACTIVATE, node, s.partition(), s.epoch(),
                sources.get(key(s.partition(), s.epoch())))
            : new Action(Kind.ABORT, node, s.partition(), s.epoch(), null));
      }
    }
    for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
      NodeId node = e.getKey();
      for (PartitionStatus s : e.getValue()) {
        if (s.state() != PartitionState.MIGRATING_OUT || s.partition() >= table.partitionCount()
            || inFlight.contains(key(s.partition(), s.epoch()))) {
          continue;
        }
        NodeId owner = table.primary(s.partition());
        boolean uncommitted = s.epoch() > epoch || owner.equals(node);
        if (uncommitted) {
          // an orphan, or committed without it: the source keeps the partition, once no node
          // takes it in any more (every node answered, so none is unseen; a move in flight was
          // skipped above; ReconcileRun skips it when an ABORT of the move fails)
          if (everyoneAnswered) {
            actions.add(new Action(Kind.UNFENCE, node, s.partition(), s.epoch(), null));
          }
        } else {
          actions.add(new Action(Kind.DROP_SOURCE, node, s.partition(), s.epoch(), owner));
        }
      }
    }
    // replicated copies the table left behind: a deposed primary that was cut off during its
    // failover, a backup taken out of the list; every acknowledged write is on the table's row
    for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
      NodeId node = e.getKey();
      for (PartitionStatus s : e.getValue()) {
        boolean replica = s.state() == PartitionState.OWNED || s.state() == PartitionState.BACKUP;
        if (replica && s.partition() < table.partitionCount() && s.epoch() < epoch
            && !table.replicas(s.partition()).contains(node)) {
          // an unreplicated owner refuses: it is the only copy, moved by migrations
          actions.add(new Action(Kind.DROP_STALE, node, s.partition(), epoch, null));
        }
      }
    }
    return new ReconcilePlan(actions, problems);
  }

  /** A move: a partition at a move epoch. */
  static String key(int partition, long epoch) {
    return partition + "@" + epoch;
  }
}
