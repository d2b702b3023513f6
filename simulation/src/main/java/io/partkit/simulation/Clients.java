package io.partkit.simulation;

import io.partkit.harness.system.Operation;
import io.partkit.harness.workload.RegisterWorkload;
import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Numbering;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The clients: verify's register workload, one operation at a time per worker, a worker taking a
 * fresh process after an indefinite outcome; then one ok final read per key, each attempt by a
 * fresh process. A request not answered within {@link #TIMEOUT_MILLIS} is indefinite ({@code
 * :info}), a refusal definite ({@code :fail}).
 *
 * <p>Scans. One operation in {@link #SCAN_ONE_IN} is instead a scan of one partition (the one a
 * recent key routes to) over a range of the most recent keys. The checker knows registers, not
 * ranges, so a scan enters the history as one read per workload key of its range and partition,
 * each by a fresh process (a process has one operation at a time): invoked when the scan is,
 * completed when it is, with the key's value in the page or nil when the page omits it; a key past
 * the last of a page that says more remain was not read, and its read is a {@code :fail}. Keys
 * handed out after the scan began are left out: their reads could not have been invoked then.
 */
final class Clients {

  static final long TIMEOUT_MILLIS = 600;

  /** One operation in this many is a scan. */
  static final int SCAN_ONE_IN = 20;

  /** A scan's range covers at most this many of the most recent keys. */
  static final int SCAN_SPAN = 24;

  /** A scan asks for at most this many entries. */
  static final int SCAN_LIMIT = 16;

  private final SimulationSpec spec;
  private final VirtualTime time;
  private final Random random;
  private final SimNetwork network;
  private final Supplier<Control> control;
  private final SimHistory history;
  private final RegisterWorkload workload;
  private final Worker[] workers;
  private final Map<Long, Worker> outstanding = new HashMap<>();
  private long nextRequest;
  private long nextProcess;
  private int invoked;
  private boolean stopped;
  private boolean finalReading;
  private final Map<Object, Op> finalReads = new HashMap<>();
  private final List<Long> finalQueue = new ArrayList<>();
  /** The keys the final reads must each read once (the workload hands out no more by then). */
  private int finalKeys;

  /** A client worker: one operation at a time. */
  private static final class Worker {
    final int index;
    long process;
    Operation op;
    /** The scan in flight instead of {@link #op}, if any. */
    ScanCall scan;
    /**
     * Where this client believes each key's partition and its primary are: read from the table
     * when it learns nothing better, and again only after a failure or a timeout, as a client
     * that watches the table sees changes (a failover, a split) late.
     */
    final Map<Long, Route> routes = new HashMap<>();

    Worker(int index, long process) {
      this.index = index;
      this.process = process;
    }
  }

  Clients(SimulationSpec spec, long seed, VirtualTime time, Random random, SimNetwork network,
      Supplier<Control> control, SimHistory history) {
    this.spec = spec;
    this.time = time;
    this.random = random;
    this.network = network;
    this.control = control;
    this.history = history;
    this.workload = new RegisterWorkload(seed, spec.concurrency(), spec.threadsPerKey(),
        spec.opsPerKey());
    this.workers = new Worker[spec.concurrency()];
    for (int w = 0; w < workers.length; w++) {
      workers[w] = new Worker(w, w);
    }
    nextProcess = workers.length;
  }

  /** A key's partition, its numbering and that partition's primary, as a client's table said. */
  private record Route(int partition, Numbering numbering, int primary) {}

  /**
   * A scan in flight: the key it was routed by, and the keys of its range and partition with the
   * process that reads each in the history.
   */
  private record ScanCall(long routedBy, List<Long> keys, List<Long> processes) {}

  /** Every worker starts within its first few milliseconds. */
  void start() {
    for (Worker w : workers) {
      time.schedule(random.nextInt(5), () -> issue(w));
    }
  }

  /** No new operations from now on; those in flight complete or time out. */
  void stop() {
    stopped = true;
  }

  boolean waiting() {
    return !outstanding.isEmpty();
  }

  int invoked() {
    return invoked;
  }

  List<Long> keys() {
    return workload.keys();
  }

  Map<Object, Op> finalReads() {
    return finalReads;
  }

  /** Reads every key once more until a read of each succeeds, spread over the workers. */
  void startFinalReads() {
    finalReading = true;
    finalQueue.addAll(workload.keys());
    finalKeys = finalQueue.size();
    Collections.reverse(finalQueue);
    for (Worker w : workers) {
      w.process = nextProcess++;
      time.schedule(0, () -> finalRead(w));
    }
  }

  boolean finalReadsDone() {
    return finalReads.size() >= finalKeys;
  }

  private void issue(Worker w) {
    if (stopped) {
      return;
    }
    if (random.nextInt(SCAN_ONE_IN) == 0 && !workload.keys().isEmpty()) {
      scan(w);
      return;
    }
    send(w, workload.next(w.index));
  }

  private Route route(Worker w, long key) {
    return w.routes.computeIfAbsent(key, k -> {
      int partition = control.get().partitionOf(Bytes.ofLong(k));
      Configure c = control.get().configuration(partition);
      return new Route(partition, c.numbering(), control.get().primary(partition));
    });
  }

