package io.partkit.kvstore.migration;

import io.partkit.kvstore.EventLine;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeStatus;
import io.partkit.kvstore.wire.SuspectsReport;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * Reconfiguring on suspicion, the executor's side: reads which backups the primaries suspect
 * (their {@link SuspectsReport}s, which a node answers without the partition's lock, since a write
 * waiting on a cut-off backup holds it), takes a backup out of a partition's replica set at the
 * epoch the coordinator committed for it, and joins it again as a backup that catches up once the
 * primary can reach it.
 *
 * <p>A replica taken out stays in the table's row: the table's rows all have the replication
 * factor's length, and the row is the set the partition returns to. What serves is the set the
 * nodes hold at the partition's epoch, which {@link ReplicaAdmin#reconfigure} establishes; a
 * failover takes its survivors from the nodes' states, never from the row, so a row naming a
 * replica with no copy loses nothing (it joins like any replica that is not a survivor).
 */
final class ReplicaSuspicions {

  /** Longest wait between two tries to join a replica again that the primary cannot reach. */
  private static final long MAX_BACKOFF_NANOS = 16_000_000_000L;

  private final Function<NodeId, String> addresses;
  private final Function<NodeId, TcpNodeClient> clients;
  /**
   * Clients with a short read timeout, for restore's STATUS: a node answers STATUS under the
   * partition's lock, which a write waiting on a silent backup holds; waiting for it would hold
   * up the review, so the suspicion that ends that write's wait would never be read.
   */
  private final Function<NodeId, TcpNodeClient> glances;
  private final ReplicaAdmin replicas;
  /** Partitions a migration of this executor is moving: left alone. */
  private final IntPredicate moving;
  /** partition@node -> {next try (System.nanoTime), backoff}: a join that failed waits. */
  private final Map<String, long[]> retries = new HashMap<>();
  /** The partition the next {@link #restore} pass starts at. */
  private int nextFirst;
  /** One {@link EventLine} per removal's outcome, join, repair, pass ended early. */
  private final Consumer<String> events;
  /** What the last {@link #suspected} call read: a line is said when a partition's changes. */
  private Map<Integer, Set<NodeId>> lastSuspected = Map.of();

  ReplicaSuspicions(Function<NodeId, String> addresses, Function<NodeId, TcpNodeClient> clients,
      Function<NodeId, TcpNodeClient> glances, ReplicaAdmin replicas, IntPredicate moving,
      Consumer<String> events) {
    this.events = events;
    this.addresses = addresses;
    this.clients = clients;
    this.glances = glances;
    this.replicas = replicas;
    this.moving = moving;
  }

  /** What each partition's primary in {@code committed} suspects, as nodes of its row. */
  Map<Integer, Set<NodeId>> suspected(PartitionAssignment committed, Set<NodeId> members) {
    Map<Integer, Set<NodeId>> suspected = new TreeMap<>();
    for (NodeId node : committed.nodes()) {
      if (!members.contains(node)) {
        continue;
      }
      Map<Integer, List<String>> report;
      try (TcpNodeClient c = clients.apply(node)) {
        KvReply reply = c.admin(Wire.SUSPECTS, 0, 0);
        if (!reply.isOk()) {
          continue;
        }
        report = SuspectsReport.of(reply).byPartition();
      } catch (IOException | RuntimeException e) {
        continue; // unreachable now (cut off from the coordinator too): asked at the next round
      }
      report.forEach((p, suspects) -> {
        if (p >= committed.partitionCount()) {
          return;
        }
        List<NodeId> row = committed.replicas(p);
        if (row.size() < 2 || !row.get(0).equals(node)) {
          return; // only the row's primary asks
        }
        for (NodeId backup : row.subList(1, row.size())) {
          if (suspects.contains(addresses.apply(backup))) {
            suspected.computeIfAbsent(p, k -> new TreeSet<>()).add(backup);
          }
        }
      });
    }
    sayChanges(committed, suspected);
    return suspected;
  }

  /** A line per partition whose suspects read now differ from the last read's. */
  private synchronized void sayChanges(PartitionAssignment committed,
      Map<Integer, Set<NodeId>> suspected) {
    Set<Integer> partitions = new TreeSet<>(suspected.keySet());
    partitions.addAll(lastSuspected.keySet());
    for (int p : partitions) {
      Set<NodeId> now = suspected.getOrDefault(p, Set.of());
      if (!now.equals(lastSuspected.getOrDefault(p, Set.of()))) {
        say(p, committed.epoch(), now.isEmpty() ? "SUSPECTS none reported any more"
            : "SUSPECTS reported by the primary " + committed.replicas(p).get(0) + ": " + now);
      }
    }
    lastSuspected = Map.copyOf(suspected);
  }

