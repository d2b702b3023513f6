package io.partkit.kvstore;

import io.partkit.kvstore.KvReply.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
    Wire.Writer promote = NodeConnection.request(Wire.CONFIGURE, partition, newEpoch)
        .i8(TcpKvNode.ROLE_PRIMARY).i32(backups.size());
    backups.forEach(promote::utf);
    expectOk(call(newPrimary, promote.toBytes()), "promoting " + newPrimary + " for partition "
        + partition + " at epoch " + newEpoch);
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
