package io.partkit.kvstore;

import static io.partkit.kvstore.LogRecords.LOG_CLEAR;
import static io.partkit.kvstore.LogRecords.LOG_PUT;
import static io.partkit.kvstore.LogRecords.LOG_REPLICA;
import static io.partkit.kvstore.LogRecords.LOG_RPUT;
import static io.partkit.kvstore.LogRecords.LOG_SPLIT_PREPARE;
import static io.partkit.kvstore.LogRecords.LOG_STATE;
import static io.partkit.kvstore.LogRecords.clearRecord;
import static io.partkit.kvstore.LogRecords.putRecord;
import static io.partkit.kvstore.LogRecords.replicaRecord;
import static io.partkit.kvstore.LogRecords.replicatedPutRecord;
import static io.partkit.kvstore.LogRecords.stateRecord;

import io.partkit.kvstore.KvReply.Status;
import io.partkit.spi.NodeId;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node: a thread per connection over blocking sockets (simple, and enough for a reference
 * store of a few nodes), a lock per partition, a write-ahead log with group commit.
 *
 * <p>Why the states are enforced here and not only in the executor: the node is the one place
 * that sees every request, so fencing is checked where the data lives (the "fencing token" of
 * Kleppmann, Designing Data-Intensive Applications, ch. 8). The target decides atomically
 * between ACTIVATE and ABORT, so a migration that is rolled back can never also be activated.
 */
final class TcpKvNode implements KvNode {

  /** SPLIT phases (the int8 after the header). */
  static final int SPLIT_PREPARE = 1;
  static final int SPLIT_APPLY = 2;
  static final int SPLIT_ABORT = 3;
  static final int SPLIT_QUERY = 4;
  /** CONFIGURE roles (the int8 after the header). */
  static final int ROLE_PRIMARY = 1;
  static final int ROLE_BACKUP = 2;
  static final int ROLE_JOIN = 3;
  static final int ROLE_PRIMARY_ADDING = 4;
  /** Snapshot pages the target pulls: large enough to amortize a round trip, small in memory. */
  private static final int PAGE = 2048;
  /**
   * Pages copied while the partition serves (pre-copy, drain, a backup's catch-up): smaller, so
   * that the source holds the partition's lock for a shorter time per page.
   */
  static final int SERVING_PAGE = 512;
  /** A copy while the partition serves pauses this many times as long as each page took. */
  private static final int SERVING_PAUSE_FACTOR = 3;
  static final Duration PEER_TIMEOUT = Duration.ofSeconds(10);
  /**
   * How long a primary waits for a backup's answer. A write holds its partition's lock that
   * long at most, so a dead backup stalls the partition's writes for this, then they fail
   * UNAVAILABLE until the coordinator takes the backup out of the replica set.
   */
  private static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(5);

  private static final java.security.SecureRandom TOKENS = new java.security.SecureRandom();

  private final NodeId id;
  private final Path logFile;
  private final Map<Integer, NodePartition> parts = new ConcurrentHashMap<>();
  private final WriteAheadLog log;
  private final ServerSocket server;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  private final UnsafeTestFault fault;
  private final ConnectionLimits limits;
  private final KvSecret secret; // null: admit every peer (loopback only)
  private final ReplicaLinks links;
  private final NodeSplits splits;
  private final NodeReplication replication;
  /**
   * Connections to the sources this node copies from: a pre-copy leaves one open, and the
   * fenced RECEIVE that follows reuses it instead of connecting and shaking hands again inside
   * the window in which the partition refuses writes.
   */
  private final NodeConnectionPool copySources;
  private final java.util.concurrent.atomic.AtomicLong keysCopiedIn =
      new java.util.concurrent.atomic.AtomicLong();

