package io.partkit.kvstore.node;

import static io.partkit.kvstore.node.LogRecords.clearRecord;
import static io.partkit.kvstore.node.LogRecords.putRecord;
import static io.partkit.kvstore.node.LogRecords.stateRecord;
import static io.partkit.kvstore.wire.Wire.parseAddress;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.NodeConnectionPool;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Map;

/**
 * A node's side of moving a partition: the steps of a migration (ASSIGN, FENCE, UNFENCE, TRACK,
 * SNAPSHOT, DRAIN, DELTA, PRECOPY, RECEIVE, ACTIVATE, ABORT, DROP) as the source or the target
 * serves them, and the partition state changes they log.
 */
final class NodeMigration {

  /** Snapshot pages the target pulls: large enough to amortize a round trip, small in memory. */
  private static final int PAGE = 2048;
  /**
   * Pages copied while the partition serves (pre-copy, drain, a backup's catch-up): smaller, so
   * that the source holds the partition's lock for a shorter time per page.
   */
  static final int SERVING_PAGE = 512;
  /** A copy while the partition serves pauses this many times as long as each page took. */
  private static final int SERVING_PAUSE_FACTOR = 3;

  private static final java.security.SecureRandom TOKENS = new java.security.SecureRandom();

  private final NodeId id;
  private final WriteAheadLog log;
  /**
   * Connections to the sources this node copies from: a pre-copy leaves one open, and the
   * fenced RECEIVE that follows reuses it instead of connecting and shaking hands again inside
   * the window in which the partition refuses writes.
   */
  private final NodeConnectionPool copySources;
  /** What the node pulled in from sources, pre-copies and deltas included. */
  private final CopiesReceived received;
  /** DROP of a replica forgets its configuration through it (resetReplica). */
  private final NodeReplication replication;

  /** One line per state change (a migration's steps are few per partition, never per write). */
  private final NodeEvents events;

  NodeMigration(NodeId id, WriteAheadLog log, NodeConnectionPool copySources,
      CopiesReceived received, NodeReplication replication, NodeEvents events) {
    this.id = id;
    this.events = events;
    this.log = log;
    this.copySources = copySources;
    this.received = received;
    this.replication = replication;
  }

  private KvReply stateChange(NodePartition part, PartitionState state, long epoch, long moveEpoch,
      boolean clear) throws IOException {
    log.awaitDurable(applyStateChange(part, state, epoch, moveEpoch, clear));
    return KvReply.ok(part.visibleEpoch(), null);
  }

  /**
   * Applies a state change and appends its record, without waiting for it to be durable.
   *
   * @return the record's sequence number
   */
  private long applyStateChange(NodePartition part, PartitionState state, long epoch,
      long moveEpoch, boolean clear) {
    synchronized (part) {
      part.precopyToken = 0; // a pre-copy belongs to the RECEIVING state it was taken in
      String was = part.state + " at epoch " + part.visibleEpoch();
      if (clear) {
        log.append(clearRecord(part.id));
        part.data.clear();
      }
      part.state = state;
      part.epoch = epoch;
      part.moveEpoch = moveEpoch;
      long seq = log.append(stateRecord(part));
      // said once logged: a failed append (a full disk) throws, and no line claims the change
      events.say(part.id, epoch, "STATE " + state + (moveEpoch == 0 ? "" : " moving at epoch "
          + moveEpoch) + (clear ? ", its copy cleared" : "") + " (was " + was + ")");
      return seq;
    }
  }

  KvReply assign(NodePartition part, long epoch) throws IOException {
    synchronized (part) {
      if (part.state == PartitionState.OWNED) {
        return KvReply.ok(part.epoch, null);
      }
      if (part.state != PartitionState.ABSENT || part.epoch != 0) {
        return part.refused(id, "ASSIGN"); // it held data once: only a migration may bring it back
      }
      return stateChange(part, PartitionState.OWNED, epoch, 0, true);
    }
  }

