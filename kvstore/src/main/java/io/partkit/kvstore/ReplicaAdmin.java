package io.partkit.kvstore;

import io.partkit.kvstore.KvReply.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The administrative steps of a replicated partition, each made of the node operations that
 * keep it safe: start a replica set, add a backup that catches up while writes go on, and fail
 * over to a backup when the primary is gone.
 *
 * <p>The design is primary-backup with the coordinator as the consistent core (PacificA's
 * configuration manager): the primary sends each write to every backup and acknowledges it
 * once all hold it durably, so any backup holds every acknowledged write. The replica set
 * changes only by these steps, under a new epoch chosen by the coordinator. See
 * docs/kvstore.md for the argument.
 */
final class ReplicaAdmin {

  private final Duration timeout;
  private final KvSecret secret;

  ReplicaAdmin(Duration timeout, KvSecret secret) {
    this.timeout = timeout;
    this.secret = secret;
  }

  /**
   * Creates an empty partition at {@code epoch} on {@code primary} with {@code backups}, or
   * completes a creation a crash interrupted.
   */
  void create(int partition, long epoch, String primary, List<String> backups)
      throws IOException {
    expectOk(call(primary, NodeConnection.request(Wire.ASSIGN, partition, epoch).toBytes()),
        "ASSIGN of partition " + partition + " on " + primary);
    addBackups(partition, epoch, primary, backups);
  }

  /**
   * Adds backups to the partition led by {@code primary} at {@code epoch}: they join empty,
   * receive every write from then on, and copy the rest while the primary serves. Returns once
   * all have caught up: only then may a table name them as replicas (a failover promotes only
   * from the table's list).
   */
  void addBackups(int partition, long epoch, String primary, List<String> backups)
      throws IOException {
    if (backups.isEmpty()) {
      return;
    }
    Wire.Writer add = NodeConnection.request(Wire.CONFIGURE, partition, epoch)
        .i8(TcpKvNode.ROLE_PRIMARY_ADDING).i32(backups.size());
    backups.forEach(add::utf);
    expectOk(call(primary, add.toBytes()), "adding backups " + backups + " to partition "
        + partition + " on " + primary);
    for (String backup : backups) {
      expectOk(call(backup, NodeConnection.request(Wire.CATCHUP, partition, epoch)
          .utf(primary).toBytes()), "catch-up of partition " + partition + " on " + backup);
    }
  }

  /**
   * Fails over to {@code newPrimary} at {@code newEpoch}: first every surviving replica becomes
   * a backup at the new epoch (this fences the old primary, which can then neither write nor
   * serve a read, even if it is only paused), then the new primary takes the others as its
   * backups and levels them before it serves.
   *
   * @param survivors the partition's replicas still alive, from the committed table (caught up)
   */
  void failOver(int partition, long newEpoch, String newPrimary, List<String> survivors)
      throws IOException {
    if (!survivors.contains(newPrimary)) {
      throw new IllegalArgumentException("the new primary " + newPrimary
          + " must be one of the survivors " + survivors);
    }
    for (String replica : survivors) {
      expectOk(call(replica, NodeConnection.request(Wire.CONFIGURE, partition, newEpoch)
          .i8(TcpKvNode.ROLE_BACKUP).toBytes()), "fencing partition " + partition + " on "
          + replica + " at epoch " + newEpoch);
    }
    List<String> backups = new ArrayList<>(survivors);
    backups.remove(newPrimary);
    promote(partition, newEpoch, newPrimary, backups);
  }

