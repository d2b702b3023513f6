package io.partkit.replica.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.LogReach;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.Placement;
import io.partkit.replica.Ready;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.ReplyBarriers;
import io.partkit.replica.StateMachine;
import io.partkit.replica.Timing;
import io.partkit.replica.node.access.Admission;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.spi.PartitionScheme;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The driver of one state machine in a process: a {@link Replica} (a node, with its write-ahead
 * log) or the {@link Control}. One thread at a time holds the state machine (a lock): inputs queue
 * in one inbox in arrival order; a node's reader takes the round for them itself when the machine
 * is free (the control's state thread is woken for each), and the state thread ticks it every
 * {@link #TICK_MILLIS} of the monotonic clock (counted from the process's start, as the simulator
 * counts from zero). Each round ends with the {@link Ready}: its records are appended to the
 * log, and its messages wait until the log reports every record appended so far durable (group
 * commit); only then are they queued on their links, in the order the machine made them (a
 * client's reader writes its own client's answer itself, in that order too). A client's reply
 * waits only for the records it depends on ({@link ReplyBarriers}): its key's last write and the
 * records that are not writes, so it may leave before messages made earlier.
 *
 * <p>Any failure on the decision or storage path (an exception or Error from the machine, a
 * failed append or sync) stops the process at once ({@link Runtime#halt}): a node that goes on
 * after it may acknowledge what it never made durable. It restarts from its log. A clean stop
 * ({@link #close}) is not a failure: it ends the state thread before it closes the log, so no
 * failure is ever reported that the close itself caused.
 *
 * <p>Connections: every connection it accepts logs in first ({@link Admission}: with the
 * cluster's secret, the peer proves it, within the connection limits), and every one it opens
 * proves the secret to the peer ({@link Link}); without a secret it listens on loopback only.
 *
 * <p>Endpoints: nodes are 0..n-1, the control {@link Control#ID}, clients {@link #CLIENT_BASE}
 * and up, numbered per connection by the process they connect to; a reply goes back on the
 * connection its request came in on.
 */
final class ReplicaNode implements AutoCloseable {

  static final long TICK_MILLIS = 10;
  static final int CLIENT_BASE = 1_000_000;
  /** Inputs read but not yet handled; readers wait when it is full (TCP pushes back). */
  static final int INBOX_LIMIT = 100_000;
  /** Inputs one round takes at most. */
  static final int ROUND_INPUTS = 256;
  /** Rounds a node's reader takes in a row at most, leaving the rest to the state thread. */
  static final int TURNS = 4;
  /** How long a close waits for the state thread to end before it closes the log anyway. */
  static final long CLOSE_WAIT_MILLIS = 10_000;
  /** A connection's read buffer while it logs in, and after. */
  private static final int LOGIN_BUFFER = 8 << 10;
  private static final int READ_BUFFER = 64 << 10;
  /** Exit status after an Error or a bug on the decision path (sysexits' EX_SOFTWARE). */
  static final int EXIT_ERROR = 70;
  /** Exit status after a failed append or sync (sysexits' EX_IOERR). */
  static final int EXIT_IO = 74;
  /**
   * Exit status of a control that another one succeeded (sysexits' EX_TEMPFAIL): it lost the
   * store's election, or another control wrote the state in the store since it did.
   */
  static final int EXIT_DEPOSED = 75;

  /**
   * How the process stops on a failure on the decision or storage path: {@link #halting} in
   * production; a test records the report instead, to assert that none came.
   */
  @FunctionalInterface
  interface FailStop {

    /** Stops the process with {@code status}, saying {@code why}. */
    void stop(String why, int status);
  }

  /** The production {@link FailStop}: {@link #fail} on {@code log}, which halts the process. */
  static FailStop halting(Consumer<String> log) {
    return (why, status) -> fail(log, why, status);
  }

  /** A table request of a client, handled on the state thread (the control's state). */
  private record TableAsk(int client, long id) {}

  /** A load request of a client, handled on the state thread (the replica's state). */
  private record LoadAsk(int client, long id) {}

  /**
   * A client's request for this node's partitions (below 0: all of them), handled on the state
   * thread (the replica's state).
   */
  private record PartitionsAsk(int client, long id, int partition) {}

  /** The wal's report that records up to {@code count} are durable. */
  private record Synced(long count) {}

  /** A message waiting for the records before it to be durable. */
  private record Waiting(long barrier, Envelope envelope) {}

  /** A command read on the control's standard input, carried out on the state thread. */
  private record Command(ControlCommand command, Consumer<String> answer) {}

  /**
   * A look at the control on the state thread ({@link #inspect}): what it returns is done once
   * the records made so far are durable.
   */
  private record Inspection(Function<Control, Runnable> look) {}

  /**
   * What to do once the records before it are durable (an answer telling of a decision); the
   * barrier is 0 while its round of inputs is handled, then that round's.
   */
  private record Answer(long barrier, Runnable action) {}

  private final int self;
  private final StateMachine machine;
  private final Control control;
  /** The nodes this process sends to, by number (every other node; a control's, all). */
  private final Map<Integer, InetSocketAddress> peers;
  /** A node's controls: what it sends to the control goes to each (one leads, see the class). */
  private final List<InetSocketAddress> controls;
  private final Map<Integer, Link> links = new ConcurrentHashMap<>();
  private final List<Link> controlLinks = new ArrayList<>();
  private final Map<Integer, Link> clients = new ConcurrentHashMap<>();
  /** On a client's reader thread, the link of its client ({@link #toClient}). */
  private final ThreadLocal<Link> ownLink = new ThreadLocal<>();
  private final AtomicInteger nextClient = new AtomicInteger(CLIENT_BASE);
  private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>(INBOX_LIMIT);
  /** Pages of whole copies waiting their turn ({@link #isLaterPage}), in arrival order. */
  private final java.util.ArrayDeque<Object> laterPages = new java.util.ArrayDeque<>();
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  /**
   * Client replies that wait for fewer records than every one appended before them ({@link
   * ReplyBarriers}): they may leave before messages queued earlier in {@link #waiting}.
   */
  private final List<Waiting> replies = new ArrayList<>();
  /** What each client reply depends on in the log; under {@link #turn}. */
  private final ReplyBarriers barriers = new ReplyBarriers();
  /**
   * Held by whoever touches the machine and what goes with it (its Ready, the messages waiting
   * for their records, the meters): the state thread for each round, and a node's log worker
   * that releases what its sync made durable.
   */
  private final ReentrantLock turn = new ReentrantLock();
  /** Inputs of one round, under {@link #turn}. */
  private final List<Object> batch = new ArrayList<>();
  /** When the state thread ticks the machine next (of {@link #nowMillis}). */
  private long nextTick;
  /**
   * This round's records are appended for its thread to sync ({@link #takeTurns}), and whether
   * it appended some; under {@link #turn}.
   */
  private boolean syncHere;
  private boolean loggedHere;
  /** A failure stopped the node ({@link #stop}): no round is taken after it. */
  private volatile boolean halted;
  /** Answers of this round of inputs, until its records are appended. */
  private final List<Answer> decided = new ArrayList<>();
  private final ArrayDeque<Answer> answers = new ArrayDeque<>();
  private final ServerSocket server;
  private final Admission admission;
  /**
   * The threads that read connections, reused: a flood of connections that never log in would
   * otherwise start and end a thread for each.
   */
  private final ExecutorService readers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "read");
    t.setDaemon(true);
    return t;
  });
  /** The secret this process proves on the connections it opens (null: none). */
  private final ConnectionPolicy policy;
  private final Consumer<String> log;
  private final FailStop failStop;
  /** A node's metering of what its replica serves; null for the control, which serves none. */
  private final RequestMeters meters;
  /** Planted bugs of a test's node process; {@link Interposer#NONE} in production. */
  private Interposer interposer = Interposer.NONE;
  /** A node's counts of what it received to create copies; null for the control. */
  private final ReceivedCounts received;
  private final long startNanos = System.nanoTime();
  private Storage storage;
  private long durable;
  /** The machine's last Ready said it has more without further input ({@link Ready#more}). */
  private boolean more;
  private long changesSeen;
  private volatile boolean closed;
  private Thread stateThread;
  private Thread acceptThread;
  private final CountDownLatch settled = new CountDownLatch(1);
  /**
   * Where the control tells of a node joining a partition's configuration; null: nowhere. Only
   * the state thread touches it and {@link #sent}.
   */
  private Consumer<String> joins;
  /** The control: each partition's configuration as last sent, for {@link #joins}. */
  private final Map<Integer, Configure> sent = new HashMap<>();

  private ReplicaNode(int self, StateMachine machine, Control control,
      Map<Integer, InetSocketAddress> peers, List<InetSocketAddress> controls,
      Listener listener, ConnectionPolicy policy, Consumer<String> log, FailStop failStop,
      RequestMeters meters, ReceivedCounts received) {
    this.self = self;
    this.machine = machine;
    this.control = control;
    this.peers = Map.copyOf(peers);
    this.controls = List.copyOf(controls);
    this.server = listener.server();
    this.admission = listener.admission();
    this.policy = policy;
    this.log = log;
    this.failStop = failStop;
    this.meters = meters;
    this.received = received;
  }

  /**
   * Starts node {@code self} of {@code nodes} (addresses in node order) from the log in {@code
   * data}, listening on its own address. What it sends to the control goes to every address of
   * {@code controls}: one control leads, and the others (standbys, or a deposed one) do not
   * listen or have stopped, so only the leader hears it. The log is compacted each time it has
   * grown by {@code compactBytes} ({@link Wal#COMPACT_BYTES} in production).
   *
   * @throws Wal.Damaged when the log has a damaged record before intact ones
   */
  static ReplicaNode node(int self, List<InetSocketAddress> nodes,
      List<InetSocketAddress> controls, Path data, Timing timing, long compactBytes,
      ConnectionPolicy policy, Consumer<String> log) throws IOException {
    return node(self, nodes, controls, data, timing, compactBytes, policy, log, halting(log));
  }

  /**
   * {@link #node}, stopping on a failure by {@code failStop} instead of halting, with its meters
   * on a registry of its own.
   */
  static ReplicaNode node(int self, List<InetSocketAddress> nodes,
      List<InetSocketAddress> controls, Path data, Timing timing, long compactBytes,
      ConnectionPolicy policy, Consumer<String> log, FailStop failStop) throws IOException {
    return node(self, nodes, controls, data, timing, compactBytes, policy, log, failStop,
        new SimpleMeterRegistry());
  }

  /**
   * {@link #node}, stopping on a failure by {@code failStop}, with its meters of the requests it
   * serves and its counts of what it received to create copies on {@code registry} (removed when
   * it closes; see {@link RequestMeters} and {@link ReceivedCounts}).
   */
  static ReplicaNode node(int self, List<InetSocketAddress> nodes,
      List<InetSocketAddress> controls, Path data, Timing timing, long compactBytes,
      ConnectionPolicy policy, Consumer<String> log, FailStop failStop, MeterRegistry registry)
      throws IOException {
    return node(self, nodes, controls, data, timing, compactBytes, policy, log, failStop,
        registry, Interposer.NONE);
  }

  /**
   * {@link #node}, with {@code interposer} between the driver and the core: {@link
   * Interposer#NONE} but for a test's node process that plants a bug.
   */
  static ReplicaNode node(int self, List<InetSocketAddress> nodes,
      List<InetSocketAddress> controls, Path data, Timing timing, long compactBytes,
      ConnectionPolicy policy, Consumer<String> log, FailStop failStop, MeterRegistry registry,
      Interposer interposer) throws IOException {
    if (controls.isEmpty()) {
      throw new IllegalArgumentException("a node needs the address of at least one control");
    }
    Map<Integer, InetSocketAddress> peers = new TreeMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (i != self) {
        peers.put(i, nodes.get(i));
      }
    }
    RequestMeters meters = new RequestMeters(self, registry,
        LoadMeters.DEFAULT_HOT_KEY_WINDOW);
    ReceivedCounts received = new ReceivedCounts(self, registry);
    try {
      return start(self, "node " + self, data, peers, controls, nodes.get(self), compactBytes,
          policy, log, failStop, meters, received, interposer,
          () -> {
            Replica.Restoring r = Replica.restoring(self, timing, Replica.SNAPSHOT_PAGE_ENTRIES);
            return new Restore() {
              @Override
              public void accept(Record rec) {
                r.replay(rec);
              }

              @Override
              public StateMachine machine() {
                return incarnated(r.restored());
              }
            };
          });
    } catch (IOException | RuntimeException e) {
      // a registry the caller gave keeps no meter of a node that never ran
      meters.close();
      received.close();
      throw e;
    }
  }

  /**
   * Starts the control of {@code nodes}, listening on {@code address}, from its log in {@code
   * data} (the stand-in for the coordinator's linearizable store): the table its last record
   * holds, or the first table of {@code scheme} ({@link io.partkit.replica.Numbering#of}) when
   * the log is empty. It places copies by {@code placement}, or by its own rule when empty; a
   * restart must be given the same.
   *
   * @throws Wal.Damaged when the log has a damaged record before intact ones
   */
  static ReplicaNode control(List<InetSocketAddress> nodes, InetSocketAddress address,
      Path data, PartitionScheme scheme, int replicas, Optional<Placement> placement,
      Timing timing, ConnectionPolicy policy, Consumer<String> log) throws IOException {
    return start(Control.ID, "control", data, nodeAddresses(nodes), List.of(), address,
        Wal.COMPACT_BYTES, policy, log, halting(log), null, null, Interposer.NONE,
        collected(controlFrom(nodes.size(), scheme, replicas, placement, timing)));
  }

  /**
   * Starts the control of {@code nodes}, listening on {@code address}, from its state in the
   * coordinator's store ({@code values}, which {@code store} names in messages; {@link
   * StoredControlState}): the table stored last, or the first table of {@code scheme} when none
   * is. The caller has won the store's election first. It places copies by {@code
   * placement}, or by its own rule when empty; every control of the cluster must be given the
   * same.
   *
   * @throws Codec.Malformed when the stored value is not a control's state
   * @throws StoredControlState.Deposed when another control wrote the state while this one read
   *     it: another control succeeded this one
   * @throws IOException when it cannot listen on {@code address}
   */
  static ReplicaNode control(List<InetSocketAddress> nodes, InetSocketAddress address,
      VersionedValues values, String store, PartitionScheme scheme, int replicas,
      Optional<Placement> placement, Timing timing, ConnectionPolicy policy,
      Consumer<String> log) throws IOException {
    AtomicReference<ReplicaNode> started = new AtomicReference<>();
    StoredControlState.Opened opened = StoredControlState.open(values, store,
        count -> started.get().onSynced(count),
        why -> fail(log, "control: " + why, EXIT_DEPOSED), log);
    List<Record> records = opened.state().<List<Record>>map(List::of).orElse(List.of());
    StateMachine m = controlFrom(nodes.size(), scheme, replicas, placement, timing)
        .apply(records);
    log.accept("control: " + (records.isEmpty() ? "no state in " + store + ": the first table"
        : "state read from " + store + " (version " + opened.version() + ")"));
    ReplicaNode n = new ReplicaNode(Control.ID, m, (Control) m, nodeAddresses(nodes), List.of(),
        listen("control", address, policy), policy, log, halting(log), null, null);
    n.storage = opened.storage();
    started.set(n);
    n.start();
    return n;
  }

  /**
   * The replica with an incarnation: its log's, or, on an empty log (a new node, or a wiped
   * disk), a random one no earlier incarnation of the node is likely to have had.
   */
  private static Replica incarnated(Replica replica) {
    if (replica.incarnation() != 0) {
      return replica; // its log names one: nothing to draw (every compaction comes here too)
    }
    java.security.SecureRandom random = new java.security.SecureRandom();
    long fresh = 0;
    while (fresh == 0) {
      fresh = random.nextLong();
    }
    replica.incarnate(fresh);
    return replica;
  }

  /** A machine restored from its log's records, given one at a time, in order. */
  interface Restore extends Consumer<Record> {

    /** The machine the records so far restore; once. */
    StateMachine machine();
  }

  /** The records collected whole, then given to {@code machine}: for a log that is one state. */
  private static Supplier<Restore> collected(Function<List<Record>, StateMachine> machine) {
    return () -> {
      List<Record> records = new ArrayList<>();
      return new Restore() {
        @Override
        public void accept(Record rec) {
          records.add(rec);
        }

        @Override
        public StateMachine machine() {
          return machine.apply(records);
        }
      };
    };
  }

  /** The addresses of nodes 0..n-1 by number. */
  private static Map<Integer, InetSocketAddress> nodeAddresses(List<InetSocketAddress> nodes) {
    Map<Integer, InetSocketAddress> peers = new TreeMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      peers.put(i, nodes.get(i));
    }
    return peers;
  }

  /** The control of nodes 0..n-1 its durable records restore, or the first when none are. */
  private static Function<List<Record>, StateMachine> controlFrom(int nodes,
      PartitionScheme scheme, int replicas, Optional<Placement> placement, Timing timing) {
    List<Integer> members = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      members.add(i);
    }
    return records -> placement.map(p -> records.isEmpty()
            ? new Control(timing, scheme, replicas, members, p)
            : Control.restore(timing, replicas, p, records))
        .orElseGet(() -> records.isEmpty()
            ? new Control(timing, scheme, replicas, members)
            : Control.restore(timing, replicas, records));
  }

  /**
   * Opens the log in {@code data}, makes the state machine from the records it replayed, and
   * starts the process {@code name} on {@code address}. The log's syncs reach the process once
   * it exists: nothing is appended before it starts. The log is compacted at start, and then
   * each time it has grown by {@code compactBytes}.
   */
  private static ReplicaNode start(int id, String name, Path data,
      Map<Integer, InetSocketAddress> peers, List<InetSocketAddress> controls,
      InetSocketAddress address, long compactBytes, ConnectionPolicy policy,
      Consumer<String> log, FailStop failStop, RequestMeters meters, ReceivedCounts received,
      Interposer interposer,
      Supplier<Restore> machine) throws IOException {
    Admission.requireSecretOffLoopback(name, address, policy.secret());
    AtomicReference<ReplicaNode> started = new AtomicReference<>();
    LongConsumer onSynced = count -> started.get().onSynced(count);
    Consumer<IOException> onFailure =
        e -> failStop.stop(name + ": the write-ahead log failed: " + e, EXIT_IO);
    Restore replay = machine.get();
    Wal.Opened opened = Wal.open(data, replay, onSynced, onFailure);
    if (opened.verdict() instanceof LogReach.Shorter s) {
      if (id == Control.ID) {
        // the control's log is the cluster's table: an older one would hand out epochs and
        // copies already given; nothing else holds it, so only an operator can mend it
        throw new Wal.Damaged(name + ": " + data.resolve(Wal.FILE) + ": " + s.missing()
            + "; the control must not start from a log that lost records (restore it)");
      }
      Path aside = Wal.setAside(data);
      log.accept(name + ": " + data.resolve(Wal.FILE) + ": " + s.missing() + "; set aside as "
          + aside.getFileName() + ", starting empty under a new incarnation, as on a lost disk");
      replay = machine.get();
      opened = Wal.open(data, replay, onSynced, onFailure);
    }
    StateMachine m = replay.machine();
    log.accept(name + ": " + opened.count() + " records replayed from "
        + opened.wal().file() + (opened.droppedBytes() > 0 ? "; a torn tail of "
        + opened.droppedBytes() + " bytes dropped" : ""));
    // A restored machine's state is exactly what its log gives, so the few records that restore
    // that state give it too (the control's last state, a node's checkpoint per partition): the
    // log starts again from them, growing with the changes since the last start instead of with
    // every change ever made.
    List<Record> compacted = m instanceof Control c ? List.of(c.durableState())
        : ((Replica) m).checkpoint();
    long replayed = opened.count();
    if (replayed > compacted.size()) {
      opened.wal().close();
      if (Wal.rewrite(data, compacted)) {
        log.accept(name + ": log compacted from " + replayed + " records to " + compacted.size());
      } else {
        // a partition whose data is over one record's size is kept as the writes that made it
        log.accept(name + ": log not compacted: a record of its state is over the "
            + Codec.MAX_FRAME + "-byte limit");
      }
      compacted = null; // the state's pages, garbage from here: the machine holds the state
      opened = Wal.open(data, r -> { }, onSynced, onFailure);
    }
    ReplicaNode n = new ReplicaNode(id, m, m instanceof Control c ? c : null, peers, controls,
        listen(name, address, policy), policy, log, failStop, meters, received);
    Wal wal = opened.wal();
    n.storage = wal;
    // While running, the live machine may be ahead of its durable records, so a compaction folds
    // the durable records themselves, into a machine of its own: the same records restore the
    // same state, whichever instance replays them. The control's records are whole states, each
    // standing for every one before it.
    UnaryOperator<List<Record>> fold = m instanceof Control
        ? records -> List.of(records.get(records.size() - 1))
        : records -> {
          Restore r = machine.get();
          records.forEach(r);
          return ((Replica) r.machine()).checkpoint();
        };
    wal.compactWhenGrown(compactBytes, fold, outcome -> {
      if (outcome instanceof Wal.Compacted c) {
        log.accept(name + ": log compacted from " + c.recordsBefore() + " records to "
            + c.recordsAfter() + " while running (" + c.bytesBefore() + " bytes to "
            + c.bytesAfter() + ")");
      } else if (outcome instanceof Wal.Kept k) {
        log.accept(name + ": log not compacted while running: " + k.why());
      }
    });
    n.durable = opened.count();
    n.interposer = interposer;
    started.set(n);
    n.start();
    return n;
  }

  /** A listening socket and who it lets in. */
  private record Listener(ServerSocket server, Admission admission) {}

  /**
   * Listens on {@code address} as {@code name}, letting in whom {@code policy} says.
   *
   * @throws IllegalArgumentException when {@code address} is not loopback and there is no secret
   */
  private static Listener listen(String name, InetSocketAddress address, ConnectionPolicy policy)
      throws IOException {
    Admission admission = new Admission(name, address, policy.limits(), policy.secret());
    ServerSocket s = new ServerSocket();
    try {
      s.setReuseAddress(true);
      s.bind(address, 128);
    } catch (IOException e) {
      s.close();
      admission.close();
      // the exception alone does not say which address: a node given several has to
      java.net.BindException named = new java.net.BindException("cannot listen on "
          + address.getHostString() + ":" + address.getPort() + ": " + e.getMessage());
      named.initCause(e);
      throw named;
    }
    return new Listener(s, admission);
  }

  /** The address it listens on. */
  InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** Connections still logging in (what a flood of connections that never log in fills). */
  int loggingIn() {
    return admission.loggingIn();
  }

  /** Connections closed while logging in to make room for newer ones, since it started. */
  long loginEvictions() {
    return admission.evictions();
  }

  /** A data node's incarnation, fixed before it starts (0 for the control). */
  long incarnation() {
    return machine instanceof Replica r ? r.incarnation() : 0;
  }

  private void start() {
    for (Map.Entry<Integer, InetSocketAddress> p : peers.entrySet()) {
      links.put(p.getKey(), Link.outbound("node " + p.getKey(), p.getValue(), self,
          policy.secret(), log));
    }
    for (InetSocketAddress c : controls) {
      controlLinks.add(Link.outbound(controls.size() == 1 ? "control"
          : "control at " + c.getHostString() + ":" + c.getPort(), c, self, policy.secret(),
          log));
    }
    stateThread = thread("state", this::stateLoop);
    acceptThread = thread("accept", this::acceptLoop);
  }

  private static Thread thread(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * The control: carries out {@code command} on the state thread. For a split {@code answer} gets
   * a line per partition, {@code REPLICA SPLIT <p> INTO <new> MODULUS <m> PARTITIONS <count>}
   * once the split is committed, or {@code REPLICA SPLIT REFUSED <p>: <why>}; for a leave or a
   * join, {@code REPLICA LEAVE <n>} or {@code REPLICA JOIN <n>} once it is durable.
   */
  void command(ControlCommand command, Consumer<String> answer) throws InterruptedException {
    if (control == null) {
      throw new IllegalStateException("only the control takes commands");
    }
    deliver(new Command(command, answer), false);
  }

  /**
   * The control: runs {@code look} on the state thread, which alone touches the control, with
   * the inputs handled so far; the action it returns (null: none) runs once every record the
   * control made until then is durable, so that it acts only on decisions that survive a crash.
   * Changes {@code look} makes to the control are decided on as any input's.
   */
  void inspect(Function<Control, Runnable> look) throws InterruptedException {
    if (control == null) {
      throw new IllegalStateException("only the control can be inspected");
    }
    deliver(new Inspection(look), false);
  }

  /** The control: waits until every partition first has its copies, all level and up. */
  void awaitSettled() throws InterruptedException {
    settled.await();
  }

  // ---- network input

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (!closed) {
          failStop.stop("cannot accept connections: " + e, EXIT_IO);
        }
        return;
      }
      Admission.Entry entry;
      try {
        s.setTcpNoDelay(true);
        entry = admission.enter(s);
      } catch (IOException e) {
        closeQuietly(s); // it went away as it came
        continue;
      }
      if (entry == null) {
        continue; // over the cap, closed: the peer sees the connection end and tries again
      }
      String name = "read-" + s.getRemoteSocketAddress();
      try {
        readers.execute(() -> {
          Thread.currentThread().setName(name);
          readLoop(s, entry);
        });
      } catch (RejectedExecutionException e) {
        admission.leave(entry); // closing: no reader starts any more
        closeQuietly(s);
      } catch (RuntimeException | OutOfMemoryError e) {
        admission.leave(entry);
        closeQuietly(s);
        throw e;
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  private void readLoop(Socket s, Admission.Entry entry) {
    int from = 0;
    Link reply = null;
    try (s) {
      // a connection that never logs in costs a small buffer (a flood of them churns through
      // thousands a second); one that did gets the large one its copies' pages read through
      BufferedInputStream loginBuffer = new BufferedInputStream(s.getInputStream(), LOGIN_BUFFER);
      if (!admission.login(entry, Frame.nodeFrames(new DataInputStream(loginBuffer),
          new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 512))))) {
        return; // not one of the cluster's, too slow, evicted, or over the cap
      }
      DataInputStream in = new DataInputStream(new BufferedInputStream(loginBuffer, READ_BUFFER));
      Object first = Frame.read(in);
      if (!(first instanceof Frame.Hello hello)) {
        throw new Codec.Malformed("a connection must begin with a hello, not " + first);
      }
      if (hello.id() == Frame.CLIENT) {
        from = nextClient.getAndIncrement();
        reply = Link.onAccepted("client " + from, s, log);
        clients.put(from, reply);
        ownLink.set(reply);
      } else if (peers.containsKey(hello.id())
          || hello.id() == Control.ID && !controls.isEmpty()) {
        from = hello.id();
      } else {
        throw new Codec.Malformed("a hello from unknown endpoint " + hello.id());
      }
      while (!closed) {
        Object f = Frame.read(in);
        if (f instanceof Envelope e) {
          deliver(new Envelope(from, self, e.message()), from >= CLIENT_BASE);
        } else if (f instanceof Frame.TableRequest t && from >= CLIENT_BASE) {
          deliver(new TableAsk(from, t.id()), true);
        } else if (f instanceof Frame.LoadRequest l && from >= CLIENT_BASE && meters != null) {
          deliver(new LoadAsk(from, l.id()), true);
        } else if (f instanceof Frame.PartitionsRequest r && from >= CLIENT_BASE
            && machine instanceof Replica) {
          deliver(new PartitionsAsk(from, r.id(), r.partition()), true);
        } else {
          throw new Codec.Malformed("an unexpected frame " + f);
        }
      }
    } catch (EOFException e) {
      // the other side closed
    } catch (Codec.Malformed e) {
      log.accept("closing a connection from " + s.getRemoteSocketAddress() + ": "
          + e.getMessage());
    } catch (IOException e) {
      // a reset connection: the peer is gone
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      admission.leave(entry);
      if (reply != null) {
        ownLink.remove();
        clients.remove(from);
        reply.close();
      }
    }
  }

  // ---- the state thread

  /**
   * The state thread: ticks the machine every {@link #TICK_MILLIS}, and takes rounds of inputs.
   * The control's inputs all wake it. A node's are mostly handled by the thread that read them
   * ({@link #takeTurns}): it wakes for its ticks, and for inputs only when a round left work
   * (more of the machine's own, a page of a copy) or inputs were left for it.
   */
  private void stateLoop() {
    try {
      while (!closed) {
        long now = nowMillis();
        boolean idle;
        turn.lock();
        try {
          if (halted) {
            return;
          }
          if (now >= nextTick) {
            machine.tick(now);
            nextTick = Math.max(nextTick + TICK_MILLIS, now + 1);
            if (meters != null) {
              meters.review((Replica) machine);
            }
            if (control != null && settled.getCount() > 0 && control.settled()) {
              settled.countDown();
            }
          }
          round();
          idle = laterPages.isEmpty() && !more;
        } finally {
          turn.unlock();
        }
        long wait = nextTick - nowMillis();
        if (idle && wait > 0 && inbox.isEmpty()) {
          // woken early by an input (the control's; a node's left for it), else at the tick
          LockSupport.parkNanos(this, wait * 1_000_000);
        }
      }
    } catch (IOException e) {
      // Once close began, the log may be closed under an append that outlasted close's wait for
      // this thread: that failure is close's own. Nothing is lost by not stopping on it, since
      // no message waiting for these records leaves before they are synced.
      if (!closed) {
        stop("the write-ahead log failed: " + e, EXIT_IO);
      }
    } catch (Throwable e) {
      e.printStackTrace();
      stop("stopping on " + e + " in the state machine", EXIT_ERROR);
    }
  }

  /**
   * Under {@link #turn}: handles what the inbox holds (up to {@link #ROUND_INPUTS} inputs), then
   * one page of a copy waiting its turn, then acts on the machine's Ready.
   */
  private void round() throws IOException {
    inbox.drainTo(batch, ROUND_INPUTS);
    for (Object in : batch) {
      if (isLaterPage(in)) {
        laterPages.add(in);
      } else {
        handle(in);
      }
    }
    batch.clear();
    if (!laterPages.isEmpty()) {
      handle(laterPages.poll());
    }
    drain();
  }

  /**
   * Hands {@code in} to the machine: queued in order behind every input before it, then, for a
   * node, handled on this thread when no other holds the machine ({@link #takeTurns}; a client's
   * reader, which has nothing more to read until it answers, also syncs what its rounds logged);
   * the control's state thread is woken for it.
   */
  private void deliver(Object in, boolean client) throws InterruptedException {
    inbox.put(in);
    if (control != null) {
      LockSupport.unpark(stateThread);
    } else {
      takeTurns(client);
    }
  }

  /**
   * A node: takes rounds of the inbox on this thread while it holds inputs and no other thread
   * holds the machine (at most {@link #TURNS} in a row, so a reader goes back to its connection;
   * what is left then is the state thread's). Whoever holds the machine looks at the inbox
   * again once it lets go, so an input queued while it held it is never left waiting for a tick:
   * its reader's {@code tryLock} failed before that holder let go, so the holder sees it. With
   * {@code sync}, the records its rounds appended are synced on this thread once it let go
   * ({@link Wal#syncHere}), instead of by a worker woken for them.
   */
  private void takeTurns(boolean sync) {
    boolean logged = false;
    try {
      logged = turns(sync);
    } finally {
      if (logged) {
        ((Wal) storage).syncHere();
      }
    }
  }

  /** {@link #takeTurns}'s rounds; whether they appended records left for this thread to sync. */
  private boolean turns(boolean sync) {
    boolean logged = false;
    for (int turns = 0; !closed && !inbox.isEmpty(); turns++) {
      if (turns == TURNS) {
        LockSupport.unpark(stateThread);
        return logged;
      }
      if (!turn.tryLock()) {
        return logged; // its holder looks at the inbox once done
      }
      boolean wake;
      try {
        if (closed || halted) {
          return logged;
        }
        syncHere = sync && storage instanceof Wal;
        round();
        logged |= loggedHere;
        wake = !laterPages.isEmpty() || more;
      } catch (IOException e) {
        if (!closed) {
          stop("the write-ahead log failed: " + e, EXIT_IO);
        }
        return logged;
      } catch (Throwable e) {
        e.printStackTrace();
        stop("stopping on " + e + " in the state machine", EXIT_ERROR);
        return logged;
      } finally {
        syncHere = false;
        loggedHere = false;
        turn.unlock();
        flushOwn();
      }
      if (wake) {
        LockSupport.unpark(stateThread); // work left without further input: the state thread's
      }
    }
    return logged;
  }

  /** Stops on a failure of the decision or storage path: no round is taken after it. */
  private void stop(String why, int status) {
    halted = true;
    failStop.stop(why, status);
  }

  /**
   * Whether {@code in} is a page of a whole copy after its first. The state thread takes one such
   * page a turn, after everything else that arrived: a copy of a large partition arrives as many
   * pages at once, and taking them back to back would hold up this node's own partitions for the
   * whole copy. The pages keep their order; what overtakes them (the level's writes) waits in
   * the core until the copy is whole.
   */
  private static boolean isLaterPage(Object in) {
    return in instanceof Envelope e && e.message() instanceof Snapshot s && s.page() > 0;
  }

  private long nowMillis() {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private void handle(Object in) {
    if (in instanceof Envelope e) {
      if (meters != null && e.from() >= CLIENT_BASE) {
        meters.received(e.from(), e.message(), System.nanoTime());
      }
      String overLimits = e.from() >= CLIENT_BASE && e.message() instanceof Request r
          ? SizeLimits.problem(r) : null;
      if (overLimits != null) {
        // refused before the core sees it: a write over the limits could make a record or a
        // frame over the limit, and a record that cannot be appended stops the node
        long id = ((Request) e.message()).id();
        transmit(new Envelope(self, e.from(), new Reply(id, Outcome.FAIL, null, "node " + self
            + " refuses the request: " + overLimits + "; it did not take effect")));
        return;
      }
      Envelope handed = machine instanceof Replica r
          ? interposer.inbound(r, self, e, this::transmit) : e;
      if (handed != null) {
        barriers.stepped(handed);
        machine.step(handed);
      }
    } else if (in instanceof LoadAsk a) {
      Link l = clients.get(a.client());
      if (l != null) {
        toClient(l, new Frame.Load(a.id(), meters.view((Replica) machine, System.nanoTime()),
            received.now()));
      }
    } else if (in instanceof PartitionsAsk a) {
      Link l = clients.get(a.client());
      if (l != null) {
        Replica replica = (Replica) machine;
        l.send(new Frame.Partitions(a.id(), self, a.partition() < 0 ? replica.statuses()
            : List.of(replica.status(a.partition()))));
      }
    } else if (in instanceof Synced s) {
      durable = Math.max(durable, s.count());
      release();
    } else if (in instanceof TableAsk t) {
      Link l = clients.get(t.client());
      if (control != null && l != null) {
        List<ReplicaClient.Row> rows = new ArrayList<>();
        for (int p : control.partitionIds()) {
          Configure c = control.configuration(p);
          rows.add(new ReplicaClient.Row(p, c.numbering(), c.primary(), c.epoch()));
        }
        String unsettled = control.unsettled().orElse(null);
        toClient(l, new Frame.Table(t.id(), unsettled == null, rows, unsettled));
      }
    } else if (in instanceof Inspection i) {
      Runnable action = i.look().apply(control);
      if (action != null) {
        decided.add(new Answer(0, action));
      }
    } else if (in instanceof Command c && c.command() instanceof ControlCommand.Leave l) {
      membership(l, l.node(), "LEAVE", c.answer(), () -> control.leave(l.node()));
    } else if (in instanceof Command c && c.command() instanceof ControlCommand.Join j) {
      membership(j, j.node(), "JOIN", c.answer(), () -> control.join(j.node()));
    } else if (in instanceof Command c && c.command() instanceof ControlCommand.Forget f) {
      membership(f, f.node(), "FORGET", c.answer(), () -> control.forget(f.node()));
    } else if (in instanceof Command c) {
      List<Integer> targets = c.command() instanceof ControlCommand.Split s
          ? List.of(s.partition()) : control.partitionIds();
      for (int p : targets) {
        Optional<Integer> child;
        try {
          child = c.command() instanceof ControlCommand.Split s && s.cut() != null
              ? control.split(p, s.cut()) : control.split(p);
        } catch (IllegalArgumentException e) {
          log.accept("control: cannot split partition " + p + ": " + e.getMessage());
          c.answer().accept(new ControlCommand.Split(p, null).refusal(e.getMessage()));
          continue;
        }
        if (child.isPresent()) {
          String line = "REPLICA SPLIT " + p + " INTO " + child.get() + " MODULUS "
              + control.configuration(p).numbering().modulus() + " PARTITIONS "
              + control.partitions();
          decided.add(new Answer(0, () -> c.answer().accept(line)));
        } else {
          String why = splitRefusal(p);
          log.accept("control: cannot split partition " + p + ": " + why);
          c.answer().accept(new ControlCommand.Split(p, null).refusal(why));
        }
      }
    }
  }

  /**
   * A node of the control's {@code --nodes} leaves or joins: answered {@code REPLICA LEAVE N} (or
   * {@code JOIN}) once the change is durable, {@code REPLICA LEAVE REFUSED N: why} for a number
   * that names no node (a control joins no node it has no address for).
   */
  private void membership(ControlCommand command, int node, String what,
      Consumer<String> answer, Runnable change) {
    if (!peers.containsKey(node)) {
      log.accept("control: cannot " + what.toLowerCase() + " node " + node + ": the nodes are 0.."
          + (peers.size() - 1));
      answer.accept(command.refusal("no such node"));
      return;
    }
    change.run();
    decided.add(new Answer(0, () -> answer.accept("REPLICA " + what + " " + node)));
  }

  /**
   * The control: from now on, tells {@code out} of each node that joins a partition's
   * configuration, once that configuration is durable: {@code REPLICA JOINING <partition>
   * <node> FROM <primary> EPOCH <epoch>}, the primary being the member that levels it (sends it
   * the partition's copy). A test harness aims faults at such a copy in flight.
   */
  void announceJoins(Consumer<String> out) throws InterruptedException {
    inspect(c -> {
      for (int p : c.partitionIds()) {
        sent.put(p, c.configuration(p)); // what is sent from here on is compared with these
      }
      joins = out;
      return null;
    });
  }

  private void announceJoins(Collection<Configure> changed) {
    Consumer<String> out = joins;
    for (Configure c : changed) {
      Configure before = sent.get(c.partition());
      if (before != null && before.epoch() >= c.epoch()) {
        continue; // a configuration sent again
      }
      sent.put(c.partition(), c);
      if (out == null || before == null) {
        continue;
      }
      for (int n : c.members()) {
        if (!before.members().contains(n)) {
          String line = "REPLICA JOINING " + c.partition() + " " + n + " FROM " + c.primary()
              + " EPOCH " + c.epoch();
          decided.add(new Answer(0, () -> out.accept(line)));
        }
      }
    }
  }

  /** Why the control refused to split {@code partition}. */
  private String splitRefusal(int partition) {
    List<Integer> ids = control.partitionIds();
    if (!ids.contains(partition)) {
      return "no partition " + partition + " in the table (partitions " + ids + ")";
    }
    if (control.moving(partition)) {
      return "a move of partition " + partition + " is under way";
    }
    io.partkit.replica.Numbering n = control.configuration(partition).numbering();
    if (!(n instanceof io.partkit.replica.Numbering.Hashed) && n.midpoint(partition).isEmpty()) {
      return "its range " + n.describe(partition) + " " + ReplicaNodeMain.NO_MIDPOINT
          + " (split " + partition + " at <hex> names a cut)";
    }
    return "the new partition's number would pass " + Integer.MAX_VALUE;
  }

  /** Acts on the machine's Ready: records appended, messages queued behind them. */
  private void drain() throws IOException {
    Ready r = machine.ready();
    more = r.more();
    if (r.isEmpty() && decided.isEmpty()) {
      return;
    }
    long barrier;
    List<Record> logged = storage == null ? List.of() : interposer.logged(r.records());
    if (storage == null) {
      barrier = 0;
    } else if (syncHere) {
      barrier = ((Wal) storage).appendForCaller(logged);
      loggedHere |= !logged.isEmpty();
    } else {
      barrier = storage.append(logged);
    }
    barriers.appended(logged, barrier);
    if (received != null) {
      received.count(r.records());
    }
    if (control == null) {
      for (Record rec : r.records()) {
        EventLines.of(self, rec).ifPresent(log);
      }
    }
    if (control != null && control.changes() != changesSeen) {
      changesSeen = control.changes();
      TreeMap<Integer, Configure> changed = new TreeMap<>();
      for (Envelope e : r.messages()) {
        if (e.message() instanceof Configure c) {
          changed.put(c.partition(), c);
        }
      }
      changed.values().forEach(c -> log.accept("control: partition " + c.partition()
          + " epoch " + c.epoch() + " primary " + c.primary() + " backups " + c.backups()));
      announceJoins(changed.values());
    }
    for (Envelope e : r.messages()) {
      long needs = barriers.barrier(e, barrier);
      if (needs < barrier) {
        replies.add(new Waiting(needs, e)); // a reply on a key no pending write holds up
      } else {
        waiting.add(new Waiting(barrier, e));
      }
    }
    for (Answer a : decided) {
      answers.add(new Answer(barrier, a.action()));
    }
    decided.clear();
    release();
  }

  private void onSynced(long count) {
    if (control == null) {
      // a node's answers are all messages: the log's worker sends them itself, sparing the
      // state thread a wake-up per group commit (the control's answers run on the state thread)
      turn.lock();
      try {
        durable = Math.max(durable, count);
        release();
      } catch (Throwable e) {
        e.printStackTrace();
        stop("stopping on " + e + " sending what the log made durable", EXIT_ERROR);
      } finally {
        turn.unlock();
        flushOwn();
      }
      takeTurns(false); // inputs queued while it held the machine (a worker syncs what they log)
      return;
    }
    try {
      // a closed node's state thread no longer takes from a full inbox: the syncer must not
      // wait on it for good, nor keep the log's close waiting for it
      while (!closed && !inbox.offer(new Synced(count), TICK_MILLIS, TimeUnit.MILLISECONDS)) {
        // the state thread takes what is queued before this
      }
      LockSupport.unpark(stateThread);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sends every waiting message whose records are durable: the client replies that depend on
   * fewer records than were appended before them ({@link ReplyBarriers}) as soon as those are,
   * the other messages in the order they were made.
   */
  private void release() {
    barriers.durable(durable);
    if (!replies.isEmpty()) {
      List<Envelope> due = new ArrayList<>();
      replies.removeIf(w -> w.barrier() <= durable && due.add(w.envelope()));
      for (Envelope e : due) {
        if (interposer.outbound(e)) {
          transmit(e);
        }
      }
    }
    while (!waiting.isEmpty() && waiting.peek().barrier() <= durable) {
      Envelope e = waiting.poll().envelope();
      if (interposer.outbound(e)) {
        transmit(e);
      }
    }
    while (!answers.isEmpty() && answers.peek().barrier() <= durable) {
      answers.poll().action().run();
    }
  }

  /** Sends {@code e} on the link to its addressee: the control, a node or a client. */
  private void transmit(Envelope e) {
    if (e.to() == Control.ID) {
      controlLinks.forEach(l -> l.send(e));
      return;
    }
    if (meters != null && e.to() >= CLIENT_BASE) {
      meters.answered(e, (Replica) machine, System.nanoTime());
    }
    if (e.to() >= CLIENT_BASE) {
      toClient(clients.get(e.to()), e);
      return;
    }
    Link l = links.get(e.to());
    if (l != null) {
      l.send(e);
    }
  }

  /**
   * Sends {@code frame} to a client on its link {@code l} (null: gone). The client's own reader,
   * which made this answer while it held the machine, holds it and writes it itself once it
   * lets go ({@link #flushOwn}), sparing the link's writer a wake-up; frames for a link held so
   * go behind what it holds.
   */
  private void toClient(Link l, Object frame) {
    if (l == null) {
      return;
    }
    boolean reader = l == ownLink.get();
    if (reader || l.holding()) {
      l.hold(frame, reader);
    } else {
      l.send(frame);
    }
  }

  /** A client's reader, having let go of the machine: writes the answers it holds, if any. */
  private void flushOwn() {
    Link l = ownLink.get();
    if (l != null) {
      l.flushHeld();
    }
  }

  static void fail(Consumer<String> log, String why, int status) {
    try {
      log.accept("stopping: " + why + " (exit status " + status + ")");
      System.err.flush();
    } finally {
      Runtime.getRuntime().halt(status);
    }
  }

  /**
   * Stops the node cleanly: the state thread ends (within a tick: it sees {@code closed} at its
   * next round) and is waited for before the links and the log close, so no append or sync meets
   * a log this close closed. The state thread is not interrupted: an interrupt in the middle of
   * a write closes the log's channel (file channels are interruptible), which the state thread
   * and the syncer would then take for a failed log.
   */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    admission.close();
    acceptThread.interrupt();
    readers.shutdown(); // readers end as their connections close; idle threads end now
    try {
      stateThread.join(CLOSE_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (stateThread.isAlive()) {
      log.accept("closing while the state thread still runs after " + CLOSE_WAIT_MILLIS
          + " ms: the log closes under it");
    } else {
      // a reader's round under way ends first; none starts after (each sees closed)
      try {
        if (turn.tryLock(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
          turn.unlock();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    links.values().forEach(Link::close);
    controlLinks.forEach(Link::close);
    clients.values().forEach(Link::close);
    if (storage != null) {
      try {
        storage.close();
      } catch (IOException e) {
        // closing
      }
    }
    if (meters != null) {
      meters.close(); // a registry the caller gave keeps no meter of a closed node
      received.close();
    }
  }
}