  KvReply fence(NodePartition part, long moveEpoch) throws IOException {
    synchronized (part) {
      if (part.state == PartitionState.MIGRATING_OUT && part.moveEpoch == moveEpoch) {
        return KvReply.ok(moveEpoch, null);
      }
      if (!part.backups.isEmpty()) {
        return part.refused(id, "FENCE (a replicated partition changes hands by reconfiguring its"
            + " replicas, not by a move)");
      }
      if (part.state != PartitionState.OWNED || moveEpoch <= part.epoch
          || moveEpoch <= part.unfencedEpoch) {
        return part.refused(id, "FENCE at epoch " + moveEpoch
            + (moveEpoch <= part.unfencedEpoch ? " (a move at that epoch was rolled back)" : ""));
      }
      // Answered before its record is durable: the fence holds in memory at once, and every
      // page a target copies under it waits for the record first (fencedPage), so no copy
      // completes, and no table can commit the move, before a restart would keep the fence. The
      // fsync overlaps the executor's next round trip instead of lengthening the fenced window.
      part.fenceSeq = applyStateChange(part, PartitionState.MIGRATING_OUT, part.epoch,
          moveEpoch, false);
      log.forceSoon(part.fenceSeq);
      return KvReply.ok(part.visibleEpoch(), null);
    }
  }

  /**
   * A page copied from a fenced partition, sent only once the fence is durable: a copy that
   * completed before a crash could undo the fence would let the move commit while the restarted
   * source still owns the partition.
   */
  private KvReply fencedPage(KvReply page, long fenceSeq) throws IOException {
    log.awaitDurable(fenceSeq);
    return page;
  }

  KvReply unfence(NodePartition part, long moveEpoch) throws IOException {
    synchronized (part) {
      part.tracking = null; // the move is over either way: stop recording writes for it
      if (part.state == PartitionState.OWNED) {
        return KvReply.ok(part.epoch, null);
      }
      if (part.state != PartitionState.MIGRATING_OUT || part.moveEpoch != moveEpoch) {
        return part.refused(id, "UNFENCE at epoch " + moveEpoch);
      }
      part.unfencedEpoch = Math.max(part.unfencedEpoch, moveEpoch);
      return stateChange(part, PartitionState.OWNED, part.epoch, 0, false);
    }
  }

  /**
   * How many bytes of keys and values a copy page carries before its last entry, at most: with
   * one more entry of the largest key and value ({@link io.partkit.kvstore.KvLimits}) a page
   * still fits a frame. Pages went by count alone, so 2,048 values of 1 MiB made a 2 GiB frame.
   */
  static final int PAGE_BYTES = 1 << 20;

  /** How many of {@code keys}, in order, one page takes: at most {@code max}, at least one. */
  private static int pageCount(Iterable<byte[]> keys, java.util.function.Function<byte[],
      byte[]> values, int max) {
    int count = 0;
    long bytes = 0;
    for (byte[] key : keys) {
      if (count == max || count > 0 && bytes >= PAGE_BYTES) {
        break;
      }
      byte[] value = values.apply(key);
      bytes += key.length + (value == null ? 0 : value.length);
      count++;
    }
    return count;
  }

  /**
   * A copy page: int32 count, count x (bytes key, bytes value), int8 more; the first keys of
   * {@code keys} (of {@code size} in all) as {@link #pageCount} cuts them.
   */
  static byte[] page(java.util.Collection<byte[]> keys,
      java.util.function.Function<byte[], byte[]> values, int size, int max) {
    int count = pageCount(keys, values, max);
    Wire.Writer page = new Wire.Writer().i32(count);
    int n = 0;
    for (byte[] key : keys) {
      if (n == count) {
        break;
      }
      page.bytes(key).bytes(values.apply(key));
      n++;
    }
    return page.i8(size > count ? 1 : 0).toBytes();
  }

