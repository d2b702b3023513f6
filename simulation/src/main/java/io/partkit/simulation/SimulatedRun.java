package io.partkit.simulation;

import io.partkit.harness.check.LostWrites;
import io.partkit.harness.nemesis.Grudges;
import io.partkit.harness.system.Operation;
import io.partkit.harness.workload.RegisterWorkload;
import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Ready;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.replica.Timing;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * One seed: a whole cluster in this thread on virtual milliseconds. Events (message deliveries,
 * ticks, syncs, client steps, faults) wait in one queue ordered by time, then by the order they
 * were scheduled in, so the run depends on nothing but the seed, the plan and the spec.
 */
final class SimulatedRun {

  static final long TICK_MILLIS = 10;
  static final long CLIENT_TIMEOUT_MILLIS = 600;
  static final long RECOVERY_LIMIT_MILLIS = 30_000;
  static final long FINAL_READS_LIMIT_MILLIS = 30_000;
  static final int CONTROL_NAME = -1;
  static final String NEMESIS = "nemesis";

  private final SimulationSpec spec;
  private final long seed;
  private final List<Fault> plan;
  private final Timing timing = Timing.DEFAULT;
  private final Random net;
  private final Random chance;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private long now;
  private long order;
  private final TreeMap<Integer, Node> nodes = new TreeMap<>();
  private int nextNode;
  private final Control control;
  private final List<Op> history = new ArrayList<>();
  private final Set<Long> blocked = new HashSet<>();
  private double dropRate;
  private double duplicateRate;
  private long maxDelay;
  private final RegisterWorkload workload;
  private final Worker[] workers;
  private final Map<Long, Worker> outstanding = new HashMap<>();
  private long nextRequest;
  private long nextProcess;
  private int invoked;
  private int faults;
  private boolean clientsStop;
  private boolean finalReading;
  private final Map<Object, Op> finalReads = new HashMap<>();
  private final List<Long> finalQueue = new ArrayList<>();
  /** Requests a planted bug answered before the core did. */
  private final Set<Long> answeredEarly = new HashSet<>();

  SimulatedRun(SimulationSpec spec, long seed, List<Fault> plan) {
    this.spec = spec;
    this.seed = seed;
    this.plan = plan;
    this.net = new Random(seed * 0x9E3779B97F4A7C15L + 1);
    this.chance = new Random(seed * 0x9E3779B97F4A7C15L + 2);
    // swarm: each seed its own network
    Random swarm = new Random(seed * 0x9E3779B97F4A7C15L + 3);
    this.dropRate = swarm.nextBoolean() ? 0 : 0.002 + swarm.nextDouble() * 0.05;
    this.duplicateRate = swarm.nextBoolean() ? 0 : 0.002 + swarm.nextDouble() * 0.05;
    this.maxDelay = 1 + swarm.nextInt(swarm.nextBoolean() ? 4 : 30);
    List<Integer> members = new ArrayList<>();
    for (int i = 0; i < spec.nodes(); i++) {
      members.add(i);
    }
    this.control = new Control(timing, spec.partitions(), spec.replicas(), members);
    for (int n : members) {
      Node node = new Node(n);
      nodes.put(n, node);
      start(node, List.of());
    }
    nextNode = spec.nodes();
    this.workload = new RegisterWorkload(seed, spec.concurrency(), spec.threadsPerKey(),
        spec.opsPerKey());
    this.workers = new Worker[spec.concurrency()];
    for (int w = 0; w < workers.length; w++) {
      workers[w] = new Worker(w, w);
    }
    nextProcess = workers.length;
  }

  SeedResult run() {
    long end = spec.time().toMillis();
    schedule(0, this::controlTick);
    for (Worker w : workers) {
      schedule(chance.nextInt(5), () -> issue(w));
    }
    for (Fault f : plan) {
      if (f.at() < end) {
        schedule(f.at(), () -> strike(f));
      }
    }
    runUntil(end);
    clientsStop = true;
    heal();
    String unfinished = null;
    if (!runWhile(() -> !outstanding.isEmpty() || !control.settled(),
        end + RECOVERY_LIMIT_MILLIS)) {
      unfinished = "the cluster did not recover within " + RECOVERY_LIMIT_MILLIS
          + " ms of virtual time after the heal: " + control.unsettled().orElse("clients waiting")
          + "; nodes:" + nodeStates();
    }
    finalReading = true;
    finalQueue.addAll(workload.keys());
    Collections.reverse(finalQueue);
    for (Worker w : workers) {
      w.process = nextProcess++;
      schedule(0, () -> finalRead(w));
    }
    long readsEnd = now + FINAL_READS_LIMIT_MILLIS;
    runWhile(() -> finalReads.size() < workload.keys().size(), readsEnd);
    return check(unfinished);
  }