  /**
   * Moves a partition from the replicas {@code from} (the committed table's, primary first) to
   * {@code to} at {@code newEpoch}, with writes refused only while the primary changes:
   * <ol>
   *   <li>every reachable replica of {@code from} becomes a backup at the new epoch, which
   *       fences the old primary wherever it is (dead, paused or cut off);
   *   <li>the survivors are those within one write of the most advanced (the others missed
   *       acknowledged writes: a replica taken out of the write set by an earlier, unfinished
   *       reconfiguration); every acknowledged write is on each of them;
   *   <li>one survivor (the new primary if it is one) leads at the new epoch and levels them;
   *       replicas of {@code to} that are not survivors join and catch up while it serves;
   *   <li>the new primary takes over with exactly {@code to}'s backups; the rest are dropped.
   * </ol>
   * Idempotent at one epoch: a reconfiguration cut short is run again from the same
   * {@code from}, and a replica that already caught up at this epoch counts as a survivor.
   *
   * @throws IOException if no replica of {@code from} survives (the data is on no live node) or
   *     a replica of {@code to} cannot be reached
   */
  void reconfigure(int partition, long newEpoch, List<String> from, List<String> to)
      throws IOException {
    if (to.isEmpty()) {
      throw new IllegalArgumentException("a partition needs at least one replica");
    }
    List<String> candidates = new ArrayList<>(from);
    to.stream().filter(r -> !candidates.contains(r)).forEach(candidates::add);
    Map<String, Long> seqs = new LinkedHashMap<>();
    for (String replica : candidates) {
      KvReply fenced = tryCall(replica, NodeConnection.request(Wire.CONFIGURE, partition,
          newEpoch).i8(TcpKvNode.ROLE_BACKUP).toBytes());
      if (!fenced.isOk()) {
        continue; // dead, unreachable, or no copy: not a survivor
      }
      KvReply confirmed = tryCall(replica, NodeConnection.request(Wire.CONFIRM, partition,
          newEpoch).toBytes());
      if (confirmed.isOk()) {
        Wire.Reader r = new Wire.Reader(confirmed.value());
        long seq = r.i64();
        r.bytes();
        r.bytes();
        if (r.i8() == 0) { // caught up
          seqs.put(replica, seq);
        }
      }
    }
    long max = seqs.values().stream().mapToLong(Long::longValue).max().orElse(-1);
    List<String> survivors = new ArrayList<>();
    for (Map.Entry<String, Long> e : seqs.entrySet()) {
      if (e.getValue() >= max - 1) {
        survivors.add(e.getKey());
      } else { // stale: its copy goes, so that it can join again if the new list has it
        tryCall(e.getKey(), NodeConnection.request(Wire.DROP, partition, newEpoch).toBytes());
      }
    }
    if (survivors.isEmpty()) {
      throw new IOException("no replica of partition " + partition + " survives among " + from
          + ": none could be reached with a whole copy");
    }
    String primary = to.get(0);
    String interim = survivors.contains(primary) ? primary : survivors.get(0);
    List<String> others = new ArrayList<>(survivors);
    others.remove(interim);
    promote(partition, newEpoch, interim, others);
    List<String> missing = to.stream().filter(r -> !survivors.contains(r)).toList();
    addBackups(partition, newEpoch, interim, missing);
    if (!interim.equals(primary)) {
      expectOk(call(interim, NodeConnection.request(Wire.CONFIGURE, partition, newEpoch)
          .i8(TcpKvNode.ROLE_BACKUP).toBytes()), "hand-over of partition " + partition
          + " from " + interim);
    }
    promote(partition, newEpoch, primary, to.subList(1, to.size()));
    List<String> extra = new ArrayList<>(survivors);
    extra.add(interim);
    for (String replica : extra) {
      if (!to.contains(replica)) {
        tryCall(replica, NodeConnection.request(Wire.DROP, partition, newEpoch).toBytes());
      }
    }
  }

  private void promote(int partition, long epoch, String primary, List<String> backups)
      throws IOException {
    Wire.Writer promote = NodeConnection.request(Wire.CONFIGURE, partition, epoch)
        .i8(TcpKvNode.ROLE_PRIMARY).i32(backups.size());
    backups.forEach(promote::utf);
    expectOk(call(primary, promote.toBytes()), "promoting " + primary + " for partition "
        + partition + " at epoch " + epoch + " with backups " + backups);
  }

  /** A call whose failure is an answer: an unreachable replica is one the caller skips. */
  private KvReply tryCall(String address, byte[] request) {
    try {
      return call(address, request);
    } catch (IOException e) {
      return KvReply.of(Status.UNAVAILABLE, 0, address + ": " + e);
    }
  }

  private KvReply call(String address, byte[] request) throws IOException {
    try (NodeConnection c = NodeConnection.open(TcpKvNode.parseAddress(address), timeout,
        secret)) {
      return c.call(request);
    }
  }

  private static void expectOk(KvReply reply, String what) throws IOException {
    if (reply.status() != Status.OK) {
      throw new IOException(what + " failed: " + reply);
    }
  }
}