  KvReply snapshot(NodePartition part, long moveEpoch, byte[] after, int max)
      throws IOException {
    if (max < 1) {
      return KvReply.of(Status.ERROR, 0, "page size must be >= 1: " + max);
    }
    KvReply reply;
    long fenceSeq;
    synchronized (part) {
      // Fenced data is frozen, so a copy of it is whole. An OWNED partition may be copied only
      // while its writes are tracked for this move: the delta after the fence then carries
      // every key written since the copy began (to a page already taken, or not yet taken).
      boolean tracked = part.state == PartitionState.OWNED && part.tracking != null
          && part.tracking.moveEpoch() == moveEpoch;
      // A primary's own epoch: a backup catching up copies what is committed here, while the
      // writes made meanwhile reach it by REPLICATE (see catchUp).
      boolean forBackup = part.state == PartitionState.OWNED && moveEpoch == part.epoch
          && !part.backups.isEmpty();
      if (part.state != PartitionState.MIGRATING_OUT && !tracked && !forBackup) {
        return part.refused(id, "SNAPSHOT");
      }
      Map<byte[], byte[]> tail = after == null ? part.data : part.data.tailMap(after, false);
      reply = KvReply.ok(part.moveEpoch, page(tail.keySet(), tail::get, tail.size(), max));
      fenceSeq = part.state == PartitionState.MIGRATING_OUT ? part.fenceSeq : 0;
    }
    return fencedPage(reply, fenceSeq);
  }

  /**
   * Source, OWNED and tracked: up to {@code max} of the keys written since the pre-copy began,
   * with their current values, taken out of the record in the same step (a key written again
   * goes back in). It lets the target catch up while the partition still serves, so that the
   * delta under the fence is small. If the page never reaches the target, the target's pre-copy
   * fails as a whole and it copies everything under the fence: nothing relies on a lost page.
   */
  KvReply drain(NodePartition part, long moveEpoch, long token, int max) {
    if (max < 1) {
      return KvReply.of(Status.ERROR, 0, "page size must be >= 1: " + max);
    }
    synchronized (part) {
      NodePartition.Tracking t = part.tracking;
      if (part.state != PartitionState.OWNED || t == null || t.moveEpoch() != moveEpoch
          || t.token() != token) {
        return part.refused(id, "DRAIN (no pre-copy tracking with that token)");
      }
      int count = pageCount(t.dirty(), part.data::get, max);
      java.util.List<byte[]> taken = new java.util.ArrayList<>(count);
      for (int n = 0; n < count; n++) {
        taken.add(t.dirty().pollFirst());
      }
      byte[] page = page(taken, part.data::get, taken.size() + t.dirty().size(), max);
      return KvReply.ok(moveEpoch, page);
    }
  }

  /**
   * Source: starts recording the keys written to an OWNED partition, for a target about to
   * pre-copy it at {@code moveEpoch}; answers the tracking's token (int64). Idempotent: the same
   * move gets the same token (after the fence too).
   */
  KvReply track(NodePartition part, long moveEpoch) {
    synchronized (part) {
      NodePartition.Tracking t = part.tracking;
      boolean same = t != null && t.moveEpoch() == moveEpoch;
      if (same && (part.state == PartitionState.OWNED
          || part.state == PartitionState.MIGRATING_OUT && part.moveEpoch == moveEpoch)) {
        return KvReply.ok(moveEpoch, new Wire.Writer().i64(t.token()).toBytes());
      }
      if (part.state != PartitionState.OWNED || moveEpoch <= part.epoch
          || moveEpoch <= part.unfencedEpoch || !part.backups.isEmpty()) {
        return part.refused(id, "TRACK at epoch " + moveEpoch);
      }
      long token;
      do {
        token = TOKENS.nextLong();
      } while (token == 0);
      part.tracking = new NodePartition.Tracking(moveEpoch, token,
          new java.util.TreeSet<>(Arrays::compareUnsigned));
      return KvReply.ok(moveEpoch, new Wire.Writer().i64(token).toBytes());
    }
  }

  /**
   * Source, fenced: one page of the keys written since the pre-copy with {@code token} began,
   * with their (frozen) values. Refused when this node has no such tracking (it restarted, or
   * the move was rolled back): the target must then copy in full.
   */
  KvReply delta(NodePartition part, long moveEpoch, long token, byte[] after, int max)
      throws IOException {
    if (max < 1) {
      return KvReply.of(Status.ERROR, 0, "page size must be >= 1: " + max);
    }
    KvReply reply;
    long fenceSeq;
    synchronized (part) {
      NodePartition.Tracking t = part.tracking;
      if (part.state != PartitionState.MIGRATING_OUT || part.moveEpoch != moveEpoch || t == null
          || t.moveEpoch() != moveEpoch || t.token() != token) {
        return part.refused(id, "DELTA (no pre-copy tracking with that token: copy in full)");
      }
      java.util.NavigableSet<byte[]> tail = after == null ? t.dirty() : t.dirty().tailSet(after,
          false);
      reply = KvReply.ok(part.moveEpoch, page(tail, part.data::get, tail.size(), max));
      fenceSeq = part.fenceSeq;
    }
    return fencedPage(reply, fenceSeq);
  }

