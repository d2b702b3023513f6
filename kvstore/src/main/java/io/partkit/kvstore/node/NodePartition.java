package io.partkit.kvstore.node;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.spi.NodeId;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * One partition on this node; every field is guarded by the object's monitor (the volatile ones
 * are written under it and may be read without it).
 */
final class NodePartition {
  final int id;
  /**
   * Volatile: the node's metering reads it without the monitor ({@code NodeMetrics#forgetGone}),
   * which a write waiting on a silent backup holds for up to the replica timeout.
   */
  volatile PartitionState state = PartitionState.ABSENT;
  /**
   * OWNED: the owner epoch; ABSENT: the last epoch known; otherwise the owner epoch kept for a
   * roll back.
   */
  long epoch;
  /** The move's target epoch while MIGRATING_OUT, RECEIVING or RECEIVED. */
  long moveEpoch;
  /**
   * The highest move epoch this node was unfenced from (a roll back). A move at that epoch or
   * below is refused from then on: a target may still hold a copy taken under that fence, and
   * a copy from before the roll back must never be mistaken for a current one.
   */
  long unfencedEpoch;
  boolean pulling;
  /**
   * MIGRATING_OUT: the sequence number of its fence's log record, which FENCE answers before
   * it is durable; a page copied under the fence waits for it (see {@link NodeMigration#fence}).
   * 0: none pending (a fence replayed from the log is durable).
   */
  long fenceSeq;
  /**
   * Source side, while a target pre-copies this OWNED partition: the keys written since the
   * pre-copy began. Memory only: a restart loses it, and the target then copies in full.
   */
  Tracking tracking;
  /** Target side: the source's tracking token of the pre-copy held here (RECEIVING), or 0. */
  long precopyToken;
  /** OWNED: the addresses of the other replicas, each of which must hold every write. */
  List<String> backups = List.of();
  /**
   * Replicas (OWNED with backups, BACKUP): the sequence number of the last replicated write
   * and that write. Writes are replicated one at a time per partition, so two replicas differ
   * by at most this one write, and a primary brings its backups level with it ({@link
   * NodeReplication#syncBackups}) before it serves after a restart, a promotion or a failed
   * write.
   */
  long seq;
  byte[] lastKey;
  byte[] lastValue;
  /**
   * OWNED with backups: the backups that did not answer within the replica timeout at this
   * epoch (the last call to each decides), which the coordinator reads with SUSPECTS to take
   * them out of the replica set (see {@code ReplicaSuspicions}). Reset by every new
   * configuration. Written under the monitor; volatile because SUSPECTS reads it without the
   * monitor, which a write waiting on a cut-off backup holds for the whole replica timeout.
   */
  volatile List<String> suspects = List.of();
  /**
   * OWNED: a suspect timed out and has not answered since: the primary fails requests at once
   * instead of waiting on it again, so that its lock is free for the coordinator's
   * reconfiguration, and probes it ({@link #probing}) to serve again once it answers.
   */
  boolean suspectTimedOut;
  boolean probing;
  /**
   * OWNED with backups: a configuration at a newer epoch that the executor offers this primary
   * after the coordinator committed it, keeping some of its backups and leaving out the ones it
   * suspects ({@link NodeReplication#shrink}); null when none is pending. Outside the monitor on
   * purpose: a write waiting on a silent backup holds the monitor, and it reads the offer to
   * adopt it (see {@link NodeReplication#replicateToBackups}).
   */
  final java.util.concurrent.atomic.AtomicReference<Shrink> shrink =
      new java.util.concurrent.atomic.AtomicReference<>();
  /**
   * Completed (and replaced) each time an offer is made: whoever waits on backups waits on it
   * too. A waiter reads it before reading {@link #shrink}, the offer writes {@link #shrink}
   * before completing it, so a waiter either sees the offer or is woken by it.
   */
  final java.util.concurrent.atomic.AtomicReference<
      java.util.concurrent.CompletableFuture<Void>> offers =
      new java.util.concurrent.atomic.AtomicReference<>(
          new java.util.concurrent.CompletableFuture<>());
  /** OWNED with backups: whether the backups are known to be level with this node. */
  boolean synced = true;
  /** BACKUP: still copying the primary's data (CATCHUP). */
  boolean catchingUp;
  /**
   * BACKUP catching up: the keys replicated since it joined (a copied page must not undo
   * them).
   */
  java.util.TreeSet<byte[]> fresh;
  /**
   * BACKUP: restarted while catching up. The record of fresh keys was in memory, so the copy
   * can no longer tell old values from new: it refuses everything until joined again.
   */
  boolean catchupLost;
  final TreeMap<byte[], byte[]> data = new TreeMap<>(Arrays::compareUnsigned);
  /**
   * Its meters while this node serves it, else null. Set and cleared under the monitor, but
   * volatile so that a served request reads it without taking the lock again.
   */
  volatile LoadMeters.Partition meters;

  NodePartition(int id) {
    this.id = id;
  }

  long visibleEpoch() {
    return state == PartitionState.OWNED || state == PartitionState.ABSENT
        || state == PartitionState.BACKUP ? epoch : moveEpoch;
  }

  void applyReplicated(long seq, byte[] key, byte[] value) {
    data.put(key, value);
    this.seq = seq;
    lastKey = key;
    lastValue = value;
  }

  /** A write while a target pre-copies: the delta after the fence must carry this key. */
  void markDirty(byte[] key) {
    if (tracking != null) {
      tracking.dirty().add(key);
    }
  }

  /** A refusal; its value is the partition's state code, so the executor can act on it. */
  KvReply refused(NodeId node, String step) {
    return new KvReply(Status.REFUSED, visibleEpoch(), new byte[] {(byte) state.code()},
        step + " of partition " + id + " refused on " + node + ": it is " + state
            + " at epoch " + visibleEpoch());
  }

  /**
   * A committed configuration offered to this primary: at {@code epoch}, exactly {@code backups}
   * (a subset of its current ones).
   */
  record Shrink(long epoch, List<String> backups) {}

  /** Keys written to a partition since a pre-copy at {@code moveEpoch} began ({@code token}). */
  record Tracking(long moveEpoch, long token, java.util.TreeSet<byte[]> dirty) {}
}