  private TcpKvNode(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, KvSecret secret) throws IOException {
    if (secret == null && !bind.getAddress().isLoopbackAddress()) {
      throw new IllegalArgumentException("node " + id + " would listen on " + bind
          + " with no shared secret: anyone who reaches it could fence, drop or overwrite"
          + " partitions; give it the cluster's secret (--secret-file FILE) or bind loopback");
    }
    this.id = id;
    this.fault = fault;
    this.limits = limits;
    this.secret = secret;
    this.links = new ReplicaLinks(REPLICA_TIMEOUT, secret);
    this.copySources = new NodeConnectionPool(PEER_TIMEOUT, secret);
    Files.createDirectories(dataDir);
    this.logFile = dataDir.resolve("wal.log");
    this.splits = new NodeSplits(id, logFile, parts);
    WriteAheadLog.open(logFile, this::replay).close();
    WriteAheadLog.rewrite(logFile, compacted());
    this.log = WriteAheadLog.open(logFile, body -> { });
    splits.attach(log);
    this.replication = new NodeReplication(id, log, links, secret, keysCopiedIn);
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true); // a restarted node takes its port back at once
      socket.bind(bind, 128);
    } catch (IOException e) {
      socket.close();
      log.close();
      throw new IOException("node " + id + " cannot listen on " + bind + ": " + e.getMessage(), e);
    }
    this.server = socket;
  }

  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind) throws IOException {
    return start(id, dataDir, bind, UnsafeTestFault.NONE);
  }

  /** A node with a deliberate bug, for tests that must see a broken store caught. */
  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault)
      throws IOException {
    return start(id, dataDir, bind, fault, ConnectionLimits.DEFAULT, null);
  }

  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, KvSecret secret) throws IOException {
    TcpKvNode node = new TcpKvNode(id, dataDir, bind, fault, limits, secret);
    if (fault != UnsafeTestFault.NONE) {
      System.err.println("node " + id + ": UNSAFE TEST FAULT " + fault.cliName()
          + " is on: this node loses data on purpose");
    }
    Thread acceptor = new Thread(node::acceptLoop, "kvnode-" + id + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    return node;
  }

  // ---------------------------------------------------------------- log replay and compaction

  private void replay(Wire.Reader r) throws IOException {
    byte type = r.i8();
    int partition = r.i32();
    if (type >= LOG_SPLIT_PREPARE) {
      splits.replay(type, r);
      return;
    }
    NodePartition part = part(partition);
    switch (type) {
      case LOG_PUT -> {
        byte[] key = r.bytes();
        byte[] value = r.bytes();
        part.data.put(key, value);
      }
      case LOG_STATE -> {
        part.state = PartitionState.ofCode(r.i8());
        part.epoch = r.i64();
        part.moveEpoch = r.i64();
        part.unfencedEpoch = r.i64();
      }
      case LOG_CLEAR -> part.data.clear();
      case LOG_RPUT -> {
        long seq = r.i64();
        part.applyReplicated(seq, r.bytes(), r.bytes());
      }
      case LOG_REPLICA -> {
        part.seq = r.i64();
        part.lastKey = r.bytes();
        part.lastValue = r.bytes();
        part.catchingUp = r.i8() == 1;
        part.catchupLost = part.catchingUp; // a replay always follows a restart
        int n = r.i32();
        List<String> backups = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          backups.add(r.utf());
        }
        part.backups = List.copyOf(backups);
        part.synced = backups.isEmpty(); // a restarted primary levels its backups first
      }
      default -> throw new IOException("unknown log record type " + type + " in " + logFile);
    }
  }

  private List<byte[]> compacted() {
    List<byte[]> records = new ArrayList<>();
    for (NodePartition part : parts.values()) {
      if (part.state == PartitionState.ABSENT && part.epoch == 0) {
        continue;
      }
      records.add(stateRecord(part));
      for (Map.Entry<byte[], byte[]> e : part.data.entrySet()) {
        records.add(putRecord(part.id, e.getKey(), e.getValue()));
      }
      if (isReplica(part)) {
        records.add(replicaRecord(part)); // after the data: it restores seq and the last write
      }
    }
    splits.compacted(records);
    return records;
  }

  private static boolean isReplica(NodePartition part) {
    return part.state == PartitionState.BACKUP || !part.backups.isEmpty() || part.seq > 0;
  }

  private NodePartition part(int partition) {
    return parts.computeIfAbsent(partition, NodePartition::new);
  }

  /**
   * The partition's state for a request that never changes an ABSENT partition (every request
   * but ASSIGN, RECEIVE and PRECOPY): the held one, or a fresh ABSENT one that is not kept.
   * Creating state for any partition id a request names let 500k STATUS requests leave 500k
   * objects behind.
   */
  private NodePartition lookup(int partition) {
    NodePartition held = parts.get(partition);
    return held != null ? held : new NodePartition(partition);
  }

  // ---------------------------------------------------------------- networking

  private void acceptLoop() {
    while (!closed) {
      Socket socket = null;
      try {
        socket = server.accept();
        if (connections.size() >= limits.maxConnections()) {
          socket.close(); // over the limit: the client sees the connection end and may retry
          continue;
        }
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(Math.toIntExact(limits.idleTimeout().toMillis()));
        connections.add(socket);
        Socket accepted = socket;
        Thread t = new Thread(() -> serve(accepted), "kvnode-" + id + "-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException | RuntimeException | OutOfMemoryError e) {
        // Whatever one connection costs, the node must go on accepting: an OutOfMemoryError
        // here (no memory or no native thread for a new connection) used to end this loop,
        // leaving a live process that never accepted again.
        if (socket != null) {
          connections.remove(socket);
          closeQuietly(socket);
        }
        if (!closed) {
          System.err.println("node " + id + ": accept failed: " + e);
        }
      }
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      // small buffers: a connection's fixed cost, times maxConnections
      InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 8192);
      try {
        Handshake.greet(in, out, secret);
      } catch (IOException e) {
        return; // not one of the cluster's: closed before any request is read
      }
      byte[] body;
      while ((body = Wire.readFrame(in)) != null) {
        KvReply reply;
        try {
          reply = handle(new Wire.Reader(body));
        } catch (IOException e) {
          reply = KvReply.of(Status.ERROR, 0, "node " + id + ": " + e.getMessage());
        } catch (RuntimeException e) {
          // a bug or a failed log (UncheckedIOException): the client learns why, and the
          // connection, which is not at fault, stays usable
          reply = KvReply.of(Status.ERROR, 0, "node " + id + ": " + e);
        }
        Wire.writeFrame(out, NodeConnection.encode(reply));
      }
    } catch (SocketException e) {
      // the peer went away or the node is closing
    } catch (SocketTimeoutException e) {
      // idle for limits.idleTimeout(): closed to free its thread (a client reopens)
    } catch (IOException e) {
      if (!closed) {
        System.err.println("node " + id + ": connection dropped: " + e);
      }
    } finally {
      connections.remove(socket);
    }
  }

  // ---------------------------------------------------------------- requests

  private KvReply handle(Wire.Reader r) throws IOException {
    byte op = r.i8();
    int partition = r.i32();
    long epoch = r.i64();
    if (partition < 0) {
      return KvReply.of(Status.ERROR, 0, "partition must be >= 0: " + partition);
    }
    NodePartition part = switch (op) {
      case Wire.LIST -> null;
      case Wire.ASSIGN, Wire.RECEIVE, Wire.PRECOPY, Wire.CONFIGURE -> part(partition);
      default -> lookup(partition);
    };
    if (splits.pending() != null && isMove(op)) {
      return KvReply.of(Status.REFUSED, splits.pending().epoch(), "node " + id + " is splitting"
          + " its partitions for epoch " + splits.pending().epoch() + ": no partition changes"
          + " hands until the split is applied or aborted");
    }
    return switch (op) {
      case Wire.GET -> get(part, epoch, r.bytes());
      case Wire.PUT -> write(part, epoch, r.bytes(), false, null, r.bytes());
      case Wire.CAS -> {
        byte[] key = r.bytes();
        byte[] expected = r.bytes();
        yield write(part, epoch, key, true, expected, r.bytes());
      }
      case Wire.ASSIGN -> assign(part, epoch);
      case Wire.FENCE -> fence(part, epoch);
      case Wire.UNFENCE -> unfence(part, epoch);
      case Wire.SNAPSHOT -> snapshot(part, epoch, r.bytes(), r.i32());
      case Wire.RECEIVE -> receive(part, epoch, r.utf());
      case Wire.TRACK -> track(part, epoch);
      case Wire.PRECOPY -> precopy(part, epoch, r.utf());
      case Wire.DELTA -> delta(part, epoch, r.i64(), r.bytes(), r.i32());
      case Wire.DRAIN -> drain(part, epoch, r.i64(), r.i32());
      case Wire.ACTIVATE -> activate(part, epoch);
      case Wire.ABORT -> abort(part, epoch);
      case Wire.DROP -> drop(part, epoch);
      case Wire.CONFIGURE -> replication.configure(part, epoch, r);
      case Wire.REPLICATE -> {
        long seq = r.i64();
        byte[] key = r.bytes();
        yield replication.replicate(part, epoch, seq, key, r.bytes());
      }
      case Wire.CONFIRM -> replication.confirmEpoch(part, epoch);
      case Wire.CATCHUP -> replication.catchUp(part, epoch, r.utf());
      case Wire.STATUS -> {
        synchronized (part) { // replicas also tell their last write's seq and whether caught up
          yield KvReply.ok(part.visibleEpoch(), new Wire.Writer().i8(part.state.code())
              .i64(part.data.size()).i64(part.seq)
              .i8(part.catchingUp || part.catchupLost ? 1 : 0).toBytes());
        }
      }
      case Wire.LIST -> list();
      case Wire.SPLIT -> splits.split(epoch, r);
      default -> KvReply.of(Status.ERROR, 0, "unknown op " + op);
    };
  }

  /** The ops that start moving a partition or its replicas: none while a split is pending. */
  private static boolean isMove(byte op) {
    return op == Wire.ASSIGN || op == Wire.FENCE || op == Wire.TRACK || op == Wire.RECEIVE
        || op == Wire.PRECOPY || op == Wire.CONFIGURE;
  }

  /** Why a data request is not served, or null when it is. Caller holds the part's lock. */
  private KvReply refusal(NodePartition part, long epoch) {
    if (fault == UnsafeTestFault.SKIP_EPOCH_CHECK
        && (part.state == PartitionState.OWNED || part.state == PartitionState.ABSENT
            && part.epoch > 0)) {
      return null; // the bug: whatever epoch the client carries, and after a drop too
    }
    if (fault == UnsafeTestFault.SERVE_WHILE_FENCED && part.state == PartitionState.MIGRATING_OUT) {
      return null; // the bug: the fence does not stop writes, so the copy misses some
    }
    NodeSplits.Split split = splits.pending();
    return switch (part.state) {
      case OWNED -> split != null && part.epoch < split.epoch()
          ? KvReply.of(Status.MOVING, split.epoch(), "partition " + part.id + " on " + id
              + " is being split for epoch " + split.epoch())
          : epoch < part.epoch
          ? KvReply.of(Status.REDIRECT, part.epoch, "stale epoch " + epoch + " for partition "
              + part.id + ": " + id + " owns it since epoch " + part.epoch)
          : null;
      case MIGRATING_OUT, RECEIVING, RECEIVED -> KvReply.of(Status.MOVING, part.moveEpoch,
          "partition " + part.id + " is moving (" + part.state + " on " + id + ")");
      case ABSENT -> KvReply.of(Status.REDIRECT, part.epoch,
          "partition " + part.id + " is not owned by " + id);
      case BACKUP -> KvReply.of(Status.REDIRECT, part.epoch,
          "partition " + part.id + " is a backup on " + id + " at epoch " + part.epoch);
    };
  }

  private KvReply get(NodePartition part, long epoch, byte[] key) throws IOException {
    if (key == null) {
      return KvReply.of(Status.ERROR, 0, "key must not be null");
    }
    byte[] value;
    long seq;
    long owned;
    List<String> backups;
    synchronized (part) {
      KvReply no = refusal(part, epoch);
      if (no != null) {
        return no;
      }
      KvReply unsynced = replication.syncBackups(part);
      if (unsynced != null) {
        return unsynced;
      }
      value = part.data.get(key);
      owned = part.epoch;
      backups = part.backups;
      seq = log.lastAppended();
    }
    log.awaitDurable(seq); // never expose a value that a crash could still take back
    KvReply unconfirmed = replication.confirmWithBackups(part.id, owned, backups, "read");
    return unconfirmed != null ? unconfirmed : KvReply.ok(owned, value);
  }

  private KvReply write(NodePartition part, long epoch, byte[] key, boolean cas, byte[] expected,
      byte[] value) throws IOException {
    if (key == null || value == null) {
      return KvReply.of(Status.ERROR, 0, "key and value must not be null");
    }
    long seq;
    long owned;
    byte[] differing = null;
    boolean failed = false;
    List<String> backups;
    synchronized (part) {
      KvReply no = refusal(part, epoch);
      if (no != null) {
        return no;
      }
      KvReply unsynced = replication.syncBackups(part);
      if (unsynced != null) {
        return unsynced;
      }
      owned = part.epoch;
      backups = part.backups;
      byte[] current = cas ? part.data.get(key) : null;
      if (cas && !Arrays.equals(current, expected)) {
        differing = current;
        failed = true;
        seq = log.lastAppended(); // the failed CAS read the current value: wait as a read does
      } else if (!part.backups.isEmpty() && fault != UnsafeTestFault.SKIP_REPLICATION) {
        KvReply notReplicated = replication.replicateToBackups(part, key, value);
        if (notReplicated != null) {
          return notReplicated;
        }
        // Logged and applied only once every backup holds it: what this node serves is what
        // every replica has, so a read here never shows a write a failover could take back.
        long next = part.seq + 1;
        seq = log.append(replicatedPutRecord(part.id, next, key, value));
        part.applyReplicated(next, key, value);
        part.markDirty(key);
      } else if (fault == UnsafeTestFault.ACK_BEFORE_LOG) {
        seq = log.lastAppended(); // the bug: acknowledged from memory only
        part.data.put(key, value);
        part.markDirty(key);
      } else {
        seq = log.append(putRecord(part.id, key, value));
        part.data.put(key, value);
        part.markDirty(key);
      }
    }
    log.awaitDurable(seq);
    if (failed) {
      KvReply unconfirmed = replication.confirmWithBackups(part.id, owned, backups,
          "compare-and-set");
      return unconfirmed != null ? unconfirmed
          : new KvReply(Status.CAS_FAILED, owned, differing, "value differs");
    }
    return KvReply.ok(owned, null);
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
      if (clear) {
        log.append(clearRecord(part.id));
        part.data.clear();
      }
      part.state = state;
      part.epoch = epoch;
      part.moveEpoch = moveEpoch;
      return log.append(stateRecord(part));
    }
  }

  private KvReply assign(NodePartition part, long epoch) throws IOException {
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

  private KvReply fence(NodePartition part, long moveEpoch) throws IOException {
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

  private KvReply unfence(NodePartition part, long moveEpoch) throws IOException {
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

  private KvReply snapshot(NodePartition part, long moveEpoch, byte[] after, int max)
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
      Wire.Writer page = new Wire.Writer();
      int count = Math.min(max, tail.size());
      page.i32(count);
      int n = 0;
      for (Map.Entry<byte[], byte[]> e : tail.entrySet()) {
        if (n == count) {
          break;
        }
        page.bytes(e.getKey()).bytes(e.getValue());
        n++;
      }
      page.i8(tail.size() > count ? 1 : 0);
      reply = KvReply.ok(part.moveEpoch, page.toBytes());
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
  private KvReply drain(NodePartition part, long moveEpoch, long token, int max) {
    if (max < 1) {
      return KvReply.of(Status.ERROR, 0, "page size must be >= 1: " + max);
    }
    synchronized (part) {
      NodePartition.Tracking t = part.tracking;
      if (part.state != PartitionState.OWNED || t == null || t.moveEpoch() != moveEpoch
          || t.token() != token) {
        return part.refused(id, "DRAIN (no pre-copy tracking with that token)");
      }
      Wire.Writer page = new Wire.Writer();
      int count = Math.min(max, t.dirty().size());
      page.i32(count);
      for (int n = 0; n < count; n++) {
        byte[] key = t.dirty().pollFirst();
        page.bytes(key).bytes(part.data.get(key));
      }
      page.i8(t.dirty().isEmpty() ? 0 : 1);
      return KvReply.ok(moveEpoch, page.toBytes());
    }
  }

  /**
   * Source: starts recording the keys written to an OWNED partition, for a target about to
   * pre-copy it at {@code moveEpoch}; answers the tracking's token (int64). Idempotent: the same
   * move gets the same token (after the fence too).
   */
  private KvReply track(NodePartition part, long moveEpoch) {
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
  private KvReply delta(NodePartition part, long moveEpoch, long token, byte[] after, int max)
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
      Wire.Writer page = new Wire.Writer();
      int count = Math.min(max, tail.size());
      page.i32(count);
      int n = 0;
      for (byte[] key : tail) {
        if (n == count) {
          break;
        }
        page.bytes(key).bytes(part.data.get(key));
        n++;
      }
      page.i8(tail.size() > count ? 1 : 0);
      reply = KvReply.ok(part.moveEpoch, page.toBytes());
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
  private KvReply receive(NodePartition part, long moveEpoch, String source) throws IOException {
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
  private KvReply precopy(NodePartition part, long moveEpoch, String source) throws IOException {
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
      long before = keysCopiedIn.get();
      failed = copyPages(part, moveEpoch, peer, from, Wire.DRAIN, token);
      if (keysCopiedIn.get() - before <= DRAIN_ENOUGH) {
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
        for (int i = 0; i < count; i++) {
          byte[] key = page.bytes();
          byte[] value = page.bytes();
          log.append(putRecord(part.id, key, value));
          part.data.put(key, value);
          after = key;
        }
        keysCopiedIn.addAndGet(count);
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
      return KvReply.ok(moveEpoch, new Wire.Writer().i64(part.data.size()).toBytes());
    }
  }

  private KvReply activate(NodePartition part, long epoch) throws IOException {
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

  private KvReply abort(NodePartition part, long moveEpoch) throws IOException {
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

  private KvReply drop(NodePartition part, long epoch) throws IOException {
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

  private KvReply list() {
    List<PartitionStatus> held = new ArrayList<>();
    for (NodePartition part : parts.values()) {
      PartitionStatus s = status(part.id);
      if (s.state() != PartitionState.ABSENT || s.epoch() > 0) {
        held.add(s);
      }
    }
    Wire.Writer w = new Wire.Writer().i32(held.size());
    for (PartitionStatus s : held) {
      w.i32(s.partition()).i8(s.state().code()).i64(s.epoch()).i64(s.keys());
    }
    return KvReply.ok(0, w.toBytes());
  }

  static InetSocketAddress parseAddress(String hostAndPort) {
    if (hostAndPort == null) {
      throw new IllegalArgumentException("address must be host:port: null");
    }
    int colon = hostAndPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("address must be host:port: '" + hostAndPort + "'");
    }
    try {
      int port = Integer.parseInt(hostAndPort.substring(colon + 1));
      return new InetSocketAddress(hostAndPort.substring(0, colon), port);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("address must be host:port: '" + hostAndPort + "'", e);
    }
  }

  // ---------------------------------------------------------------- KvNode

  @Override
  public NodeId id() {
    return id;
  }

  @Override
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  @Override
  public PartitionStatus status(int partition) {
    NodePartition part = lookup(partition);
    synchronized (part) {
      return new PartitionStatus(partition, part.state, part.visibleEpoch(), part.data.size());
    }
  }

  @Override
  public void close() {
    closed = true;
    links.close();
    copySources.close();
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    for (Socket s : connections) {
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
    try {
      log.close();
    } catch (IOException e) {
      // nothing left to flush: unacknowledged writes are allowed to be lost
    }
  }

  /** How many keys this node has pulled from sources, pre-copies and deltas included (tests). */
  long keysCopiedIn() {
    return keysCopiedIn.get();
  }

  /** How many partitions this node keeps state for (tests: requests must not create any). */
  int partitionsHeld() {
    return parts.size();
  }

  /** Puts the log in the state a failed write or fsync leaves it in (tests of fail-stop). */
  void failLogForTest(IOException cause) {
    log.failForTest(cause);
  }

  @Override
  public String toString() {
    return "KvNode{" + id + " at " + hostAndPort() + "}";
  }
}