  /** Catch-up rounds of a pre-copy (see {@link #precopy}): at most this many... */
  private static final int DRAIN_ROUNDS = 8;
  /** ...and none after one that brought this few keys. */
  private static final int DRAIN_ENOUGH = 256;

  /** copyPages' answer when the source refused a DELTA: its tracking is gone, copy in full. */
  private static final KvReply SOURCE_LOST_TRACKING = KvReply.of(Status.REFUSED, 0,
      "the source has no tracking for this pre-copy");

  /**
   * Target: makes the partition whole from the fenced source and answers RECEIVED. After a
   * pre-copy (see {@link #precopy}) it pulls only the keys written since, else everything.
   */
  KvReply receive(NodePartition part, long moveEpoch, String source) throws IOException {
    InetSocketAddress from;
    try {
      from = parseAddress(source); // before any state change: a bad one left it RECEIVING
    } catch (IllegalArgumentException e) {
      return KvReply.of(Status.ERROR, 0, "node " + id + ": RECEIVE: " + e.getMessage());
    }
    long token;
    synchronized (part) {
      if (part.state == PartitionState.RECEIVED && part.moveEpoch == moveEpoch) {
        return KvReply.ok(moveEpoch, null);
      }
      boolean restart = part.state == PartitionState.RECEIVING && part.moveEpoch == moveEpoch;
      if (part.pulling || !(restart || part.state == PartitionState.ABSENT)
          || moveEpoch <= part.epoch) {
        return part.refused(id, "RECEIVE at epoch " + moveEpoch);
      }
      part.pulling = true;
      token = restart ? part.precopyToken : 0;
      if (token == 0) {
        stateChange(part, PartitionState.RECEIVING, part.epoch, moveEpoch, true);
      }
    }
    try {
      // A copy may run twice (see NodeConnectionPool.withConnection): it starts over (DELTA and
      // SNAPSHOT change nothing on the source), and a page applied twice holds the same
      // values, since keys are never deleted.
      return copySources.withConnection(source,
          peer -> receiveFrom(peer, part, moveEpoch, from, token));
    } finally {
      synchronized (part) {
        part.pulling = false;
      }
    }
  }

  private KvReply receiveFrom(NodeConnection peer, NodePartition part, long moveEpoch,
      InetSocketAddress from, long token) throws IOException {
    if (token != 0) {
      KvReply failed = copyPages(part, moveEpoch, peer, from, Wire.DELTA, token);
      if (failed == null) {
        return received(part, moveEpoch);
      }
      if (failed != SOURCE_LOST_TRACKING) {
        return failed;
      }
      synchronized (part) { // the source restarted since the pre-copy: start over, in full
        if (part.state != PartitionState.RECEIVING || part.moveEpoch != moveEpoch) {
          return part.refused(id, "RECEIVE (aborted meanwhile)");
        }
        stateChange(part, PartitionState.RECEIVING, part.epoch, moveEpoch, true);
      }
    }
    KvReply failed = copyPages(part, moveEpoch, peer, from, Wire.SNAPSHOT, 0);
    return failed != null ? failed : received(part, moveEpoch);
  }

  /**
   * Target: copies the partition from its source while the source still serves it, so that
   * the fenced part of the move ({@link #receive}) ships only what was written meanwhile. The
   * source records the keys written from before the first page on (TRACK), so a key written
   * after its page was taken is in the delta. Stays RECEIVING; answers OK when the copy is
   * here. The pre-copy is not durable: after a restart of either node the move copies in full.
   */
  KvReply precopy(NodePartition part, long moveEpoch, String source) throws IOException {
    InetSocketAddress from;
    try {
      from = parseAddress(source);
    } catch (IllegalArgumentException e) {
      return KvReply.of(Status.ERROR, 0, "node " + id + ": PRECOPY: " + e.getMessage());
    }
    synchronized (part) {
      boolean same = part.moveEpoch == moveEpoch;
      if (same && (part.state == PartitionState.RECEIVED
          || part.state == PartitionState.RECEIVING && part.precopyToken != 0)) {
        return KvReply.ok(moveEpoch, null); // done already
      }
      boolean restart = part.state == PartitionState.RECEIVING && same;
      if (part.pulling || !(restart || part.state == PartitionState.ABSENT)
          || moveEpoch <= part.epoch) {
        return part.refused(id, "PRECOPY at epoch " + moveEpoch);
      }
      part.pulling = true;
      stateChange(part, PartitionState.RECEIVING, part.epoch, moveEpoch, true);
    }
    try {
      // may run twice (see receive): a pre-copy that starts over tracks and copies every key
      return copySources.withConnection(source, peer -> precopyFrom(peer, part, moveEpoch, from));
    } finally {
      synchronized (part) {
        part.pulling = false;
      }
    }
  }

