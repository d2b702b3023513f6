package io.partkit.kvstore.migration;

import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.NodeStatus;
import io.partkit.kvstore.wire.Wire;
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
 * docs/kvstore-replication.md for the argument.
 */
public final class ReplicaAdmin {

  private final Duration timeout;
  private final Duration copyTimeout;
  private final SharedSecret secret;

  /**
   * @param timeout how long one step may take on a node
   * @param copyTimeout how long a backup may take to catch up (one call copies the partition)
   */
  public ReplicaAdmin(Duration timeout, Duration copyTimeout, SharedSecret secret) {
    this.timeout = timeout;
    this.copyTimeout = copyTimeout;
    this.secret = secret;
  }

  /**
   * Creates an empty partition at {@code epoch} on {@code primary} with {@code backups}, or
   * completes a creation a crash interrupted.
   */
  public void create(int partition, long epoch, String primary, List<String> backups)
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
  public void addBackups(int partition, long epoch, String primary, List<String> backups)
      throws IOException {
    if (backups.isEmpty()) {
      return;
    }
    Wire.Writer add = NodeConnection.request(Wire.CONFIGURE, partition, epoch)
        .i8(Wire.ROLE_PRIMARY_ADDING).i32(backups.size());
    backups.forEach(add::utf);
    expectOk(call(primary, add.toBytes()), "adding backups " + backups + " to partition "
        + partition + " on " + primary);
    for (String backup : backups) {
      expectOk(call(backup, NodeConnection.request(Wire.CATCHUP, partition, epoch)
          .utf(primary).toBytes(), copyTimeout), "catch-up of partition " + partition + " on "
          + backup);
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
  public void failOver(int partition, long newEpoch, String newPrimary, List<String> survivors)
      throws IOException {
    if (!survivors.contains(newPrimary)) {
      throw new IllegalArgumentException("the new primary " + newPrimary
          + " must be one of the survivors " + survivors);
    }
    for (String replica : survivors) {
      expectOk(call(replica, NodeConnection.request(Wire.CONFIGURE, partition, newEpoch)
          .i8(Wire.ROLE_BACKUP).toBytes()), "fencing partition " + partition + " on "
          + replica + " at epoch " + newEpoch);
    }
    List<String> backups = new ArrayList<>(survivors);
    backups.remove(newPrimary);
    promote(partition, newEpoch, newPrimary, backups);
  }

  /**
   * Moves a partition from the replicas {@code from} (the committed table's, primary first) to
   * {@code to} at {@code newEpoch}:
   * <ol>
   *   <li>the survivors are the reachable, caught-up replicas of the latest configuration (the
   *       highest epoch among them): each holds every acknowledged write, and they differ by at
   *       most the last, unacknowledged one. A replica at an older epoch was left out of a later
   *       configuration and may have missed acknowledged writes (or hold one nobody else has),
   *       however close its sequence number looks: it is never a survivor;
   *   <li>the survivors become backups at the new epoch, which fences the old primary wherever
   *       it is (dead, paused or cut off: it needs every one of them for each write and read);
   *   <li>one survivor (the new primary if it is one) leads at the new epoch and levels them;
   *       replicas of {@code to} that are not survivors join and catch up from it;
   *   <li>the new primary takes over with exactly {@code to}'s backups; the rest are dropped.
   * </ol>
   * No client is served at the new epoch before the coordinator commits it (clients carry the
   * committed epoch, which the new primary refuses as older), so nothing is written meanwhile.
   * Idempotent at one epoch: a reconfiguration cut short is run again with the same arguments.
   *
   * @throws IOException if no replica survives (the data is on no reachable node) or a replica
   *     of {@code to} cannot be reached
   */
  public void reconfigure(int partition, long newEpoch, List<String> from, List<String> to)
      throws IOException {
    if (to.isEmpty()) {
      throw new IllegalArgumentException("a partition needs at least one replica");
    }
    List<String> candidates = new ArrayList<>(from);
    to.stream().filter(r -> !candidates.contains(r)).forEach(candidates::add);
    Map<String, long[]> whole = new LinkedHashMap<>(); // replica -> {epoch, seq}
    for (String replica : candidates) {
      KvReply status = tryCall(replica, NodeConnection.request(Wire.STATUS, partition, 0)
          .toBytes());
      if (!status.isOk()) {
        continue; // dead or unreachable: not a survivor
      }
      NodeStatus s = NodeStatus.of(status);
      boolean holdsACopy = s.state() == PartitionState.OWNED || s.state() == PartitionState.BACKUP;
      if (holdsACopy && !s.catchingUp() && s.epoch() <= newEpoch) {
        whole.put(replica, new long[] {s.epoch(), s.seq()});
      }
    }
    long latest = whole.values().stream().mapToLong(v -> v[0]).max().orElse(-1);
    long maxSeq = whole.values().stream().filter(v -> v[0] == latest).mapToLong(v -> v[1])
        .max().orElse(-1);
    List<String> survivors = new ArrayList<>();
    for (Map.Entry<String, long[]> e : whole.entrySet()) {
      if (e.getValue()[0] == latest && e.getValue()[1] >= maxSeq - 1) {
        KvReply fenced = tryCall(e.getKey(), NodeConnection.request(Wire.CONFIGURE, partition,
            newEpoch).i8(Wire.ROLE_BACKUP).toBytes());
        if (fenced.isOk()) {
          survivors.add(e.getKey());
        }
      }
    }
    if (survivors.isEmpty()) {
      throw new IOException("no replica of partition " + partition + " survives among " + from
          + ": none could be reached with a whole copy of the latest configuration");
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
          .i8(Wire.ROLE_BACKUP).toBytes()), "hand-over of partition " + partition
          + " from " + interim);
    }
    // A survivor left out of the new list is at the new epoch: it must go before the new
    // primary writes without it, or a later reconfiguration could take it, one write behind on
    // another line of writes, for a member of the latest configuration.
    for (String replica : survivors) {
      if (!to.contains(replica)) {
        expectOk(call(replica, NodeConnection.request(Wire.DROP, partition, newEpoch)
            .toBytes()), "drop of partition " + partition + " on " + replica);
      }
    }
    promote(partition, newEpoch, primary, to.subList(1, to.size()));
    for (String replica : candidates) {
      if (!to.contains(replica) && !survivors.contains(replica)) {
        // an older copy (never a survivor again); one unreachable now goes at a later reconcile
        tryCall(replica, NodeConnection.request(Wire.DROP, partition, newEpoch).toBytes());
      }
    }
  }