  /** A scan of the partition of a recent key, over recent keys (see the class). */
  private void scan(Worker w) {
    List<Long> keys = workload.keys();
    int first = Math.max(0, keys.size() - 1 - random.nextInt(SCAN_SPAN));
    long routedBy = keys.get(first + random.nextInt(keys.size() - first));
    Long to = random.nextBoolean() ? null : keys.get(keys.size() - 1) + 1 - random.nextInt(2);
    int limit = 1 + random.nextInt(SCAN_LIMIT);
    Route route = route(w, routedBy);
    List<Long> covered = new ArrayList<>();
    List<Long> processes = new ArrayList<>();
    for (long key : keys.subList(first, keys.size())) {
      if ((to == null || key < to)
          && route.numbering().holds(route.partition(), Bytes.ofLong(key))) {
        covered.add(key);
        processes.add(nextProcess);
        history.client(nextProcess++, OpType.INVOKE, Operation.READ, null, key);
      }
    }
    invoked++;
    long id = nextRequest++;
    outstanding.put(id, w);
    w.scan = new ScanCall(routedBy, covered, processes);
    Scan scan = new Scan(id, route.partition(), route.numbering().modulus(),
        Bytes.ofLong(keys.get(first)), to == null ? null : Bytes.ofLong(to), limit,
        route.numbering().generation());
    network.transmit(new Envelope(SimNetwork.CLIENT_BASE + w.index, route.primary(), scan));
    time.schedule(TIMEOUT_MILLIS, () -> {
      if (outstanding.remove(id) != null) {
        completeScan(w, OpType.INFO, null);
      }
    });
  }

  /** The scan's reads complete (see the class). */
  private void completeScan(Worker w, OpType type, Page page) {
    ScanCall call = w.scan;
    w.scan = null;
    if (type != OpType.OK) {
      w.routes.remove(call.routedBy());
    }
    List<Read> reads = project(call.keys(), type, page);
    for (int i = 0; i < reads.size(); i++) {
      history.client(call.processes().get(i), reads.get(i).type(), Operation.READ,
          reads.get(i).value(), call.keys().get(i));
    }
    time.schedule(random.nextInt(3), () -> issue(w));
  }

  /** How a read of one key completes: its type and the value read (null: nil, or none). */
  record Read(OpType type, Long value) {}

  /**
   * The reads of {@code keys} a scan that completed as {@code type} stands for, in order: OK,
   * each key's value in the page or nil when the page omits it, and {@code :fail} for a key past
   * the last of a page that says more remain (not read); otherwise each read completes as the
   * scan did.
   */
  static List<Read> project(List<Long> keys, OpType type, Page page) {
    List<Read> reads = new ArrayList<>(keys.size());
    for (long key : keys) {
      Bytes k = Bytes.ofLong(key);
      if (type != OpType.OK) {
        reads.add(new Read(type, null));
      } else if (page.more() && k.compareTo(page.entries().lastKey()) > 0) {
        reads.add(new Read(OpType.FAIL, null));
      } else {
        Bytes v = page.entries().get(k);
        reads.add(new Read(OpType.OK, v == null ? null : v.toLong()));
      }
    }
    return reads;
  }

  private void send(Worker w, Operation op) {
    w.op = op;
    history.client(w.process, OpType.INVOKE, op.f(), op.value(), op.key());
    invoked++;
    long id = nextRequest++;
    outstanding.put(id, w);
    Bytes key = Bytes.ofLong(op.key());
    Route route = route(w, op.key());
    int p = route.partition();
    Request r;
    if (op.f().equals(Operation.READ)) {
      r = new Request(id, p, Kind.GET, key, null, null);
    } else if (op.f().equals(Operation.WRITE)) {
      r = new Request(id, p, Kind.PUT, key, null, Bytes.ofLong((Long) op.value()));
    } else {
      r = new Request(id, p, Kind.CAS, key,
          op.casExpected() == null ? null : Bytes.ofLong(op.casExpected()),
          Bytes.ofLong(op.casNew()));
    }
    network.transmit(new Envelope(SimNetwork.CLIENT_BASE + w.index, route.primary(), r));
    time.schedule(TIMEOUT_MILLIS, () -> {
      if (outstanding.remove(id) != null) {
        complete(w, OpType.INFO, op.f().equals(Operation.READ) ? null : op.value());
      }
    });
  }

  /** A node's reply or page. */
  void onReply(Envelope e) {
    if (e.message() instanceof Page page) {
      Worker w = outstanding.remove(page.id());
      if (w != null) {
        completeScan(w, page.outcome() == Outcome.OK ? OpType.OK : OpType.FAIL, page);
      }
      return;
    }
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
      w.routes.remove(op.key());
    }
    Op done = history.client(w.process, type, op.f(), value, op.key());
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
      time.schedule(type == OpType.OK ? 0 : 20, () -> finalRead(w));
      return;
    }
    time.schedule(random.nextInt(3), () -> issue(w));
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
}
