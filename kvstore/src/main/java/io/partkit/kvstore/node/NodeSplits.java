package io.partkit.kvstore.node;

import static io.partkit.kvstore.node.LogRecords.LOG_SPLIT_ABORT;
import static io.partkit.kvstore.node.LogRecords.LOG_SPLIT_APPLY;
import static io.partkit.kvstore.node.LogRecords.LOG_SPLIT_PREPARE;
import static io.partkit.kvstore.wire.Wire.SPLIT_ABORT;
import static io.partkit.kvstore.wire.Wire.SPLIT_APPLY;
import static io.partkit.kvstore.wire.Wire.SPLIT_PREPARE;
import static io.partkit.kvstore.wire.Wire.SPLIT_QUERY;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.SchemeCodec;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A node's SPLIT requests (a scheme change, see {@link #split}) and the split state they keep,
 * in memory and in the node's log.
 */
final class NodeSplits {

  /**
   * A split prepared on this node: from then on every OWNED partition below {@code epoch} (the
   * old numbering) refuses requests, until the split is applied or aborted.
   */
  record Split(long epoch, byte[] schemeBytes, io.partkit.spi.PartitionScheme scheme,
      int[] owned) {}

  private final NodeId id;
  private final Path logFile;
  /** The node's partitions (the same map): a split renumbers them. */
  private final Map<Integer, NodePartition> parts;
  /** The node's log, from the end of its replay on (a replayed split appends nothing). */
  private WriteAheadLog log;
  /** Serializes the SPLIT phases; a request reads {@link #pending} without it. */
  private final Object splitLock = new Object();
  private volatile Split pending;
  /** The epoch of the last split applied here, 0 if none (guarded by splitLock). */
  private long splitEpoch;

  NodeSplits(NodeId id, Path logFile, Map<Integer, NodePartition> parts) {
    this.id = id;
    this.logFile = logFile;
    this.parts = parts;
  }

  /** Called once the node's log is replayed, before any request: the phases append to it. */
  void attach(WriteAheadLog log) {
    this.log = log;
  }

  /** The split prepared here and neither applied nor aborted, or null (read without a lock). */
  Split pending() {
    return pending;
  }

  /** Adds the records that restore the split state to a compacted log, after the data's. */
  void compacted(List<byte[]> records) {
    if (splitEpoch > 0) {
      records.add(splitRecord(LOG_SPLIT_APPLY, splitEpoch)); // no split pending: the epoch only
    }
    Split s = pending;
    if (s != null) {
      records.add(prepareRecord(s)); // after the data it will renumber
    }
  }

  /**
   * SPLIT: renumbers this node's OWNED partitions into a new scheme whose every partition lies
   * inside one old partition owned by the same node (a token-ring join), in two phases around
   * the coordinator's commit. PREPARE fences every OWNED partition below the split's epoch (the
   * old numbering: all of them, since the split's epoch is above every committed one), so
   * nothing is served in either numbering while clients hold both tables; APPLY renumbers
   * every key by the new scheme's own key -> partition function into new OWNED partitions at
   * the split's epoch, as one log record, so a crash leaves the node before or after it, never
   * half-way; ABORT lifts the fence. QUERY answers int64 the pending split's epoch (0: none),
   * bytes its scheme, int64 the epoch of the last split applied.
   */
  KvReply split(long epoch, Wire.Reader r) throws IOException {
    int phase = r.i8();
    return switch (phase) {
      case SPLIT_PREPARE -> {
        byte[] scheme = r.bytes();
        int n = r.i32();
        if (n < 0 || n > 1 << 24) {
          yield KvReply.of(Status.ERROR, 0, "a node owns 0 to 2^24 partitions, not " + n);
        }
        int[] owned = new int[n];
        for (int i = 0; i < n; i++) {
          owned[i] = r.i32();
        }
        yield prepareSplit(epoch, scheme, owned);
      }
      case SPLIT_APPLY -> applySplit(epoch);
      case SPLIT_ABORT -> abortSplit(epoch);
      case SPLIT_QUERY -> {
        Split s;
        long applied;
        synchronized (splitLock) { // both at once: a split is never both pending and applied
          s = pending;
          applied = splitEpoch;
        }
        yield KvReply.ok(s == null ? 0 : s.epoch(), new Wire.Writer().i64(s == null ? 0
            : s.epoch()).bytes(s == null ? null : s.schemeBytes()).i64(applied).toBytes());
      }
      default -> KvReply.of(Status.ERROR, 0, "unknown SPLIT phase " + phase);
    };
  }