  /**
   * Takes backups out of a partition whose primary stays, at {@code newEpoch}, which the
   * coordinator has committed: the fast path of a removal on suspicion, which does not need the
   * primary's lock (a write waiting on the silent backup holds it). The primary is offered the
   * configuration with exactly {@code kept} (CONFIGURE, role {@link
   * Wire#ROLE_PRIMARY_SHRINK}); it checks under its lock that they are its own backups,
   * moves them to {@code newEpoch} (from then on they refuse the old epoch) and leads them
   * there. A write waiting on a silent backup does this itself, and completes if every kept
   * backup holds it (docs/kvstore-replication.md, "Waiting on a suspect"). The backups left
   * out are not called: they are the silent ones, and {@code ReplicaSuspicions#restore} joins
   * each again (starting empty) once the primary reaches it.
   *
   * @throws KeptBackupsSilent if a kept backup is silent to the primary too (it names it a
   *     suspect, so the coordinator's next review leaves it out as well)
   * @throws IOException if the primary refuses or cannot be reached, or cannot move a kept
   *     backup that answered: then {@link #reconfigure} is the way
   */
  public void shrink(int partition, long newEpoch, String primary, List<String> kept)
      throws IOException {
    Wire.Writer offer = NodeConnection.request(Wire.CONFIGURE, partition, newEpoch)
        .i8(Wire.ROLE_PRIMARY_SHRINK).i32(kept.size());
    kept.forEach(offer::utf);
    KvReply reply = call(primary, offer.toBytes());
    String what = "shrinking partition " + partition + " on " + primary + " to backups " + kept
        + " at epoch " + newEpoch;
    if (reply.status() == Status.UNAVAILABLE) {
      throw new KeptBackupsSilent(what + " failed: " + reply);
    }
    expectOk(reply, what);
  }

  /**
   * The primary could not adopt a shrunken configuration because a backup it was to keep is
   * silent to it too (a cut that reached its links at different moments): it stays at its
   * epoch, names that backup a suspect, and the next configuration leaves it out as well. The
   * general reconfiguration would change nothing better meanwhile, and would wait on the
   * primary's lock, holding up the coordinator's review.
   */
  static final class KeptBackupsSilent extends IOException {
    private static final long serialVersionUID = 1L;

    KeptBackupsSilent(String message) {
      super(message);
    }
  }

  private void promote(int partition, long epoch, String primary, List<String> backups)
      throws IOException {
    Wire.Writer promote = NodeConnection.request(Wire.CONFIGURE, partition, epoch)
        .i8(Wire.ROLE_PRIMARY).i32(backups.size());
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
    return call(address, request, timeout);
  }

  private KvReply call(String address, byte[] request, Duration within) throws IOException {
    try (NodeConnection c = NodeConnection.open(Wire.parseAddress(address), within,
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