  private KvReply precopyFrom(NodeConnection peer, NodePartition part, long moveEpoch,
      InetSocketAddress from) throws IOException {
    KvReply tracked = peer.call(NodeConnection.request(Wire.TRACK, part.id, moveEpoch)
        .toBytes());
    if (!tracked.isOk()) {
      return KvReply.of(tracked.status() == Status.ERROR ? Status.ERROR : Status.REFUSED,
          moveEpoch, "pre-copy of partition " + part.id + ": " + from + " will not track it: "
              + tracked);
    }
    long token = new Wire.Reader(tracked.value()).i64();
    KvReply failed = copyPages(part, moveEpoch, peer, from, Wire.PRECOPY, token);
    // Catch up with the writes made during the copy, a round at a time, until a round brings
    // few keys (the writes then outpace nothing) or after a few rounds (they outpace us).
    for (int round = 0; failed == null && round < DRAIN_ROUNDS; round++) {
      long before = received.entries();
      failed = copyPages(part, moveEpoch, peer, from, Wire.DRAIN, token);
      if (received.entries() - before <= DRAIN_ENOUGH) {
        break;
      }
    }
    if (failed != null) {
      return failed;
    }
    synchronized (part) {
      if (part.state != PartitionState.RECEIVING || part.moveEpoch != moveEpoch) {
        return part.refused(id, "PRECOPY (aborted meanwhile)");
      }
      part.precopyToken = token;
      return KvReply.ok(moveEpoch, new Wire.Writer().i64(part.data.size()).toBytes());
    }
  }

  /**
   * Pulls pages of {@code op} (SNAPSHOT: every key; PRECOPY: every key, throttled, while the
   * source serves; DRAIN: the keys written meanwhile, throttled, while it serves; DELTA: the
   * keys written since the last of those, under the fence) into the RECEIVING partition,
   * logging each key. Null when done, else
   * the answer to give ({@link #SOURCE_LOST_TRACKING} when the source refused a DELTA).
   */
  private KvReply copyPages(NodePartition part, long moveEpoch, NodeConnection peer,
      InetSocketAddress source, byte op, long token) throws IOException {
    byte[] after = null;
    while (true) {
      long pageStart = System.nanoTime();
      byte wireOp = op == Wire.PRECOPY ? Wire.SNAPSHOT : op;
      Wire.Writer request = NodeConnection.request(wireOp, part.id, moveEpoch);
      if (op == Wire.DELTA || op == Wire.DRAIN) {
        request.i64(token);
      }
      if (op != Wire.DRAIN) {
        request.bytes(after); // a drain takes keys out of the record: no cursor
      }
      boolean serving = op == Wire.PRECOPY || op == Wire.DRAIN;
      KvReply reply = peer.call(request.i32(serving ? SERVING_PAGE : PAGE).toBytes());
      if (reply.status() != Status.OK) {
        if (op == Wire.DELTA && reply.status() == Status.REFUSED) {
          return SOURCE_LOST_TRACKING;
        }
        // a refusal is final (the source is not fenced for this move); I/O errors are not
        return KvReply.of(reply.status() == Status.ERROR ? Status.ERROR : Status.REFUSED,
            moveEpoch, "copy of partition " + part.id + " from " + source + " failed: " + reply);
      }
      Wire.Reader page = new Wire.Reader(reply.value());
      int count = page.i32();
      synchronized (part) {
        if (part.state != PartitionState.RECEIVING || part.moveEpoch != moveEpoch) {
          return part.refused(id, "RECEIVE (aborted meanwhile)");
        }
        long pageBytes = 0;
        for (int i = 0; i < count; i++) {
          byte[] key = page.bytes();
          byte[] value = page.bytes();
          log.append(putRecord(part.id, key, value));
          part.data.put(key, value);
          after = key;
          pageBytes += key.length + value.length;
        }
        received.page(count, pageBytes);
      }
      if (page.i8() == 0) {
        return null;
      }
      if (op == Wire.PRECOPY || op == Wire.DRAIN) {
        pause(System.nanoTime() - pageStart);
      }
    }
  }