  private KvReply prepareSplit(long epoch, byte[] schemeBytes, int[] owned) throws IOException {
    io.partkit.spi.PartitionScheme scheme;
    try {
      scheme = SchemeCodec.decode(schemeBytes);
    } catch (IOException e) {
      return KvReply.of(Status.ERROR, 0, "node " + id + ": SPLIT: " + e.getMessage());
    }
    int[] sorted = owned.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < sorted.length; i++) {
      if (sorted[i] < 0 || sorted[i] >= scheme.partitionCount()
          || i > 0 && sorted[i] == sorted[i - 1]) {
        return KvReply.of(Status.ERROR, 0, "node " + id + ": SPLIT: owned partitions must be"
            + " distinct, in 0.." + (scheme.partitionCount() - 1) + ": " + sorted[i]);
      }
    }
    long seq;
    synchronized (splitLock) {
      Split held = pending;
      if (held != null) {
        boolean same = held.epoch() == epoch && Arrays.equals(held.schemeBytes(), schemeBytes)
            && Arrays.equals(held.owned(), sorted);
        return same ? KvReply.ok(epoch, null) : KvReply.of(Status.REFUSED, held.epoch(),
            "node " + id + " has another split pending, for epoch " + held.epoch());
      }
      if (epoch <= splitEpoch) {
        return KvReply.of(Status.REFUSED, splitEpoch, "node " + id + " applied a split at epoch "
            + splitEpoch + " already");
      }
      Split split = new Split(epoch, schemeBytes, scheme, sorted);
      // Fence first, then look: a request that passed its check before the fence holds the
      // partition's lock until its write is applied, so once each lock was taken below, the
      // data is frozen and what is checked is what APPLY will renumber.
      pending = split;
      String refusal = null;
      for (NodePartition part : parts.values()) {
        synchronized (part) {
          refusal = splitRefusal(part, split);
        }
        if (refusal != null) {
          break;
        }
      }
      if (refusal != null) {
        pending = null;
        return KvReply.of(Status.REFUSED, epoch, "SPLIT for epoch " + epoch + " refused on "
            + id + ": " + refusal);
      }
      seq = log.append(prepareRecord(split));
    }
    log.awaitDurable(seq);
    return KvReply.ok(epoch, null);
  }

  /** Why a partition cannot be split as {@code split} says, or null. Caller holds its lock. */
  private static String splitRefusal(NodePartition part, Split split) {
    if (part.state == PartitionState.BACKUP || !part.backups.isEmpty() || part.seq > 0) {
      return "partition " + part.id + " is replicated (" + part.state + "); replicated"
          + " partitions are not split";
    }
    if (part.state != PartitionState.OWNED && part.state != PartitionState.ABSENT
        || part.pulling || part.tracking != null) {
      return "partition " + part.id + " is in transit (" + part.state + ")";
    }
    if (part.state == PartitionState.ABSENT) {
      return null;
    }
    if (part.epoch >= split.epoch()) {
      return "partition " + part.id + " is owned at epoch " + part.epoch + " already";
    }
    for (byte[] key : part.data.keySet()) {
      int q = newPartition(split, key);
      if (Arrays.binarySearch(split.owned(), q) < 0) {
        return "key " + java.util.HexFormat.of().formatHex(key) + " of partition " + part.id
            + " falls in new partition " + q + ", which the split does not give this node"
            + " (not a split of what it owns)";
      }
    }
    return null;
  }

  /** By the scheme's own key routing: a key range compares the key itself, not its prefix. */
  private static int newPartition(Split split, byte[] key) {
    return split.scheme().partitionOfKey(key);
  }

  private KvReply applySplit(long epoch) throws IOException {
    long seq;
    synchronized (splitLock) {
      Split s = pending;
      if (s == null || s.epoch() != epoch) {
        return s == null && splitEpoch == epoch ? KvReply.ok(epoch, null)
            : KvReply.of(Status.REFUSED, s == null ? splitEpoch : s.epoch(), "APPLY of the split"
                + " for epoch " + epoch + " refused on " + id + ": " + (s == null
                ? "none is pending" : "the split pending is for epoch " + s.epoch()));
      }
      // logged first: the record replays to exactly this renumbering (the data is frozen)
      seq = log.append(splitRecord(LOG_SPLIT_APPLY, epoch));
      renumber(s);
    }
    log.awaitDurable(seq);
    return KvReply.ok(epoch, null);
  }

  private KvReply abortSplit(long epoch) throws IOException {
    long seq;
    synchronized (splitLock) {
      Split s = pending;
      if (s == null || s.epoch() != epoch) {
        return KvReply.ok(epoch, null); // nothing pending at that epoch: done already
      }
      seq = log.append(splitRecord(LOG_SPLIT_ABORT, epoch));
      pending = null;
    }
    log.awaitDurable(seq);
    return KvReply.ok(epoch, null);
  }

  /**
   * Renumbers the data as {@code s} says (live under splitLock, or in replay): each key of an
   * OWNED partition below the split's epoch goes to the new partition the scheme computes, all
   * new partitions this node owns become OWNED at the split's epoch, every other partition id
   * becomes an empty ABSENT one at that epoch (the old ids mean other ranges now). Each old
   * partition object is turned ABSENT under its lock, so a request that looked it up before the
   * swap is redirected, never served from it.
   */
  private void renumber(Split s) {
    Map<Integer, NodePartition> next = new java.util.HashMap<>();
    for (int q : s.owned()) {
      NodePartition fresh = new NodePartition(q);
      fresh.state = PartitionState.OWNED;
      fresh.epoch = s.epoch();
      next.put(q, fresh);
    }
    List<NodePartition> old = new ArrayList<>(parts.values());
    for (NodePartition part : old) {
      synchronized (part) {
        if (part.state == PartitionState.OWNED && part.epoch < s.epoch()) {
          for (Map.Entry<byte[], byte[]> e : part.data.entrySet()) {
            NodePartition target = next.get(newPartition(s, e.getKey()));
            if (target == null) { // checked by PREPARE, and the data was frozen since
              throw new IllegalStateException("node " + id + ": a key of partition " + part.id
                  + " has no new partition here");
            }
            target.data.put(e.getKey(), e.getValue());
          }
        }
        part.state = PartitionState.ABSENT;
        part.epoch = s.epoch();
        part.moveEpoch = 0;
        part.data.clear();
      }
    }
    for (NodePartition part : old) {
      if (!next.containsKey(part.id)) {
        NodePartition gone = new NodePartition(part.id);
        gone.epoch = s.epoch();
        next.put(part.id, gone);
      }
    }
    parts.putAll(next);
    splitEpoch = s.epoch();
    pending = null;
  }

  /** Replays one of the split's records (LOG_SPLIT_...) from the node's log. */
  void replay(byte type, Wire.Reader r) throws IOException {
    long epoch = r.i64();
    switch (type) {
      case LOG_SPLIT_PREPARE -> {
        byte[] scheme = r.bytes();
        int[] owned = new int[r.i32()];
        for (int i = 0; i < owned.length; i++) {
          owned[i] = r.i32();
        }
        pending = new Split(epoch, scheme, SchemeCodec.decode(scheme), owned);
      }
      case LOG_SPLIT_APPLY -> {
        Split s = pending;
        if (s != null && s.epoch() == epoch) {
          renumber(s);
        }
        splitEpoch = Math.max(splitEpoch, epoch);
      }
      case LOG_SPLIT_ABORT -> {
        if (pending != null && pending.epoch() == epoch) {
          pending = null;
        }
      }
      default -> throw new IOException("unknown log record type " + type + " in " + logFile);
    }
  }

  private static byte[] splitRecord(byte type, long epoch) {
    return new Wire.Writer().i8(type).i32(0).i64(epoch).toBytes();
  }

  private static byte[] prepareRecord(Split s) {
    Wire.Writer w = new Wire.Writer().i8(LOG_SPLIT_PREPARE).i32(0).i64(s.epoch())
        .bytes(s.schemeBytes()).i32(s.owned().length);
    for (int q : s.owned()) {
      w.i32(q);
    }
    return w.toBytes();
  }
}
