package io.partkit.replica.node;

import io.partkit.coordinator.LoadSource;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Control;
import io.partkit.replica.Message;
import io.partkit.replica.Numbering;
import io.partkit.replica.Placement;
import io.partkit.replica.TargetPlacement;
import io.partkit.replica.Timing;
import io.partkit.replica.node.access.Admission;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.replica.node.load.PartitionSizes;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A partkit {@link MigrationExecutor} whose data plane is the replica core: a coordinator
 * ({@code ClusterCoordinator}) decides the table, and this executor runs the replica core's
 * {@link Control} in the coordinator's process and hands it the coordinator's rows as its
 * placement ({@link TargetPlacement}). The control then moves each partition toward its row by
 * the core's safe steps, with nodes that are {@code ReplicaNodeMain --role node} processes whose
 * {@code --control} is this executor's control address.
 *
 * <p>The decisions are pure code: the core's, {@link CoordinatedTargets}' (what to carry out)
 * and {@link SpanMap}'s (which core partition is which coordinator partition, which splits to
 * make); this class only carries them out: it queues placements and splits on the control's
 * thread and looks at its table there.
 *
 * <h2>Partition numbers</h2>
 * The core numbers the keys of the coordinator's first table as its scheme does ({@link
 * Numbering#of}): hash slots over MURMUR3_128 (the {@code fixed} and {@code rendezvous}
 * strategies), key ranges ({@code range}) or a token ring ({@code tokenring}); a table of another
 * scheme fails {@link #activate}. The core's numbers are stable (partition {@code p} at modulus
 * {@code m} splits into {@code p} and {@code p + m}) where the coordinator's indices are
 * positions, which a key-range split shifts and a token-ring join re-ranks; so every coordinator
 * index is translated through a {@link SpanMap} of the table it belongs to and the control's
 * table, matched by span (the identity for hash slots). Rows, migrations, completion checks and
 * loads all go through it.
 *
 * <ul>
 *   <li>{@link #migrate}: the migration's target nodes join its partition: the target is the
 *       committed row followed by the target nodes it lacks, its primary unchanged, so the
 *       control adds each as a backup that the primary levels while it goes on serving, and
 *       hands nothing over. The stage completes once every target node is a member the control
 *       counts level in each core partition of equal span, no move under way, and that table is
 *       durable: ready to commit. The source is not fenced: it serves until the activation, and
 *       every write it takes is replicated to the joined copies, which so stay caught up. A
 *       migration not ready within the step timeout is withdrawn (its joined copies leave again)
 *       and the stage fails with a {@link TimeoutException}.
 *   <li>{@link #activate}: the committed table is the target of every partition, but for
 *       migrations asked for since (a later epoch's); a migration ready before the call is
 *       decided by it, as is one the table is at or past the target epoch of. So the control
 *       makes each committed primary the primary by its safe handover (the source drains its
 *       round in flight, the target takes over at a new epoch; the core's epochs fence the
 *       source), and the members the row does not name leave; a migration the table abandons
 *       is rolled back, its joined copies leaving. The stage completes once every partition
 *       another primary led when it was called is led by its committed primary, which took that
 *       configuration (it answered the control's heartbeat at its epoch), or fails after the
 *       step timeout naming the partitions not handed over. The first table starts the control:
 *       its first table is the coordinator's rows, every copy empty, or it is restored from its
 *       state in the store. It fails when the control's table is not at least as fine as the
 *       committed one (another table's state in the store).
 *   <li>{@link #prepareSplit}: a scheme change that re-cuts the committed table without moving
 *       data (a key-range split, a token-ring join's new tokens, a key-range merge of ranges on
 *       the same replicas) is checked ({@link SpanMap#checkRefines}: each new partition on the
 *       row of every committed one it overlaps), then the control splits each core partition at
 *       every new boundary
 *       inside it ({@link Control#split(int, io.partkit.replica.Bytes)}), and the stage
 *       completes once its table holding them is durable. Every configuration carries its
 *       numbering and epoch, so nodes and clients need no fence: a node divides its copy when the
 *       new numbering reaches it, and a client routes by the control's table. A split that
 *       cannot start yet (a move under way) is tried again until the step timeout. If the
 *       coordinator then does not commit the split table, the core stays finer than the table:
 *       each coordinator partition then maps to the core partitions inside it, which all take
 *       its row, so the next table's rows are carried out as before. A merge is carried out the
 *       same way: the core keeps the dropped boundary, so the merged range maps to the core
 *       partitions it covers, all on its replicas already, and moves as one from then on (why no
 *       core merge: {@link SpanMap}). So a merge changes nothing in the core and needs no fence;
 *       a crash before the commit leaves the old table, which the core also refines.
 *   <li>{@link #resume}: a migration the table decided completes once the control carried
 *       the row out and its primary serves, fails when the table abandoned it; an undecided one
 *       is asked for again, as by {@link #migrate}.
 * </ul>
 *
 * <p>Limits: a re-cut that would move data (a new range over committed ranges on different
 * replicas) is refused by {@link #prepareSplit}, naming the partition; the coordinator refuses
 * it first, as it does a token-ring leave (whose merged ranges are on different replicas). Hash
 * slots keep their count.
 *
 * <p>{@link #loadSource()} is the load view for load-aware rebalancing: each partition's
 * requests a second, as its primaries reported them to the control, over the last load window,
 * summed over the core partitions inside each coordinator partition. {@link #sizes} is the
 * size view for splits by size: each partition's keys and median key, as its primaries report
 * them in their load views, for {@code RangeSplits.plan}.
 *
 * <p>The control is fail-stop, as in its own process: a failure on its decision or storage
 * path, or another control writing its state in the store, halts this process.
 */
public final class ReplicaMigrationExecutor implements MigrationExecutor.MovesReplicas,
    MigrationExecutor.SplitsPartitions, AutoCloseable {

  /** How often the control's table is looked at while migrations are asked for. */
  static final Duration CHECK_EVERY = Duration.ofMillis(20);

  private final List<InetSocketAddress> nodes;
  private final InetSocketAddress controlAddress;
  private final VersionedValues values;
  private final Path data;
  private final Timing timing;
  private final int replicas;
  private final Duration stepTimeout;
  private final Duration loadWindow;
  private final ConnectionPolicy policy;
  private final SharedSecret secret;
  private final Consumer<String> log;
  /** The last two looks at the control's load view, the later second; null: none yet. */
  private final AtomicReference<LoadLook[]> samples = new AtomicReference<>();
  private final ScheduledExecutorService checks;
  /** Completes stages off the control's thread: a stage's callbacks may take their time. */
  private final ExecutorService completions;
  private final Map<Migration, Asked> waiting = new ConcurrentHashMap<>();
  /** Activations waiting for their handovers, each completed or failed by {@link #check}. */
  private final List<Activation> activations = new CopyOnWriteArrayList<>();
  private CoordinatedTargets targets;
  private ReplicaNode control;
  private final CompletableFuture<ReplicaNode> started = new CompletableFuture<>();
  private boolean closed;

  /** A migration whose stage waits for the control to carry it out. */
  private record Asked(CompletableFuture<Migration> stage, long deadlineNanos) {}

  /**
   * An activation waiting until each partition of {@code handovers} (a coordinator index of
   * {@code committed}, to the node number of its committed primary) is served by that primary.
   */
  private record Activation(PartitionAssignment committed, Map<Integer, Integer> handovers,
      CompletableFuture<Void> stage, long deadlineNanos) {}

  /** A sample of the control's load view with its table's numberings, to map it by span. */
  private record LoadLook(LoadRates.Sample sample, SortedMap<Integer, Numbering> numberings) {}

  private ReplicaMigrationExecutor(Builder b) {
    this.nodes = List.copyOf(b.nodes.values());
    Map<NodeId, Integer> numbers = new LinkedHashMap<>();
    for (NodeId id : b.nodes.keySet()) {
      numbers.put(id, numbers.size());
    }
    this.targets = CoordinatedTargets.over(numbers);
    this.controlAddress = b.control;
    this.values = b.values;
    this.data = b.data;
    this.timing = b.timing;
    this.replicas = b.replicas;
    this.stepTimeout = b.stepTimeout;
    this.loadWindow = b.loadWindow;
    this.policy = ConnectionPolicy.of(b.secret);
    this.secret = b.secret;
    this.log = b.log;
    this.checks = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "executor-checks"));
    this.completions = Executors.newSingleThreadExecutor(r -> daemon(r, "executor-stages"));
    checks.scheduleWithFixedDelay(this::check, CHECK_EVERY.toMillis(), CHECK_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
    checks.scheduleAtFixedRate(this::sampleLoad, 0, loadWindow.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** A builder: nodes in their numbering order, the control's address, where its state goes. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public CompletionStage<Migration> migrate(Migration migration) {
    synchronized (this) {
      if (control == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("no table was "
            + "activated yet: the control starts with the first table the coordinator commits"));
      }
      return ask(migration);
    }
  }

  @Override
  public CompletionStage<Migration> resume(Migration migration, PartitionAssignment committed) {
    synchronized (this) {
      try {
        start(committed);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      if (!CoordinatedTargets.decides(committed, migration)) {
        return ask(migration);
      }
      if (!CoordinatedTargets.carries(committed, migration)) {
        return CompletableFuture.failedFuture(new IllegalStateException("the table at epoch "
            + committed.epoch() + " abandoned " + migration + ": its partition stays on "
            + committed.replicas(migration.partition())));
      }
      if (targets.committed().map(t -> t.epoch() < committed.epoch()).orElse(true)) {
        // decided by a table this executor was not handed yet: its row is the target now
        targets = targets.commit(committed);
        place(c -> null);
      }
      return await(migration); // the committed row is its target: handed over, then finished
    }
  }

  @Override
  public CompletionStage<Void> activate(PartitionAssignment committed) {
    CompletableFuture<Void> handed = new CompletableFuture<>();
    synchronized (this) {
      try {
        CoordinatedTargets.checkNumbering(committed);
        start(committed);
        // asked and no longer waiting: ready to commit before this table, which decides them
        List<Migration> ready = new ArrayList<>(targets.asked());
        ready.removeAll(waiting.keySet());
        targets = targets.commit(committed, ready);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      waiting.forEach((m, a) -> {
        if (CoordinatedTargets.decides(committed, m) && !CoordinatedTargets.carries(committed, m)) {
          waiting.remove(m);
          later(() -> a.stage().completeExceptionally(new IllegalStateException(
              "the table at epoch " + committed.epoch() + " abandoned " + m)));
        }
      });
      for (Activation a : activations) {
        if (a.committed().epoch() < committed.epoch() && activations.remove(a)) {
          later(() -> a.stage().completeExceptionally(new IllegalStateException("the table at "
              + "epoch " + a.committed().epoch() + " was succeeded by the one at epoch "
              + committed.epoch() + " before it was served")));
        }
      }
      long deadline = System.nanoTime() + stepTimeout.toNanos();
      CoordinatedTargets numbers = targets;
      place(c -> {
        SpanMap map;
        try {
          map = SpanMap.of(committed.scheme(), numberings(c));
        } catch (IllegalArgumentException e) {
          return () -> later(() -> handed.completeExceptionally(new IllegalStateException(
              "the table at epoch " + committed.epoch() + ": " + e.getMessage()
              + "; the control's state in the store is another table's", e)));
        }
        Map<Integer, Integer> handovers = handovers(c, map, committed, numbers);
        if (handovers.isEmpty()) {
          return () -> later(() -> handed.complete(null));
        }
        log.accept("executor: the table at epoch " + committed.epoch() + " hands "
            + handovers.size() + " partitions over to their committed primaries");
        activations.add(new Activation(committed, handovers, handed, deadline));
        return null;
      });
    }
    return handed;
  }

  /**
   * The partitions of {@code committed} that another primary than the committed one leads in the
   * control's table (in a core partition inside), to the node number of the committed primary:
   * the handovers an activation waits for. A partition its committed primary leads already is
   * not waited for: it serves as soon as that node answers, which is no activation's to wait for.
   */
  private static Map<Integer, Integer> handovers(Control c, SpanMap map,
      PartitionAssignment committed, CoordinatedTargets numbers) {
    Map<Integer, Integer> handovers = new TreeMap<>();
    for (int p = 0; p < committed.partitionCount(); p++) {
      int primary = numbers.nodes(List.of(committed.primary(p)), "partition " + p).get(0);
      for (int core : map.cores(p)) {
        if (c.primary(core) != primary) {
          handovers.put(p, primary);
        }
      }
    }
    return handovers;
  }

  /**
   * Whether {@code primary} leads every one of {@code cores} with no move under way, and last
   * answered the control's heartbeat holding each at its current epoch: it took the
   * configuration that makes it primary, so requests reaching it are served (after its level).
   */
  private static boolean served(Control c, int primary, List<Integer> cores) {
    for (int core : cores) {
      if (c.primary(core) != primary || c.moving(core) || !c.answeredAtEpoch(core, primary)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Has the control split its partitions along {@code split}'s new boundaries; a boundary
   * {@code split} drops (a merge) stays in the core. See the class comment. Idempotent: splits
   * made before are not made again.
   *
   * @return completes once the control's table holding every split is durable; fails when
   *     {@code split} would move data off {@code committed}'s rows (naming where and what was
   *     expected),
   *     or a split could not start within the step timeout
   */
  @Override
  public CompletionStage<Void> prepareSplit(PartitionAssignment committed,
      PartitionAssignment split) {
    CompletableFuture<Void> prepared = new CompletableFuture<>();
    synchronized (this) {
      try {
        CoordinatedTargets.checkNumbering(split);
        SpanMap.checkRefines(committed, split);
        start(committed);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      splitToward(split, System.nanoTime() + stepTimeout.toNanos(), prepared);
    }
    return prepared;
  }

  /**
   * On the control's thread: makes the splits {@code split} still needs, in {@link
   * SpanMap#splits}' order, and hands the control its targets, the new partitions taking the
   * rows of the committed partitions holding them; {@code prepared} completes once that is
   * durable. A split that cannot start yet is tried again a check later, until {@code deadline}.
   */
  private void splitToward(PartitionAssignment split, long deadlineNanos,
      CompletableFuture<Void> prepared) {
    CoordinatedTargets now;
    ReplicaNode node;
    synchronized (this) {
      if (closed) {
        return;
      }
      now = targets;
      node = control;
    }
    inspectControl(node, c -> {
      List<SpanMap.CoreSplit> splits;
      int made = 0;
      try {
        splits = SpanMap.splits(split.scheme(), numberings(c));
        for (SpanMap.CoreSplit s : splits) {
          if (c.split(s.partition(), s.cut()).isEmpty()) {
            break; // a move under way, or a primary that lost its copy: the next try
          }
          made++;
        }
      } catch (RuntimeException e) {
        return () -> later(() -> prepared.completeExceptionally(e));
      }
      if (made > 0) {
        placeOn(c, now);
        log.accept("executor: " + made + " splits made toward the table at epoch "
            + split.epoch() + " (" + split.partitionCount() + " partitions)");
      }
      if (made == splits.size()) {
        return () -> later(() -> prepared.complete(null));
      }
      SpanMap.CoreSplit stuck = splits.get(made);
      if (System.nanoTime() - deadlineNanos > 0) {
        TimeoutException late = new TimeoutException("the control could not split partition "
            + stuck.partition() + " at " + stuck.cut() + " within " + stepTimeout + " (a move"
            + " under way, or a primary that lost its copy); " + (splits.size() - made)
            + " splits toward the table at epoch " + split.epoch() + " not made");
        return () -> later(() -> prepared.completeExceptionally(late));
      }
      try {
        checks.schedule(() -> splitToward(split, deadlineNanos, prepared),
            CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // closed: the stage never completes, as every other one
      }
      return null;
    });
  }

  /** Asks for {@code migration}: its target nodes join its partition's row as copies. */
  private CompletionStage<Migration> ask(Migration migration) {
    try {
      targets = targets.ask(migration);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletionStage<Migration> stage = await(migration);
    place(c -> null);
    return stage;
  }

  private CompletionStage<Migration> await(Migration migration) {
    Asked asked = new Asked(new CompletableFuture<>(), System.nanoTime() + stepTimeout.toNanos());
    Asked before = waiting.put(migration, asked);
    if (before != null) {
      before.stage().whenComplete((m, e) -> {
        if (e == null) {
          asked.stage().complete(m);
        } else {
          asked.stage().completeExceptionally(e);
        }
      });
    }
    return asked.stage();
  }

  /**
   * Starts the control on its first table, {@code committed}: its state read from the store or
   * log, or a table of {@code committed}'s rows with every copy empty.
   */
  private void start(PartitionAssignment committed) {
    if (control != null) {
      return;
    }
    if (closed) {
      throw new IllegalStateException("the executor is closed");
    }
    CoordinatedTargets first = targets.commit(committed);
    Optional<Placement> placement =
        Optional.of(TargetPlacement.of(first.targets()));
    try {
      control = values != null
          ? ReplicaNode.control(nodes, controlAddress, values, "the coordinator's store",
              committed.scheme(), replicas, placement, timing, policy, log)
          : ReplicaNode.control(nodes, controlAddress, data, committed.scheme(),
              replicas, placement, timing, policy, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the control on " + controlAddress, e);
    }
    targets = first;
    log.accept("executor: control started on " + controlAddress + " with the table at epoch "
        + committed.epoch());
    // a control restored from the store may number partitions otherwise than the table's
    // indices (splits): its placement is translated before its first decision
    place(c -> null);
    started.complete(control);
  }

  /**
   * Hands the control the targets as they are now, then runs {@code then} on its thread with
   * them in place: its action runs once what the control decided until then is durable.
   */
  private void place(Function<Control, Runnable> then) {
    CoordinatedTargets now = targets;
    inspectControl(control, c -> {
      placeOn(c, now);
      return then.apply(c);
    });
  }

  /**
   * On the control's thread: {@code now}'s targets, translated to the core's numbers by span, as
   * the control's placement. A table the control's is not as fine as is not placed: {@link
   * #activate} reports it.
   */
  private void placeOn(Control c, CoordinatedTargets now) {
    Optional<PartitionAssignment> committed = now.committed();
    if (committed.isEmpty()) {
      return;
    }
    SpanMap map;
    try {
      map = SpanMap.of(committed.get().scheme(), numberings(c));
    } catch (IllegalArgumentException e) {
      log.accept("executor: the table at epoch " + committed.get().epoch() + " not placed: "
          + e.getMessage());
      return;
    }
    c.place(TargetPlacement.of(map.toCore(now.targets())));
  }

  /** Runs {@code look} on the control's thread, as {@link ReplicaNode#inspect}. */
  private static void inspectControl(ReplicaNode node, Function<Control, Runnable> look) {
    try {
      node.inspect(look);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing the control its targets", e);
    }
  }

  /** The control's table: each partition's numbering, by number. */
  static SortedMap<Integer, Numbering> numberings(Control c) {
    TreeMap<Integer, Numbering> n = new TreeMap<>();
    for (int p : c.partitionIds()) {
      n.put(p, c.configuration(p).numbering());
    }
    return n;
  }

  /**
   * The load view, for {@code Coordinators.Builder#loadSource}: each partition's requests a
   * second over the last load window (between the last two samples of the control's view, one
   * each window), summed over the core partitions inside it, tied to the epoch of the table
   * asked about; empty until two samples were taken after the control started, and for a table
   * the control's (as it was at the later sample) is not as fine as.
   */
  public LoadSource loadSource() {
    return table -> {
      LoadLook[] last = samples.get();
      if (last == null || last[0] == null) {
        return Optional.empty();
      }
      SpanMap map;
      try {
        map = SpanMap.of(table.scheme(), last[1].numberings());
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
      return Optional.of(PartitionLoads.of(table.epoch(), map.sumByIndex(
          LoadRates.byPartition(last[0].sample(), last[1].sample()))));
    };
  }

  /**
   * The keys each partition of {@code table} holds and the key a size-driven split would cut it
   * at, read now, for {@code RangeSplits.plan} (a coordinator over the cores splits ranges by
   * size with it, as {@code ReplicaCoordinatorMain --split-size} does). Each core partition's
   * figures are those its primary in the control's table reports in its load view ({@link
   * ReplicaClient#nodeLoad}: its keys, and the median key of a key range); they are mapped to
   * {@code table}'s partitions by span ({@link SpanMap#sizesByIndex}: keys summed, the split
   * key of the largest core partition inside each). Blocking: call it off the control's thread.
   *
   * @throws IOException when a primary cannot be read within the timeout of 2 seconds
   * @throws IllegalStateException when the control has not started, its table is not as fine
   *     as {@code table}, or a primary does not report its partition at the control's epoch (a
   *     change under way: ask again once it is carried out); each names what it found
   */
  public PartitionSizes sizes(PartitionAssignment table) throws IOException {
    ReplicaNode c;
    synchronized (this) {
      c = control;
    }
    if (c == null) {
      throw new IllegalStateException("no table was activated: the control has not started");
    }
    CompletableFuture<SortedMap<Integer, Message.Configure>> read = new CompletableFuture<>();
    inspectControl(c, control -> {
      TreeMap<Integer, Message.Configure> rows = new TreeMap<>();
      for (int p : control.partitionIds()) {
        rows.put(p, control.configuration(p));
      }
      read.complete(rows);
      return null;
    });
    SortedMap<Integer, Message.Configure> rows;
    try {
      rows = read.get(stepTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the control's table", e);
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the control's table could not be read: " + e, e);
    }
    SortedMap<Integer, Numbering> numberings = new TreeMap<>();
    rows.forEach((p, row) -> numberings.put(p, row.numbering()));
    SpanMap map;
    try {
      map = SpanMap.of(table.scheme(), numberings);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("no sizes of the table at epoch " + table.epoch() + ": "
          + e.getMessage(), e);
    }
    Map<Integer, NodeLoad> views = new TreeMap<>();
    try (ReplicaClient client = ReplicaClient.builder(List.of(controlAddress), nodes)
        .timeout(Duration.ofSeconds(2)).secret(secret).build()) {
      for (Message.Configure row : rows.values()) {
        if (!views.containsKey(row.primary())) {
          views.put(row.primary(), client.nodeLoad(row.primary()));
        }
      }
    }
    Map<Integer, SpanMap.CoreSize> byCore = new TreeMap<>();
    rows.forEach((p, row) -> {
      PartitionLoad load = views.get(row.primary()).partition(p).orElseThrow(() ->
          new IllegalStateException("node " + row.primary() + " does not report partition " + p
              + " it leads at epoch " + row.epoch() + " in the control's table: it has not"
              + " taken it over yet; ask again"));
      if (load.epoch() != row.epoch()) {
        throw new IllegalStateException("node " + row.primary() + " reports partition " + p
            + " at epoch " + load.epoch() + ", the control's table has it at " + row.epoch()
            + ": a change under way; ask again");
      }
      byCore.put(p, new SpanMap.CoreSize(load.keys(), load.splitKey()));
    });
    List<SpanMap.CoreSize> sizes = map.sizesByIndex(byCore);
    double[] keys = new double[sizes.size()];
    List<byte[]> splitKeys = new ArrayList<>(sizes.size());
    for (int i = 0; i < keys.length; i++) {
      keys[i] = sizes.get(i).keys();
      splitKeys.add(sizes.get(i).splitKey());
    }
    return new PartitionSizes(table, PartitionLoads.of(table.epoch(), keys), splitKeys);
  }

  /** Takes a sample of the control's load view on its thread. */
  private void sampleLoad() {
    ReplicaNode c;
    synchronized (this) {
      c = control;
    }
    if (c == null) {
      return;
    }
    try {
      c.inspect(control -> {
        LoadLook now = new LoadLook(new LoadRates.Sample(System.nanoTime(), control.served()),
            numberings(control));
        samples.updateAndGet(last -> new LoadLook[] {last == null ? null : last[1], now});
        return null;
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Tells the control that {@code node} is lost for good, disk and all ({@link Control#forget}):
   * none of its copies counts level from then on, so none is promoted or copied from. The
   * coordinator's leave of the member, and the rebalance that re-creates its copies elsewhere,
   * come after this completes.
   *
   * @return completes once the control's table without it is durable
   */
  public CompletionStage<Void> forget(int node) {
    return onControl(c -> c.forget(node));
  }

  /**
   * Tells the control that {@code node} (a fresh one in a forgotten node's place) is a node it
   * heartbeats ({@link Control#join}); the coordinator's join of the member follows.
   *
   * @return completes once the control's table with it is durable
   */
  public CompletionStage<Void> join(int node) {
    return onControl(c -> c.join(node));
  }

  /** Runs {@code change} on the control's thread; completes once what it decided is durable. */
  private CompletionStage<Void> onControl(Consumer<Control> change) {
    ReplicaNode c;
    synchronized (this) {
      c = control;
    }
    if (c == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("no table was activated:"
          + " the control has not started"));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    inspectControl(c, control -> {
      change.accept(control);
      return () -> later(() -> done.complete(null));
    });
    return done;
  }

  /** Completes with the control once the first table started it: for its process's lines. */
  CompletionStage<ReplicaNode> startedControl() {
    return started;
  }

  /**
   * Completes the stages of migrations and activations the control carried out; withdraws the
   * migrations past due and fails the activations past due.
   */
  private void check() {
    if (waiting.isEmpty() && activations.isEmpty()) {
      return;
    }
    ReplicaNode c;
    CoordinatedTargets now;
    synchronized (this) {
      c = control;
      long t = System.nanoTime();
      CoordinatedTargets before = targets;
      for (Map.Entry<Migration, Asked> e : waiting.entrySet()) {
        if (t - e.getValue().deadlineNanos() > 0 && waiting.remove(e.getKey(), e.getValue())) {
          targets = targets.withdraw(e.getKey());
          log.accept("executor: " + e.getKey() + " not carried out within " + stepTimeout
              + ": withdrawn");
          later(() -> e.getValue().stage().completeExceptionally(
              new TimeoutException(e.getKey() + " was not carried out within " + stepTimeout
                  + ": withdrawn, its partition's joined copies leave again")));
        }
      }
      if (targets != before) {
        place(x -> null); // once for every migration withdrawn
      }
      now = targets;
    }
    if (c == null) {
      return;
    }
    Map<Integer, List<Integer>> wanted = now.targets();
    List<Map.Entry<Migration, Asked>> candidates = new ArrayList<>(waiting.entrySet());
    List<Activation> pending = List.copyOf(activations);
    Optional<PartitionAssignment> committed = now.committed();
    if (committed.isEmpty()) {
      return;
    }
    try {
      c.inspect(control -> {
        SpanMap map;
        try {
          map = SpanMap.of(committed.get().scheme(), numberings(control));
        } catch (IllegalArgumentException e) {
          return null; // activate reports it; nothing is carried out on such a table
        }
        List<Map.Entry<Migration, Asked>> done = new ArrayList<>();
        for (Map.Entry<Migration, Asked> e : candidates) {
          if (ready(control, map, now, wanted, committed.get(), e.getKey())) {
            done.add(e);
          }
        }
        List<Runnable> finished = new ArrayList<>();
        for (Activation a : pending) {
          finished.add(activated(control, a));
        }
        finished.removeIf(Objects::isNull);
        if (done.isEmpty() && finished.isEmpty()) {
          return null;
        }
        return () -> later(() -> {
          done.forEach(e -> {
            if (waiting.remove(e.getKey(), e.getValue())) {
              e.getValue().stage().complete(e.getKey());
            }
          });
          finished.forEach(Runnable::run);
        });
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * On the control's thread: whether {@code m}'s stage may complete. A migration asked for is
   * ready to commit once its partition's target is its joined row and every target node is a
   * level member of each core partition inside ({@link CoordinatedTargets#joinedLevel}); one the
   * committed table carries is finished once the control carried the row out and its primary
   * serves ({@link #served}).
   */
  private static boolean ready(Control control, SpanMap map, CoordinatedTargets now,
      Map<Integer, List<Integer>> wanted, PartitionAssignment committed, Migration m) {
    int p = m.partition();
    if (p >= committed.partitionCount()) {
      return false;
    }
    List<Integer> target = now.nodes(m.targetReplicas(), "the target of " + m);
    List<Integer> cores = map.cores(p);
    if (now.isAsked(m)) {
      if (!wanted.get(p).equals(CoordinatedTargets.joined(
          now.nodes(committed.replicas(p), "partition " + p), target))) {
        return false;
      }
      for (int core : cores) {
        if (!CoordinatedTargets.joinedLevel(target, control.configuration(core),
            control.levelMembers(core), control.moving(core))) {
          return false;
        }
      }
      return true;
    }
    if (!CoordinatedTargets.decides(committed, m) || !CoordinatedTargets.carries(committed, m)) {
      return false; // withdrawn or abandoned: its stage fails elsewhere
    }
    return carriedOut(control, target, cores) && served(control, target.get(0), cores);
  }

  /**
   * On the control's thread: what completes {@code a} now, once each of its handovers is served
   * or, past its deadline, fails it naming the partitions not served; null while it waits.
   */
  private Runnable activated(Control control, Activation a) {
    SpanMap map;
    try {
      map = SpanMap.of(a.committed().scheme(), numberings(control));
    } catch (IllegalArgumentException e) {
      map = null;
    }
    List<Integer> unserved = new ArrayList<>();
    for (Map.Entry<Integer, Integer> h : a.handovers().entrySet()) {
      if (map == null || !served(control, h.getValue(), map.cores(h.getKey()))) {
        unserved.add(h.getKey());
      }
    }
    if (unserved.isEmpty()) {
      return () -> {
        if (activations.remove(a)) {
          a.stage().complete(null);
        }
      };
    }
    if (System.nanoTime() - a.deadlineNanos() > 0) {
      return () -> {
        if (activations.remove(a)) {
          a.stage().completeExceptionally(new TimeoutException("the table at epoch "
              + a.committed().epoch() + " is not served within " + stepTimeout + ": partitions "
              + unserved + " are not yet led by their committed primaries (a node down?); the "
              + "control goes on handing them over"));
        }
      };
    }
    return null;
  }

  /** Whether {@code target} leads every one of {@code cores}, all level, none moving. */
  private static boolean carriedOut(Control control, List<Integer> target, List<Integer> cores) {
    for (int core : cores) {
      if (!CoordinatedTargets.carriedOut(target, control.configuration(core),
          control.levelMembers(core), control.moving(core))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Runs {@code r} on the executor's own thread, never the control's: a stage's callbacks (the
   * coordinator's commit) may take their time. Once closed, nothing runs: stages still waiting
   * never complete.
   */
  private void later(Runnable r) {
    try {
      completions.execute(r);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** Stops the control and the executor's threads; stages still waiting never complete. */
  @Override
  public void close() {
    checks.shutdownNow();
    synchronized (this) {
      closed = true;
      if (control != null) {
        control.close();
      }
    }
    completions.shutdownNow();
  }

  /** Builds a {@link ReplicaMigrationExecutor}. */
  public static final class Builder {
    private final Map<NodeId, InetSocketAddress> nodes = new LinkedHashMap<>();
    private InetSocketAddress control;
    private VersionedValues values;
    private Path data;
    private Timing timing = ReplicaNodeMain.TIMING;
    private int replicas;
    private Duration stepTimeout = Duration.ofMinutes(2);
    private Duration loadWindow = Duration.ofSeconds(10);
    private SharedSecret secret;
    private Consumer<String> log = System.err::println;

    private Builder() {}

    /**
     * The next node: the coordinator's member {@code id}, a {@code ReplicaNodeMain --role node}
     * process listening on {@code address}. Nodes are numbered in the order given, and each
     * node's {@code --id} and {@code --nodes} must follow that order.
     */
    public Builder node(NodeId id, InetSocketAddress address) {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(address, "address");
      if (nodes.putIfAbsent(id, address) != null) {
        throw new IllegalArgumentException("node " + id + " is given twice");
      }
      return this;
    }

    /**
     * Copies of each partition, primary included: the strategy's replication factor, which the
     * control keeps where nodes allow. A table of fewer members than that has shorter rows, and
     * the control keeps its own copies after them (so a cluster that grows past it needs no
     * other count).
     */
    public Builder replicas(int replicas) {
      if (replicas < 1) {
        throw new IllegalArgumentException("replicas must be at least 1, got " + replicas);
      }
      this.replicas = replicas;
      return this;
    }

    /** Where the control listens: every node's {@code --control}. */
    public Builder control(InetSocketAddress address) {
      this.control = Objects.requireNonNull(address, "address");
      return this;
    }

    /**
     * Keeps the control's state in the coordinator's store, one value ({@code replica-control}):
     * give the store the coordinator runs on, when it has the ability.
     */
    public Builder store(VersionedValues values) {
      this.values = Objects.requireNonNull(values, "values");
      return this;
    }

    /** Keeps the control's state in a log in {@code dir} instead of a store. */
    public Builder data(Path dir) {
      this.data = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /** The protocol's timing; default {@link ReplicaNodeMain#TIMING}, as the nodes'. */
    public Builder timing(Timing timing) {
      this.timing = Objects.requireNonNull(timing, "timing");
      return this;
    }

    /** How long a migration may take before it is withdrawn; default 2 minutes. */
    public Builder stepTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("the step timeout must be positive, got " + timeout);
      }
      this.stepTimeout = timeout;
      return this;
    }

    /** How long the load view's rates are measured over ({@link #loadSource}); default 10 s. */
    public Builder loadWindow(Duration window) {
      if (window.toMillis() < 1) {
        throw new IllegalArgumentException("the load window must be at least 1 ms, got "
            + window);
      }
      this.loadWindow = window;
      return this;
    }

    /**
     * The cluster's shared secret (null: none, the default): the control admits only nodes and
     * clients that prove it, and proves it to the nodes. Without one the control's address must
     * be a loopback address.
     */
    public Builder secret(SharedSecret secret) {
      this.secret = secret;
      return this;
    }

    /** Where the control's lines go; default standard error. */
    public Builder log(Consumer<String> log) {
      this.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /**
     * @throws IllegalStateException naming what is missing: a node, the replicas, the control's
     *     address, or where its state goes (exactly one of {@link #store} and {@link #data})
     */
    public ReplicaMigrationExecutor build() {
      if (nodes.isEmpty()) {
        throw new IllegalStateException("an executor needs at least one node");
      }
      if (replicas == 0) {
        throw new IllegalStateException("an executor needs the strategy's replicas (replicas)");
      }
      if (control == null) {
        throw new IllegalStateException("an executor needs the control's address (control)");
      }
      if ((values == null) == (data == null)) {
        throw new IllegalStateException("an executor keeps the control's state in a store or "
            + "in a log: give exactly one of store(...) and data(...)");
      }
      try {
        Admission.requireSecretOffLoopback("the control", control, secret);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(e.getMessage() + " (secret)", e);
      }
      return new ReplicaMigrationExecutor(this);
    }
  }

  @Override
  public String toString() {
    return "ReplicaMigrationExecutor{control " + controlAddress + ", " + nodes.size()
        + " nodes}";
  }
}