  /**
   * A pre-copy runs while the partition serves, so it yields: after each page it pauses as long
   * as the page took, leaving at least half of its core's time to the requests. (Under the
   * fence, the copy runs flat out: there every millisecond is one of refused writes.)
   */
  static void pause(long nanos) throws IOException {
    try {
      java.util.concurrent.TimeUnit.NANOSECONDS.sleep(
          Math.min(nanos * SERVING_PAUSE_FACTOR, 50_000_000L));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("pre-copy interrupted");
    }
  }

  /** Target: every key is here; once it is durable, the partition is RECEIVED. */
  private KvReply received(NodePartition part, long moveEpoch) throws IOException {
    // the RECEIVED record follows every copied key in the log: once it is durable, so are they
    synchronized (part) {
      if (part.state != PartitionState.RECEIVING || part.moveEpoch != moveEpoch) {
        return part.refused(id, "RECEIVE (aborted meanwhile)");
      }
      stateChange(part, PartitionState.RECEIVED, part.epoch, moveEpoch, false);
      received.completed();
      return KvReply.ok(moveEpoch, new Wire.Writer().i64(part.data.size()).toBytes());
    }
  }

  KvReply activate(NodePartition part, long epoch) throws IOException {
    synchronized (part) {
      if (part.state == PartitionState.OWNED && part.epoch == epoch) {
        return KvReply.ok(epoch, null);
      }
      if (part.state != PartitionState.RECEIVED || epoch < part.moveEpoch) {
        return part.refused(id, "ACTIVATE at epoch " + epoch);
      }
      // Answered before its record is durable, which takes an fsync out of the window in which
      // the partition refuses writes. The data it serves is durable already (RECEIVED), and
      // every read or write served from now on waits for a later record of this log, so for
      // this one too. A crash before then (about one fsync: the record is forced in the
      // background) brings the node back RECEIVED, and the coordinator activates it again at
      // its next commit or leader start, as after an ACTIVATE that never arrived: the partition
      // is unavailable meanwhile, never wrong.
      log.forceSoon(applyStateChange(part, PartitionState.OWNED, epoch, 0, false));
      return KvReply.ok(epoch, null);
    }
  }

  KvReply abort(NodePartition part, long moveEpoch) throws IOException {
    synchronized (part) {
      if (part.state == PartitionState.ABSENT) {
        return KvReply.ok(part.epoch, null);
      }
      boolean incoming = part.state == PartitionState.RECEIVING
          || part.state == PartitionState.RECEIVED;
      if (!incoming || part.moveEpoch != moveEpoch) {
        return part.refused(id, "ABORT at epoch " + moveEpoch);
      }
      return stateChange(part, PartitionState.ABSENT, part.epoch, 0, true);
    }
  }

  KvReply drop(NodePartition part, long epoch) throws IOException {
    synchronized (part) {
      part.tracking = null;
      if (part.state == PartitionState.ABSENT) {
        return KvReply.ok(part.epoch, null);
      }
      boolean deposed = part.state == PartitionState.OWNED && !part.backups.isEmpty()
          && epoch > part.epoch; // a replicated primary that a failover left behind
      if (part.state == PartitionState.BACKUP && epoch >= part.epoch || deposed) {
        replication.resetReplica(part);
        return stateChange(part, PartitionState.ABSENT, epoch, 0, true);
      }
      if (part.state != PartitionState.MIGRATING_OUT || epoch < part.moveEpoch) {
        return part.refused(id, "DROP at epoch " + epoch);
      }
      return stateChange(part, PartitionState.ABSENT, epoch, 0, true);
    }
  }
}