  /** Each node's state in a line, for a seed that did not recover. */
  private String nodeStates() {
    StringBuilder sb = new StringBuilder();
    for (Node n : nodes.values()) {
      sb.append(" [n").append(n.id).append(" up=").append(n.up()).append(" gone=").append(n.gone)
          .append(" paused=").append(n.paused).append(" disk-full=").append(n.diskFull)
          .append(" up-for-control=").append(control.up(n.id)).append(']');
    }
    return sb.toString();
  }

  // ---- the event loop

  private void runUntil(long t) {
    while (!queue.isEmpty() && queue.peek().time < t) {
      step();
    }
    now = Math.max(now, t);
  }

  /** Runs while {@code more} holds and before {@code limit}; false if the limit came first. */
  private boolean runWhile(java.util.function.BooleanSupplier more, long limit) {
    while (more.getAsBoolean()) {
      if (queue.isEmpty() || queue.peek().time >= limit) {
        now = Math.max(now, limit);
        return false;
      }
      step();
    }
    return true;
  }

  private void step() {
    Event e = queue.poll();
    now = e.time;
    e.action.run();
  }

  private void schedule(long delay, Runnable action) {
    queue.add(new Event(now + delay, order++, action));
  }

  /** An event: ordered by time, then by when it was scheduled. */
  private record Event(long time, long order, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(order, o.order);
    }
  }

  // ---- nodes: the driver of each replica core

  /** A simulated node: its core, its disk and what waits for a sync. */
  private final class Node {
    final int id;
    Replica core;
    int incarnation;
    boolean paused;
    final List<Runnable> deferred = new ArrayList<>();
    final List<Record> synced = new ArrayList<>();
    final List<Record> unsynced = new ArrayList<>();
    final List<Waiting> waiting = new ArrayList<>();
    boolean syncing;
    boolean diskFull;
    /** The synced record that was damaged while the node was down, or -1. */
    int damaged = -1;
    boolean gone;

    Node(int id) {
      this.id = id;
    }

    boolean up() {
      return core != null;
    }
  }

  private record Waiting(int barrier, Envelope envelope) {}

  private void start(Node n, List<Record> log) {
    n.core = log.isEmpty() ? new Replica(n.id, timing) : Replica.restore(n.id, timing, log);
    n.incarnation++;
    int inc = n.incarnation;
    schedule(1 + chance.nextInt((int) TICK_MILLIS), () -> nodeTick(n, inc));
  }

  private void nodeTick(Node n, int inc) {
    if (n.incarnation != inc || !n.up()) {
      return;
    }
    onNode(n, () -> {
      n.core.tick(now);
      drain(n);
    });
    schedule(TICK_MILLIS, () -> nodeTick(n, inc));
  }

  /** Runs {@code action} on node {@code n} now, or when it resumes if paused. */
  private void onNode(Node n, Runnable action) {
    int inc = n.incarnation;
    Runnable guarded = () -> {
      if (n.incarnation == inc && n.up()) {
        action.run();
      }
    };
    if (n.paused) {
      n.deferred.add(guarded);
    } else {
      guarded.run();
    }
  }

  /** Acts on what the core asks: records to the disk, messages once those are synced. */
  private void drain(Node n) {
    Ready r = n.core.ready();
    if (r.isEmpty()) {
      return;
    }
    if (!r.records().isEmpty()) {
      if (n.diskFull) {
        // the append fails: the node stops rather than go on without its records
        crash(n, false, "disk full");
        return;
      }
      n.unsynced.addAll(r.records());
    }
    int barrier = n.synced.size() + n.unsynced.size();
    boolean early = spec.mutant().orElse(null) == Mutant.ACK_BEFORE_SYNC;
    for (Envelope e : r.messages()) {
      if (early || barrier <= n.synced.size()) {
        transmit(e);
      } else {
        n.waiting.add(new Waiting(barrier, e));
      }
    }
    if (!n.unsynced.isEmpty() && !n.syncing) {
      sync(n);
    }
  }

  private void sync(Node n) {
    n.syncing = true;
    int inc = n.incarnation;
    int upTo = n.synced.size() + n.unsynced.size();
    schedule(1 + chance.nextInt(8), () -> {
      if (n.incarnation != inc || !n.up()) {
        return;
      }
      onNode(n, () -> synced(n, upTo));
    });
  }

  private void synced(Node n, int upTo) {
    n.syncing = false;
    while (n.synced.size() < upTo) {
      n.synced.add(n.unsynced.remove(0));
    }
    List<Waiting> ready = new ArrayList<>();
    n.waiting.removeIf(w -> {
      if (w.barrier() <= n.synced.size()) {
        ready.add(w);
        return true;
      }
      return false;
    });
    ready.forEach(w -> transmit(w.envelope()));
    if (!n.unsynced.isEmpty()) {
      sync(n);
    }
  }

  /** The node stops: a process crash keeps every append, a power loss only what was synced. */
  private void crash(Node n, boolean keepUnsynced, String why) {
    if (!n.up()) {
      return;
    }
    if (keepUnsynced) {
      n.synced.addAll(n.unsynced);
    } else if (!n.unsynced.isEmpty()) {
      // the unsynced tail may reach the disk in part: cut it anywhere (a torn record is dropped)
      int kept = chance.nextInt(n.unsynced.size() + 1);
      n.synced.addAll(n.unsynced.subList(0, kept));
    }
    n.unsynced.clear();
    n.waiting.clear();
    n.syncing = false;
    n.core = null;
    n.paused = false;
    n.deferred.clear();
    n.incarnation++;
  }

  private void restart(Node n) {
    if (n.up() || n.gone) {
      return;
    }
    n.diskFull = false;
    List<Record> log = new ArrayList<>(n.synced);
    if (n.damaged >= 0) {
      if (spec.mutant().orElse(null) != Mutant.UNCHECKED_RECORDS) {
        // the checksum does not match: the node refuses to start; an operator replaces it
        nemesis(OpType.INFO, "fail-stop", "node " + n.id + " found a damaged record at "
            + n.damaged + " and stopped");
        lose(n);
        return;
      }
      log.set(n.damaged, damage(log.get(n.damaged)));
      n.damaged = -1;
    }
    start(n, log);
  }

  /** A record as a damaged disk returns it: the value's bytes changed. */
  private static Record damage(Record r) {
    if (r instanceof Record.Written w) {
      return new Record.Written(w.partition(), w.epoch(), w.level(), w.seq(), w.key(),
          Bytes.ofLong(-7 - w.value().toLong()));
    }
    return r;
  }

  /** The node and its disk are gone for good; a fresh node takes its place. */
  private void lose(Node n) {
    crash(n, false, "lost");
    n.gone = true;
    control.forget(n.id);
    Node fresh = new Node(nextNode++);
    nodes.put(fresh.id, fresh);
    start(fresh, List.of());
    control.join(fresh.id);
  }

  // ---- the control

  private void controlTick() {
    control.tick(now);
    drainControl();
    schedule(TICK_MILLIS, this::controlTick);
  }

  private void drainControl() {
    Ready r = control.ready();
    for (Envelope e : r.messages()) {
      transmit(e);
      Mutant m = spec.mutant().orElse(null);
      if (e.message() instanceof Configure c && e.to() == c.primary()
          && (m == Mutant.CUTOVER_BEFORE_CAUGHT_UP) == c.members().size() > spec.replicas()
          && (m == Mutant.CUTOVER_BEFORE_CAUGHT_UP || m == Mutant.LEVEL_ON_CONFIGURE)) {
        // a migration's join for the one, any other configuration for the other
        // the planted bug: a joining target counts as level at once
        control.step(new Envelope(c.primary(), Control.ID, new Levelled(c.partition(),
            c.epoch())));
      }
    }
  }

  // ---- the network

  private static long link(int from, int to) {
    return ((long) from << 32) ^ (to & 0xffffffffL);
  }

  private void transmit(Envelope e) {
    if (e.message() instanceof Reply r && e.from() < CLIENT_BASE && e.from() != Control.ID
        && answeredEarly.contains(r.id()) && r.outcome() != Outcome.OK) {
      return;
    }
    boolean client = e.from() >= CLIENT_BASE || e.to() >= CLIENT_BASE;
    if (!client && blocked.contains(link(e.from(), e.to()))) {
      return;
    }
    if (net.nextDouble() < dropRate) {
      return;
    }
    deliverLater(e);
    // A client's connection (TCP) never hands its server a request twice; replica traffic is
    // resent by the protocol itself, so copies of it arrive.
    if (!client && net.nextDouble() < duplicateRate) {
      deliverLater(e);
    }
  }

  private void deliverLater(Envelope e) {
    schedule(1 + net.nextInt((int) maxDelay), () -> deliver(e));
  }

  private void deliver(Envelope e) {
    if (e.to() >= CLIENT_BASE) {
      onReply(e);
      return;
    }
    if (e.to() == Control.ID) {
      control.step(e);
      drainControl();
      return;
    }
    Node n = nodes.get(e.to());
    if (n == null || !n.up()) {
      return;
    }
    int inc = n.incarnation;
    onNode(n, () -> {
      if (n.incarnation != inc || !n.up()) {
        return;
      }
      Envelope in = mutate(n, e);
      if (in == null) {
        return;
      }
      n.core.step(in);
      drain(n);
    });
  }

  /** The planted bugs that rewrite or answer a message around the unchanged core. */
  private Envelope mutate(Node n, Envelope e) {
    Mutant m = spec.mutant().orElse(null);
    if (m == Mutant.ASYNC_REPLICATION && e.message() instanceof Request r
        && r.kind() == Kind.PUT && n.core.role(r.partition()) == Role.PRIMARY) {
      // answered now; the core's own answer, when it comes, is dropped
      answeredEarly.add(r.id());
      transmit(new Envelope(n.id, e.from(), new Reply(r.id(), Outcome.OK, null, null)));
    }
    return e;
  }

  // ---- faults

  private List<Node> live() {
    return nodes.values().stream().filter(n -> !n.gone).toList();
  }

  private Node pick(int index) {
    List<Node> l = live();
    return l.get(Math.floorMod(index, l.size()));
  }

  private void strike(Fault f) {
    if (clientsStop) {
      return;
    }
    Node n = pick(f.target());
    String what = switch (f.kind()) {
      case PARTITION -> partition(f);
      case ONE_WAY -> {
        Node other = pick(f.other());
        if (other == n) {
          yield null;
        }
        blocked.add(link(other.id, n.id));
        schedule(f.duration(), () -> blocked.remove(link(other.id, n.id)));
        yield "node " + n.id + " stops hearing node " + other.id;
      }
      case PAUSE -> {
        if (!n.up() || n.paused) {
          yield null;
        }
        n.paused = true;
        schedule(f.duration(), () -> resume(n));
        yield "node " + n.id;
      }
      case KILL, POWER_LOSS, DISK_FULL -> {
        if (!n.up()) {
          yield null;
        }
        if (f.kind() == Fault.Kind.DISK_FULL) {
          n.diskFull = true;
        } else {
          crash(n, f.kind() == Fault.Kind.KILL, f.kind().label());
        }
        schedule(f.duration(), () -> restart(n));
        yield "node " + n.id;
      }
      case POWER_LOSS_GROUP -> {
        int p = Math.floorMod(f.target(), spec.partitions());
        List<Integer> members = control.configuration(p).members();
        for (int id : members) {
          Node m = nodes.get(id);
          if (m != null) {
            crash(m, false, "power loss");
            schedule(f.duration(), () -> restart(m));
          }
        }
        yield "nodes " + members + " (partition " + p + ")";
      }
      case CORRUPT -> {
        if (!n.up() || control.soleLevelCopy(n.id).isPresent()) {
          yield null;
        }
        crash(n, true, "corrupt");
        int index = lastWrite(n.synced);
        n.damaged = index;
        // restarted at once, so that nothing changes between the check above and the
        // detection: the node is never the last level copy when it stops for good
        restart(n);
        yield "node " + n.id + (index < 0 ? " (no record to damage)" : " record " + index);
      }
      case JOIN -> {
        Node fresh = new Node(nextNode++);
        nodes.put(fresh.id, fresh);
        start(fresh, List.of());
        control.join(fresh.id);
        int p = Math.floorMod(f.other(), spec.partitions());
        control.migrate(p, fresh.id);
        yield "node " + fresh.id + ", partition " + p + " moves to it";
      }
      case LEAVE -> {
        if (live().size() <= spec.replicas() + 1 || !n.up()) {
          yield null;
        }
        control.leave(n.id);
        yield "node " + n.id;
      }
      case LOSE -> {
        if (control.soleLevelCopy(n.id).isPresent()) {
          yield null;
        }
        lose(n);
        yield "node " + n.id;
      }
      case MIGRATE -> {
        int p = Math.floorMod(f.other(), spec.partitions());
        yield control.migrate(p, n.id) ? "partition " + p + " to node " + n.id : null;
      }
    };
    if (what != null) {
      faults++;
      nemesis(OpType.INFO, f.kind().label(), what);
    }
  }

  private String partition(Fault f) {
    String[] shapes = {"halves", "isolate", "bridge", "majorities-ring"};
    String shape = shapes[Math.floorMod(f.other(), shapes.length)];
    List<String> names = new ArrayList<>();
    for (Node n : live()) {
      names.add(Integer.toString(n.id));
    }
    names.add(Integer.toString(CONTROL_NAME));
    Collections.shuffle(names, new Random(f.target()));
    Map<String, Set<String>> grudge = Grudges.of(shape, names);
    List<Long> cut = new ArrayList<>();
    grudge.forEach((to, froms) -> {
      for (String from : froms) {
        long l = link(Integer.parseInt(from), Integer.parseInt(to));
        if (blocked.add(l)) {
          cut.add(l);
        }
      }
    });
    schedule(f.duration(), () -> cut.forEach(blocked::remove));
    return shape + " " + grudge;
  }

  private static int lastWrite(List<Record> log) {
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i) instanceof Record.Written) {
        return i;
      }
    }
    return -1;
  }

  private void resume(Node n) {
    if (!n.paused) {
      return;
    }
    n.paused = false;
    List<Runnable> held = new ArrayList<>(n.deferred);
    n.deferred.clear();
    held.forEach(Runnable::run);
  }

  /** Every fault undone: links restored, nodes resumed and restarted, the network calm. */
  private void heal() {
    blocked.clear();
    dropRate = 0;
    duplicateRate = 0;
    for (Node n : nodes.values()) {
      resume(n);
      n.diskFull = false;
      restart(n);
    }
    nemesis(OpType.INFO, "heal", "every fault undone");
  }

  private void nemesis(OpType type, String f, String value) {
    history.add(new Op(history.size(), NEMESIS, type, f, value, null, now * 1_000_000L, 0));
  }

  // ---- clients

  static final int CLIENT_BASE = 1_000_000;

  /** A client worker: one operation at a time, a fresh process after an indefinite one. */
  private final class Worker {
    final int index;
    long process;
    Operation op;
    long request = -1;
    /**
     * Where this client believes each partition's primary is: read from the table when it
     * learns nothing better, and again only after a failure or a timeout, as a client that
     * watches the table sees changes late.
     */
    final Map<Integer, Integer> routes = new HashMap<>();

    Worker(int index, long process) {
      this.index = index;
      this.process = process;
    }
  }

  private int partitionOf(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    return (int) Math.floorMod(h, (long) spec.partitions());
  }

  private void issue(Worker w) {
    if (clientsStop) {
      return;
    }
    send(w, workload.next(w.index));
  }

  private void send(Worker w, Operation op) {
    w.op = op;
    record(w.process, OpType.INVOKE, op.f(), op.value(), op.key());
    invoked++;
    long id = nextRequest++;
    w.request = id;
    outstanding.put(id, w);
    Bytes key = Bytes.ofLong(op.key());
    int p = partitionOf(op.key());
    Request r = switch (op.f()) {
      case Operation.READ -> new Request(id, p, Kind.GET, key, null, null);
      case Operation.WRITE -> new Request(id, p, Kind.PUT, key, null,
          Bytes.ofLong((Long) op.value()));
      default -> new Request(id, p, Kind.CAS, key,
          op.casExpected() == null ? null : Bytes.ofLong(op.casExpected()),
          Bytes.ofLong(op.casNew()));
    };
    int to = w.routes.computeIfAbsent(p, control::primary);
    transmit(new Envelope(CLIENT_BASE + w.index, to, r));
    schedule(CLIENT_TIMEOUT_MILLIS, () -> {
      if (outstanding.remove(id) != null) {
        complete(w, OpType.INFO, op.f().equals(Operation.READ) ? null : op.value());
      }
    });
  }

  private void onReply(Envelope e) {
    Reply r = (Reply) e.message();
    Worker w = outstanding.remove(r.id());
    if (w == null) {
      return; // timed out already: recorded as indefinite
    }
    Operation op = w.op;
    switch (r.outcome()) {
      case OK -> complete(w, OpType.OK, op.f().equals(Operation.READ)
          ? (r.value() == null ? null : r.value().toLong()) : op.value());
      case FAIL -> complete(w, OpType.FAIL, op.value());
      default -> complete(w, OpType.INFO, op.value());
    }
  }

  private void complete(Worker w, OpType type, Object value) {
    Operation op = w.op;
    if (type != OpType.OK) {
      w.routes.remove(partitionOf(op.key()));
    }
    Op done = record(w.process, type, op.f(), value, op.key());
    w.request = -1;
    if (type == OpType.INFO) {
      w.process = nextProcess++;
    } else if (type == OpType.OK && !finalReading) {
      workload.observe(w.index, op.key(), (Long) (op.f().equals(Operation.CAS)
          ? op.casNew() : value));
    }
    if (finalReading) {
      if (type == OpType.OK) {
        finalReads.put(op.key(), done);
      } else {
        finalQueue.add(op.key()); // again, later
        w.process = type == OpType.INFO ? w.process : nextProcess++;
      }
      schedule(type == OpType.OK ? 0 : 20, () -> finalRead(w));
      return;
    }
    schedule(chance.nextInt(3), () -> issue(w));
  }

  private void finalRead(Worker w) {
    while (!finalQueue.isEmpty()) {
      long key = finalQueue.remove(finalQueue.size() - 1);
      if (!finalReads.containsKey(key)) {
        send(w, new Operation(Operation.READ, key, null));
        return;
      }
    }
  }

  private Op record(long process, OpType type, String f, Object value, long key) {
    Op op = new Op(history.size(), process, type, f, value, key, now * 1_000_000L, 0);
    history.add(op);
    return op;
  }

  // ---- the check

  private SeedResult check(String unfinished) {
    List<Op> ops = List.copyOf(history);
    Analysis analysis = Linearizability.check(Models.casRegister(null, NilReads.STRICT),
        History.of("seed " + seed, ops), CheckOptions.defaults().withParallelism(1)
            .withTimeLimit(Duration.ofSeconds(60)).withStopOnFirstInvalid(true));
    LostWrites.Result lost = LostWrites.check(ops, finalReads, workload.keys());
    Verdict verdict;
    String reason;
    if (analysis.verdict() == Verdict.INVALID) {
      verdict = Verdict.INVALID;
      reason = analysis.failure().map(k -> "key " + k.key() + " not linearizable: "
          + (k.evidence() != null ? k.evidence().op() + ": " + k.evidence().message()
              : k.cause())).orElse("not linearizable: " + analysis.cause());
    } else if (!lost.ok()) {
      verdict = Verdict.INVALID;
      reason = lost.lost().size() + " acknowledged writes lost, first " + lost.lost().get(0);
    } else if (analysis.verdict() == Verdict.UNKNOWN) {
      verdict = Verdict.UNKNOWN;
      reason = "the checker could not decide: " + analysis.cause();
    } else if (!lost.unread().isEmpty()) {
      verdict = Verdict.UNKNOWN;
      reason = lost.unread().size() + " keys had no final read"
          + (unfinished == null ? "" : "; " + unfinished);
    } else {
      verdict = Verdict.VALID;
      reason = "linearizable; " + lost.acknowledged() + " acknowledged writes all read";
    }
    return new SeedResult(seed, verdict, reason, invoked, faults, plan, ops, analysis, lost,
        now);
  }
}