  /**
   * Reconfigures {@code partition} at {@code committed}'s epoch to its row without {@code
   * removed}. First {@link ReplicaAdmin#shrink}: the kept backups move to that epoch and the
   * primary, which stays, is offered the configuration without taking its lock, so that a
   * write waiting on the removed backup completes with the kept ones. If that cannot be done
   * (a kept backup is not a whole copy, the primary moved on), {@link ReplicaAdmin#reconfigure}:
   * the survivors become backups at that epoch (which fences the primary's previous
   * configuration), the primary leads them, and a removed replica that can be reached drops its
   * copy.
   */
  void remove(PartitionAssignment committed, int partition, Set<NodeId> removed)
      throws IOException {
    List<NodeId> row = committed.replicas(partition);
    if (removed.contains(row.get(0))) {
      throw new IllegalArgumentException("partition " + partition + ": its primary " + row.get(0)
          + " is never taken out on suspicion (only backups are)");
    }
    List<String> to = new ArrayList<>();
    List<String> from = new ArrayList<>();
    for (NodeId n : row) {
      from.add(addresses.apply(n));
      if (!removed.contains(n)) {
        to.add(addresses.apply(n));
      }
    }
    say(partition, committed.epoch(), "REMOVE " + removed + " (committed): shrink on the"
        + " primary " + row.get(0) + " to backups " + to.subList(1, to.size()));
    try {
      replicas.shrink(partition, committed.epoch(), to.get(0), to.subList(1, to.size()));
      say(partition, committed.epoch(), "REMOVE " + removed + ": shrink adopted");
      return;
    } catch (ReplicaAdmin.KeptBackupsSilent e) {
      // The primary stays at its epoch and now suspects a kept backup too: the next review
      // leaves that one out as well. A move that lands after the heal is repaired by restore().
      say(partition, committed.epoch(), "REMOVE " + removed + ": a kept backup is silent too,"
          + " left to the next review: " + e.getMessage());
      throw e;
    } catch (IOException | RuntimeException e) {
      // the general way below, which levels whatever the fast path left
      say(partition, committed.epoch(), "REMOVE " + removed + ": shrink failed, reconfiguring"
          + " the general way: " + e.getMessage());
    }
    try {
      replicas.reconfigure(partition, committed.epoch(), from, to);
    } catch (IOException | RuntimeException e) {
      say(partition, committed.epoch(), "REMOVE " + removed + ": general reconfiguration"
          + " failed: " + e.getMessage());
      throw e;
    }
    say(partition, committed.epoch(), "REMOVE " + removed + ": reconfigured the general way");
  }

  private void say(int partition, long epoch, String what) {
    events.accept(EventLine.of(java.time.Clock.systemUTC(), "coordinator", partition, epoch,
        what));
  }

