package io.partkit.kvstore.node;

import static io.partkit.kvstore.node.LogRecords.LOG_CLEAR;
import static io.partkit.kvstore.node.LogRecords.LOG_PUT;
import static io.partkit.kvstore.node.LogRecords.LOG_REPLICA;
import static io.partkit.kvstore.node.LogRecords.LOG_RPUT;
import static io.partkit.kvstore.node.LogRecords.LOG_SPLIT_PREPARE;
import static io.partkit.kvstore.node.LogRecords.LOG_STATE;
import static io.partkit.kvstore.node.LogRecords.putRecord;
import static io.partkit.kvstore.node.LogRecords.replicaRecord;
import static io.partkit.kvstore.node.LogRecords.replicatedPutRecord;
import static io.partkit.kvstore.node.LogRecords.stateRecord;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.kvstore.KvLimits;
import io.partkit.replica.node.access.Admission;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.load.LoadAnswer;
import io.partkit.kvstore.wire.Handshake;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.NodeConnectionPool;
import io.partkit.kvstore.wire.NodeStatus;
import io.partkit.kvstore.wire.ScanPage;
import io.partkit.kvstore.wire.SuspectsReport;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.replica.node.load.LoadMeters.Op;
import io.partkit.replica.node.load.NodeLoad;
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
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

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

  static final Duration PEER_TIMEOUT = Duration.ofSeconds(10);

  private final NodeId id;
  private final Path logFile;
  private final Map<Integer, NodePartition> parts = new ConcurrentHashMap<>();
  private final WriteAheadLog log;
  private final ServerSocket server;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  /** Counted down once the node has stopped after its log failed, or on an Error. */
  private final CountDownLatch stopped =
      new CountDownLatch(1);
  /** The Error the node stopped on (fail-stop), or null. */
  private final java.util.concurrent.atomic.AtomicReference<Error> stoppedBy =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final UnsafeTestFault fault;
  /** Counts connections against the node's limits and logs them in (with a secret). */
  private final Admission admission;
  /**
   * The connections' threads, reused: under a flood of connections that never log in, each of
   * which a newer one evicts, starting a thread per connection was most of the cost of an accept,
   * and the accept rate is what a real login waits on. Bounded by the connection budgets.
   */
  private final ExecutorService connectionThreads;
  private final ReplicaLinks links;
  private final NodeSplits splits;
  private final NodeReplication replication;
  private final NodeMigration migration;
  /** The connections to the sources this node copies from (see NodeMigration). */
  private final NodeConnectionPool copySources;
  /** What this node received from others to create copies (the RECEIVED answer). */
  private final CopiesReceived received = new CopiesReceived();
  private final NodeMetrics metrics;
  /** Start from the log as it is, unchecked against its reach ({@link #IGNORE_LOG_REACH}). */
  private final boolean ignoreLogReach;

  /**
   * The command-line override ({@code KvNodeMain}) of the start-up check of the log against its
   * reach: the node serves what its log holds, and acknowledged writes missing from it are lost.
   */
  public static final String IGNORE_LOG_REACH = "--ignore-log-reach";

  private TcpKvNode(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, SharedSecret secret, MeterRegistry registry, Duration replicaTimeout,
      Duration suspectAfter, NodeEvents events, boolean ignoreLogReach) throws IOException {
    if (replicaTimeout.isNegative() || replicaTimeout.isZero()) {
      throw new IllegalArgumentException("node " + id + ": the replica timeout must be positive,"
          + " not " + replicaTimeout.toMillis() + " ms");
    }
    if (suspectAfter.isNegative() || suspectAfter.isZero()
        || suspectAfter.compareTo(replicaTimeout) >= 0) {
      throw new IllegalArgumentException("node " + id + ": the suspicion deadline must be"
          + " positive and shorter than the replica timeout (" + replicaTimeout.toMillis()
          + " ms), not " + suspectAfter.toMillis() + " ms");
    }
    Admission admission = new Admission("node " + id, bind, limits, secret);
    this.id = id;
    this.ignoreLogReach = ignoreLogReach;
    this.fault = fault;
    this.admission = admission;
    this.links = new ReplicaLinks(replicaTimeout, secret);
    this.copySources = new NodeConnectionPool(PEER_TIMEOUT, secret);
    Files.createDirectories(dataDir);
    this.logFile = dataDir.resolve("wal.log");
    this.splits = new NodeSplits(id, logFile, parts);
    this.log = openLog(LogReach.fileFor(logFile));
    log.onFailure(this::logFailed);
    links.onError(e -> stopOnError(e, "calling a replica"));
    splits.attach(log);
    this.replication = new NodeReplication(id, log, links, secret, received, suspectAfter,
        events);
    this.migration = new NodeMigration(id, log, copySources, received, replication, events);
    this.metrics = registry == null ? NodeMetrics.off(id, parts)
        : NodeMetrics.on(id, registry, parts, LoadMeters.DEFAULT_HOT_KEY_WINDOW);
    metrics.meterReceived(received);
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true); // a restarted node takes its port back at once
      socket.bind(bind, 128);
    } catch (IOException e) {
      socket.close();
      log.close();
      metrics.close(); // a registry the caller gave keeps no meter of a node that never ran
      throw new IOException("node " + id + " cannot listen on " + bind + ": " + e.getMessage(), e);
    }
    this.server = socket;
    this.connectionThreads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "kvnode-" + id + "-conn");
      t.setDaemon(true);
      return t;
    });
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
      ConnectionLimits limits, SharedSecret secret) throws IOException {
    return start(id, dataDir, bind, fault, limits, secret, new SimpleMeterRegistry());
  }

  /**
   * A node whose meters go to {@code registry}; null: no meters and no hot-key sketch at all
   * (the benchmark's baseline; its LOAD answer then has key counts only).
   */
  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, SharedSecret secret, MeterRegistry registry) throws IOException {
    return start(id, dataDir, bind, fault, limits, secret, registry, REPLICA_TIMEOUT);
  }

  /**
   * As above, waiting {@code replicaTimeout} for a backup's answer instead of {@link
   * #REPLICA_TIMEOUT} (shorter: a cut-off backup stalls its partitions' writes for less, and is
   * reported to the coordinator sooner; too short for the network: healthy backups are suspected).
   */
  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, SharedSecret secret, MeterRegistry registry, Duration replicaTimeout)
      throws IOException {
    return start(id, dataDir, bind, fault, limits, secret, registry, replicaTimeout,
        KvNode.defaultSuspectAfter(replicaTimeout));
  }

  /**
   * As above, naming a backup that has not answered within {@code suspectAfter} a suspect
   * (shorter than {@code replicaTimeout}): the coordinator may then commit a configuration
   * without it, which ends the wait of the write that was waiting on it.
   */
  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, SharedSecret secret, MeterRegistry registry, Duration replicaTimeout,
      Duration suspectAfter) throws IOException {
    return start(id, dataDir, bind, fault, limits, secret, registry, replicaTimeout, suspectAfter,
        System.err::println);
  }

  /**
   * As above, sending the node's event lines ({@link NodeEvents}: configuration changes,
   * suspicions, shrinks) to {@code events} instead of standard error (a test reads them).
   */
  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, SharedSecret secret, MeterRegistry registry, Duration replicaTimeout,
      Duration suspectAfter, java.util.function.Consumer<String> events) throws IOException {
    return start(id, dataDir, bind, fault, limits, secret, registry, replicaTimeout, suspectAfter,
        events, false);
  }

  /**
   * As above; {@code ignoreLogReach} starts from the log as it is, without checking it against
   * its reach ({@link #IGNORE_LOG_REACH}: what an operator who accepts a loss asks for).
   */
  static TcpKvNode start(NodeId id, Path dataDir, InetSocketAddress bind, UnsafeTestFault fault,
      ConnectionLimits limits, SharedSecret secret, MeterRegistry registry, Duration replicaTimeout,
      Duration suspectAfter, java.util.function.Consumer<String> events, boolean ignoreLogReach)
      throws IOException {
    TcpKvNode node = new TcpKvNode(id, dataDir, bind, fault, limits, secret, registry,
        replicaTimeout, suspectAfter, new NodeEvents(id, events), ignoreLogReach);
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

  /**
   * Replays the log, checks it against the reach recorded beside it, drops a torn tail saying so,
   * compacts, and opens the result for appending.
   */
  private WriteAheadLog openLog(Path reachFile) throws IOException {
    WriteAheadLog.Replayed replayed = WriteAheadLog.replay(logFile, this::replay);
    LogReach.Mark mark = null;
    String damaged = null;
    try {
      mark = LogReach.read(reachFile);
    } catch (LogReach.DamagedException e) {
      damaged = e.getMessage();
    }
    checkReach(replayed, mark, damaged, reachFile);
    if (!replayed.exists() && mark == null) {
      System.err.println("node " + id + ": no write-ahead log in " + logFile.getParent()
          + ": starting empty");
    }
    if (replayed.tornDamage() != null) {
      System.err.println("node " + id + ": dropped a torn tail of " + logFile + " at offset "
          + replayed.intactBytes() + ": " + replayed.tornBytes() + " bytes ("
          + replayed.tornDamage() + "), after " + replayed.records() + " intact records;"
          + " nothing acknowledged was in it (the log's reach was "
          + (mark == null ? "not recorded" : mark.lengthOf(replayed.logId()) + " bytes") + ")");
    }
    WriteAheadLog.Written written;
    LogReach reach = LogReach.open(reachFile);
    try {
      long oldId = replayed.logId();
      long oldLength = replayed.intactBytes();
      written = WriteAheadLog.rewrite(logFile, compacted(),
          next -> reach.write(new LogReach.Mark(oldId, oldLength, next.logId(), next.length())));
      return WriteAheadLog.openWritten(logFile, written, reach);
    } catch (IOException e) {
      reach.close();
      throw new IOException("node " + id + " cannot start: compacting its write-ahead log "
          + logFile + " failed: " + WriteAheadLog.describe(e) + " (the log is left as it was;"
          + " free space in " + logFile.getParent() + " and start it again)", e);
    }
  }

  /**
   * Refuses a log shorter than its recorded reach, or one whose reach is missing or damaged
   * though the log was written with one (it has a log id), unless every partition the node knows
   * of has copies elsewhere: then each comes back as a backup that must join again and catch up
   * before it serves or leads (see {@link NodeReplication}). Only a log from before the reach
   * (no log id) starts without one, and anything with {@link #IGNORE_LOG_REACH}.
   */
  private void checkReach(WriteAheadLog.Replayed replayed, LogReach.Mark mark, String damaged,
      Path reachFile) throws IOException {
    if (ignoreLogReach) {
      System.err.println("node " + id + ": " + IGNORE_LOG_REACH + ": " + logFile + " is not"
          + " checked against its reach (" + (damaged != null ? damaged
              : mark == null ? reachFile + " is missing"
              : "which says " + mark.lengthOf(replayed.logId()) + " bytes") + "); serving its "
          + replayed.records() + " intact records (" + replayed.intactBytes() + " bytes):"
          + " acknowledged writes and state changes missing from it, if it was cut, are lost"
          + " for good");
      return;
    }
    String missing;
    long reached = mark == null ? -1 : mark.lengthOf(replayed.logId());
    if (damaged != null) {
      missing = damaged;
    } else if (mark == null) {
      if (replayed.logId() == 0) {
        if (replayed.exists()) {
          System.err.println("node " + id + ": " + logFile + " is from before the log reach"
              + " (it has no log id), so whether it is whole cannot be checked; starting from"
              + " its " + replayed.records() + " intact records, checked from now on");
        }
        return;
      }
      missing = reachFile + " is missing, though " + logFile + " was written with one (log id "
          + Long.toHexString(replayed.logId()) + "), so whether acknowledged writes are missing"
          + " from its " + replayed.intactBytes() + " bytes of intact records cannot be told";
    } else if (!replayed.exists()) {
      missing = logFile + " is missing, but the node had made " + mark.length()
          + " bytes of it durable (recorded in " + reachFile + ")";
    } else if (reached < 0) {
      missing = logFile + " is not the log this node last wrote (its id "
          + Long.toHexString(replayed.logId()) + ", the reach in " + reachFile + " names "
          + Long.toHexString(mark.logId()) + "): an older or another node's copy";
    } else if (replayed.intactBytes() < reached) {
      missing = logFile + " holds " + replayed.intactBytes() + " bytes of intact records ("
          + replayed.records() + " records) but the node had made " + reached
          + " bytes durable (recorded in " + reachFile + "): " + (reached
          - replayed.intactBytes()) + " bytes of acknowledged writes and state changes are"
          + " missing, from offset " + replayed.intactBytes();
    } else {
      return;
    }
    List<Integer> known = new ArrayList<>();
    List<Integer> single = new ArrayList<>();
    for (NodePartition part : parts.values()) {
      if (part.state == PartitionState.ABSENT && part.data.isEmpty()) {
        continue;
      }
      known.add(part.id);
      if (!isReplica(part) || part.state != PartitionState.OWNED
          && part.state != PartitionState.BACKUP) {
        single.add(part.id);
      }
    }
    known.sort(null);
    single.sort(null);
    if (known.isEmpty() || !single.isEmpty()) {
      throw new LostLogRecordsException("node " + id + " will not start: " + missing + ". "
          + (known.isEmpty() ? "Nothing is left of it to tell which partitions it held."
              : "Partitions " + single + " have no other copy it could catch up from.")
          + " Restore the log from a backup (the node leaves it as it is), or, to accept the"
          + " loss, start the node with " + IGNORE_LOG_REACH + " (KvNodeMain): it then serves"
          + " what the log holds, and acknowledged writes missing from it are lost for good");
    }
    for (int p : known) {
      NodePartition part = parts.get(p);
      part.state = PartitionState.BACKUP;
      part.backups = List.of();
      part.catchingUp = true;
      part.catchupLost = true; // refuses everything until a primary joins it again
    }
    System.err.println("node " + id + ": " + missing + ". Partitions " + known + " have copies"
        + " on other nodes: it holds them as backups that serve nothing and may not lead until"
        + " they have joined again and caught up from the in-sync copies (a reconfiguration of"
        + " their replicas does that: take the node out of the membership and back in)");
  }

  /** The log failed: the node stops (fail-stop), so that its supervisor restarts it. */
  private void logFailed(IOException cause) {
    Error error = errorIn(cause);
    if (error != null) {
      stopOnError(error, "writing its log");
      return;
    }
    System.err.println("node " + id + ": " + cause.getMessage() + "; stopping (it serves"
        + " nothing it cannot log; start it again once the cause is fixed)");
    Thread stopper = new Thread(() -> {
      close();
      stopped.countDown();
    }, "kvnode-" + id + "-stop");
    stopper.setDaemon(true);
    stopper.start();
  }

  /**
   * Stops the node for an {@link Error} on its decision or storage path (out of memory, a stack
   * overflow, a bug that broke an invariant): the memory it decides from may hold a half-made
   * change, so it serves nothing more. The log fails first, which releases every thread waiting
   * on it; the stop is counted down before the close is tried (that may itself fail for want of
   * memory), so {@code KvNodeMain} can end the process however far the close gets.
   */
  void stopOnError(Error error, String where) {
    if (!stoppedBy.compareAndSet(null, error)) {
      return;
    }
    try {
      System.err.println("node " + id + ": stopping on " + error + " while " + where + ": it"
          + " serves nothing more (start it again: it replays its log, losing nothing"
          + " acknowledged)");
    } catch (Error e) {
      // nothing left to say it with; the stop goes on
    }
    try {
      log.failOnError(error);
    } finally {
      stopped.countDown();
    }
    Thread stopper = new Thread(this::close, "kvnode-" + id + "-stop");
    stopper.setDaemon(true);
    stopper.start();
  }

  /** The Error in {@code t} or its causes, or null. */
  static Error errorIn(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof Error e) {
        return e;
      }
    }
    return null;
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
        socket.setTcpNoDelay(true);
        // Counted last: nothing below can throw before the thread that gives the slot back owns
        // it (see Admission.enter).
        Admission.Entry entry = admission.enter(socket);
        if (entry == null) {
          continue; // over the cap, closed: the client sees the connection end and may retry
        }
        connections.add(socket);
        Socket accepted = socket;
        try {
          connectionThreads.execute(() -> serve(accepted, entry));
        } catch (RuntimeException | OutOfMemoryError e) {
          admission.leave(entry);
          throw e;
        }
      } catch (IOException | RuntimeException | OutOfMemoryError e) {
        // Whatever one connection costs, the node must go on accepting: an OutOfMemoryError
        // here (no memory or no native thread for a new connection) must not end this loop,
        // which would leave a live process that never accepts again.
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

  private void serve(Socket socket, Admission.Entry entry) {
    try (socket) {
      // small buffers: a connection's fixed cost, times maxConnections
      InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 8192);
      if (!admission.login(entry, Handshake.nodeFrames(in, out))) {
        // not one of the cluster's, too slow, evicted, or over the cap: closed before requests
        return;
      }
      byte[] body;
      while ((body = Wire.readFrame(in)) != null) {
        KvReply reply;
        try {
          reply = handle(new Wire.Reader(body));
        } catch (IOException e) {
          reply = KvReply.of(Status.ERROR, 0, "node " + id + ": " + e.getMessage());
        } catch (RuntimeException e) {
          Error error = errorIn(e); // e.g. out of memory on a replica-call thread
          if (error != null) {
            stopOnError(error, "serving a request");
            return; // the outcome is unknown to the client: its connection ends unanswered
          }
          // a bug or a failed log (UncheckedIOException): the client learns why, and the
          // connection, which is not at fault, stays usable
          reply = KvReply.of(Status.ERROR, 0, "node " + id + ": " + e);
        } catch (Error e) {
          stopOnError(e, "serving a request");
          return;
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
    } catch (Error e) {
      stopOnError(e, "reading or answering a request"); // the heap is gone for every request
    } finally {
      connections.remove(socket);
      admission.leave(entry);
    }
  }

  // ---------------------------------------------------------------- requests

  private KvReply handle(Wire.Reader r) throws IOException {
    byte op = r.i8();
    try {
      return dispatch(op, r);
    } finally {
      if (changesState(op)) {
        metrics.forgetGone(); // a partition this node served may have left it
      }
    }
  }

  /** Whether a request may change a partition's state (every one but data and queries). */
  private static boolean changesState(byte op) {
    return op != Wire.GET && op != Wire.PUT && op != Wire.CAS && op != Wire.STATUS
        && op != Wire.LIST && op != Wire.LOAD && op != Wire.SUSPECTS && op != Wire.RECEIVED
        && op != Wire.SNAPSHOT
        && op != Wire.DELTA && op != Wire.CONFIRM && op != Wire.REPLICATE;
  }

  private KvReply dispatch(byte op, Wire.Reader r) throws IOException {
    int partition = r.i32();
    long epoch = r.i64();
    if (partition < 0) {
      return KvReply.of(Status.ERROR, 0, "partition must be >= 0: " + partition);
    }
    NodePartition part = switch (op) {
      case Wire.LIST, Wire.LOAD, Wire.SUSPECTS, Wire.RECEIVED -> null;
      case Wire.ASSIGN, Wire.RECEIVE, Wire.PRECOPY, Wire.CONFIGURE -> part(partition);
      default -> lookup(partition);
    };
    NodeSplits.Split split = splits.pending(); // read once: an APPLY or ABORT may clear it
    if (split != null && isMove(op)) {
      return KvReply.of(Status.REFUSED, split.epoch(), "node " + id + " is splitting its"
          + " partitions for epoch " + split.epoch() + ": no partition changes hands until the"
          + " split is applied or aborted");
    }
    return switch (op) {
      case Wire.GET -> {
        long start = metrics.start();
        byte[] key = r.bytes();
        KvReply reply = get(part, epoch, key);
        metrics.served(part, Op.GET, key, length(key), reply, start);
        yield reply;
      }
      case Wire.SCAN -> scan(part, epoch, ScanPage.read(r));
      case Wire.PUT -> {
        long start = metrics.start();
        byte[] key = r.bytes();
        byte[] value = r.bytes();
        KvReply reply = write(part, epoch, key, false, null, value);
        metrics.served(part, Op.PUT, key, length(key) + length(value), reply, start);
        yield reply;
      }
      case Wire.CAS -> {
        long start = metrics.start();
        byte[] key = r.bytes();
        byte[] expected = r.bytes();
        byte[] value = r.bytes();
        KvReply reply = write(part, epoch, key, true, expected, value);
        metrics.served(part, Op.CAS, key,
            length(key) + length(expected) + length(value), reply, start);
        yield reply;
      }
      case Wire.ASSIGN -> migration.assign(part, epoch);
      case Wire.FENCE -> migration.fence(part, epoch);
      case Wire.UNFENCE -> migration.unfence(part, epoch);
      case Wire.SNAPSHOT -> migration.snapshot(part, epoch, r.bytes(), r.i32());
      case Wire.RECEIVE -> migration.receive(part, epoch, r.utf());
      case Wire.TRACK -> migration.track(part, epoch);
      case Wire.PRECOPY -> migration.precopy(part, epoch, r.utf());
      case Wire.DELTA -> migration.delta(part, epoch, r.i64(), r.bytes(), r.i32());
      case Wire.DRAIN -> migration.drain(part, epoch, r.i64(), r.i32());
      case Wire.ACTIVATE -> migration.activate(part, epoch);
      case Wire.ABORT -> migration.abort(part, epoch);
      case Wire.DROP -> migration.drop(part, epoch);
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
          yield new NodeStatus(part.state, part.visibleEpoch(), part.data.size(), part.seq,
              part.catchingUp || part.catchupLost, part.catchupLost).reply();
        }
      }
      case Wire.LIST -> list();
      case Wire.LOAD -> LoadAnswer.reply(metrics.view());
      case Wire.SUSPECTS -> suspects();
      case Wire.RECEIVED -> received.snapshot().reply();
      case Wire.SPLIT -> splits.split(epoch, r);
      default -> KvReply.of(Status.ERROR, 0, "unknown op " + op);
    };
  }

  private static long length(byte[] bytes) {
    return bytes == null ? 0 : bytes.length;
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

  /**
   * Why a data request is not served, or null when it is: a refusal, or backups that cannot be
   * levelled with the primary. Caller holds the part's lock.
   */
  private KvReply notServed(NodePartition part, long epoch) throws IOException {
    KvReply no = refusal(part, epoch);
    if (no == null) {
      no = replication.reconfiguring(part);
    }
    return no != null ? no : replication.syncBackups(part);
  }

  private KvReply get(NodePartition part, long epoch, byte[] key) throws IOException {
    if (key == null) {
      return KvReply.of(Status.ERROR, 0, "key must not be null");
    }
    return read(part, epoch, "read", p -> p.data.get(key), KvReply::ok);
  }

  /**
   * A read served as the protocol serves GET and SCAN: only by the owner at the request's epoch
   * or later, with its backups levelled first, {@code take} under the partition's lock (one
   * moment of the partition), answered once what it saw is durable (never a value a crash could
   * still take back) and the backups confirmed the epoch.
   */
  private <T> KvReply read(NodePartition part, long epoch, String step,
      java.util.function.Function<NodePartition, T> take,
      java.util.function.BiFunction<Long, T, KvReply> answer) throws IOException {
    T taken;
    long seq;
    long owned;
    List<String> backups;
    synchronized (part) {
      KvReply no = notServed(part, epoch);
      if (no != null) {
        return no;
      }
      taken = take.apply(part);
      owned = part.epoch;
      backups = part.backups;
      seq = log.lastAppended();
    }
    log.awaitDurable(seq);
    KvReply unconfirmed = replication.confirmWithBackups(part, owned, backups, step);
    return unconfirmed != null ? unconfirmed : answer.apply(owned, taken);
  }

  private KvReply write(NodePartition part, long epoch, byte[] key, boolean cas, byte[] expected,
      byte[] value) throws IOException {
    if (key == null || value == null) {
      return KvReply.of(Status.ERROR, 0, "key and value must not be null");
    }
    String tooLarge = KvLimits.problem("node " + id + " refuses the write", key.length,
        Math.max(value.length, expected == null ? 0 : expected.length));
    if (tooLarge != null) {
      return KvReply.of(Status.ERROR, 0, tooLarge); // before anything is logged or replicated
    }
    long seq;
    long owned;
    byte[] differing = null;
    boolean failed = false;
    List<String> backups;
    synchronized (part) {
      KvReply no = notServed(part, epoch);
      if (no != null) {
        return no;
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
      KvReply unconfirmed = replication.confirmWithBackups(part, owned, backups,
          "compare-and-set");
      return unconfirmed != null ? unconfirmed
          : new KvReply(Status.CAS_FAILED, owned, differing, "value differs");
    }
    return KvReply.ok(owned, null);
  }

  /** Each led partition's suspected backups, read without its lock (a stalled write holds it). */
  private KvReply suspects() {
    Map<Integer, List<String>> held = new TreeMap<>();
    for (NodePartition part : parts.values()) {
      List<String> suspects = part.suspects; // volatile
      if (!suspects.isEmpty()) {
        held.put(part.id, suspects);
      }
    }
    return new SuspectsReport(held).reply();
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

  /**
   * One page of a partition's keys in a range, served exactly as a GET is: only by the owner
   * at the request's epoch or later (REDIRECT, MOVING otherwise), with its backups levelled
   * first, from data taken under the partition's lock (a page is one moment of the
   * partition), answered once what it saw is durable and the backups confirmed the epoch.
   */
  private KvReply scan(NodePartition part, long epoch, ScanPage.Query q) throws IOException {
    String problem = q.problem();
    if (problem != null) {
      return KvReply.of(Status.ERROR, 0, "node " + id + ": " + problem);
    }
    return read(part, epoch, "scan", p -> ScanPage.take(p.data, q),
        (owned, page) -> page.reply(owned));
  }

  // ---------------------------------------------------------------- KvNode

  @Override
  public NodeId id() {
    return id;
  }

  /** Connections logging in now (tests and measurements of the login budget). */
  int loggingIn() {
    return admission.loggingIn();
  }

  /** Connections closed to make room for newer ones logging in, since the start. */
  long loginEvictions() {
    return admission.evictions();
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
  public NodeLoad load() {
    return metrics.view();
  }

  @Override
  public void close() {
    closed = true;
    admission.close();
    connectionThreads.shutdown(); // each ends as its connection is closed below
    metrics.close();
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
    return received.entries();
  }

  /** How many partitions this node keeps state for (tests: requests must not create any). */
  int partitionsHeld() {
    return parts.size();
  }

  /** The Error the node stopped on, or null if none (see {@link #stopOnError}). */
  Error stoppedBy() {
    return stoppedBy.get();
  }

  /** Tests: the log's group commit runs {@code step} instead of writing and forcing. */
  void commitStepForTest(WriteAheadLog.CommitStep step) {
    log.commitStepForTest(step);
  }

  /**
   * Waits until the node has stopped because its log failed or on an Error ({@link #stoppedBy});
   * false if not within the time.
   */
  boolean awaitStopAfterLogFailure(Duration timeout) throws InterruptedException {
    return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Puts the log in the state a failed write or fsync leaves it in (tests of fail-stop). */
  void failLogForTest(IOException cause) {
    log.failForTest(cause);
  }

  /** Records answered before they are durable (FENCE, ACTIVATE) stay pending (tests). */
  void holdBackgroundForcesForTest() {
    log.holdBackgroundForcesForTest();
  }

  @Override
  public String toString() {
    return "KvNode{" + id + " at " + hostAndPort() + "}";
  }
}