  /**
   * Joins again every backup of a row that holds no whole copy at its primary's epoch, through
   * the primary while it serves ({@link ReplicaAdmin#addBackups}). A try that fails (the
   * primary still cannot reach it) waits longer before the next, up to 16 s, since a join holds
   * the partition's writes for up to the replica timeout.
   *
   * <p>A try that fails also ends the pass, as a busy node does: it cost up to the suspicion
   * deadline (the primary's probe of a joiner it cannot reach), and while a pass runs the review
   * reads no suspicion. A cut that outlives its removals can leave removed backups that their
   * primaries cannot reach; a pass that tried each of them would spend the suspicion deadline on
   * each, and the next cut's suspicions, named during such a pass, would be read only after that
   * cut had healed. The next pass starts one partition further, and the
   * backoff keeps the failed one out of the next passes for a while, so every partition is
   * still reached.
   *
   * @return how many backups of the rows are not seen holding a whole copy at their primary's
   *     epoch (not known to be whole: a backup joined now is counted until a later call sees it
   *     whole), 0 when every one is; a pass that meets a busy node or a failed try ends there and
   *     counts what it did not see as not whole
   */
  int restore(PartitionAssignment committed) {
    int notWhole = 0;
    int count = committed.partitionCount();
    int first = Math.floorMod(nextFirst, count);
    nextFirst = first + 1; // each pass starts one further: a busy primary ends a pass early
    for (int i = 0; i < count; i++) {
      int p = (first + i) % count;
      List<NodeId> row = committed.replicas(p);
      if (row.size() < 2) {
        continue;
      }
      if (moving.test(p)) {
        notWhole += row.size() - 1;
        continue;
      }
      NodeStatus primary;
      try {
        primary = status(row.get(0), p);
      } catch (SocketTimeoutException e) {
        // Busy: a write there waits on a silent backup and holds the partition's lock. Others
        // will be too; the review goes back to reading suspicions, which ends those waits.
        // What this pass did not see is not known whole.
        say(p, committed.epoch(), "RESTORE pass ended: the primary " + row.get(0)
            + " did not answer STATUS in time (busy)");
        return notWhole + 1;
      }
      if (primary == null || primary.state() != PartitionState.OWNED
          || primary.epoch() > committed.epoch()) {
        notWhole += row.size() - 1;
        continue; // not serving, or a reconfiguration the table has not committed yet
      }
      for (NodeId backup : row.subList(1, row.size())) {
        String key = p + "@" + backup;
        long[] retry = retries.get(key);
        if (retry != null && System.nanoTime() < retry[0]) {
          notWhole++;
          continue;
        }
        NodeStatus s;
        try {
          s = status(backup, p);
        } catch (SocketTimeoutException e) {
          say(p, committed.epoch(), "RESTORE pass ended: the backup " + backup
              + " did not answer STATUS in time (busy)");
          return notWhole + 1; // as for a busy primary
        }
        if (s != null && s.state() == PartitionState.BACKUP && s.epoch() == primary.epoch()
            && !s.catchingUp()) {
          continue; // a whole copy
        }
        notWhole++;
        if (s != null && s.epoch() > primary.epoch() && primary.epoch() < committed.epoch()) {
          // A replica of the row is past its primary, which is behind the table: a change at
          // the table's epoch took effect only in part (a kept backup's move that landed after
          // its primary gave up on it, a reconfiguration cut short). No join at the primary's
          // epoch can fix that, and no suspicion will come: bring the nodes to the row at the
          // table's epoch, as a migration that the table decided is finished.
          String whole = p + "@table";
          long[] again = retries.get(whole);
          if (again == null || System.nanoTime() >= again[0]) {
            List<String> all = row.stream().map(addresses).toList();
            String why = "RESTORE " + backup + " is at epoch " + s.epoch() + ", past its primary "
                + row.get(0) + " at epoch " + primary.epoch() + ": reconfiguring to the row " + row;
            try {
              replicas.reconfigure(p, committed.epoch(), all, all);
              retries.remove(whole);
              say(p, committed.epoch(), why + ": done");
            } catch (IOException | RuntimeException e) {
              retryLater(whole, again);
              say(p, committed.epoch(), why + ": failed, tried again later; pass ended: "
                  + e.getMessage());
              return notWhole + 1; // what this pass did not see is not known whole
            }
          }
          break;
        }
        if (s == null || s.state() == PartitionState.OWNED) {
          continue; // unreachable, or a primary (a failover's business)
        }
        try {
          replicas.addBackups(p, primary.epoch(), addresses.apply(row.get(0)),
              List.of(addresses.apply(backup)));
          retries.remove(key);
          say(p, primary.epoch(), "RESTORE " + backup + " joined again as a backup of "
              + row.get(0) + " and caught up");
        } catch (IOException | RuntimeException e) {
          retryLater(key, retry);
          say(p, primary.epoch(), "RESTORE " + backup + " not joined again (tried again later;"
              + " pass ended): " + e.getMessage());
          return notWhole + 1; // what this pass did not see is not known whole
        }
      }
    }
    return notWhole;
  }

  /** A try that failed waits longer before the next: 1 s, doubling up to 16 s. */
  private void retryLater(String key, long[] retry) {
    long backoff = retry == null ? 1_000_000_000L : Math.min(MAX_BACKOFF_NANOS, retry[1] * 2);
    retries.put(key, new long[] {System.nanoTime() + backoff, backoff});
  }

  /**
   * The node's status of the partition, or null if it cannot be reached or refuses.
   *
   * @throws SocketTimeoutException if it did not answer within a glance (the node is up but
   *     the partition's lock is held)
   */
  private NodeStatus status(NodeId node, int partition) throws SocketTimeoutException {
    try (TcpNodeClient c = glances.apply(node)) {
      return c.nodeStatus(partition);
    } catch (IOException | RuntimeException e) {
      if (e instanceof SocketTimeoutException t) {
        throw t;
      }
      if (e.getCause() instanceof SocketTimeoutException t) {
        throw t;
      }
      return null;
    }
  }
}
