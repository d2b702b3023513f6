package io.partkit.kvstore.migration;

import static java.util.Objects.requireNonNull;

import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeStatus;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The migration protocol of the Fixed Partitions pattern on {@link KvNode}s, driven from the
 * coordinator's process. It reads no coordinator state: the coordinator hands it the migrations
 * ({@link #migrate}, {@link #resume}) and every table it commits ({@link #activate}); node
 * addresses come from the resolver it is built with.
 *
 * <h2>Steps</h2>
 * <ol>
 *   <li>PLANNED: the coordinator has recorded the migration durably before it calls
 *       {@link #migrate}.
 *   <li>PRECOPIED: the target copies the partition while the source still serves it, and the
 *       source records the keys written from then on (an optimization: on any failure the move
 *       copies everything in the next steps instead).
 *   <li>FENCED: the source turns the partition MIGRATING_OUT (durably): from now on every
 *       request gets MOVING, and its data is frozen.
 *   <li>COPIED: the target pulls the keys written since its pre-copy (or, without one, every
 *       key) in pages, logs and forces them, and answers RECEIVED. {@link #migrate} completes
 *       here: ready to commit.
 *   <li>COMMITTED: the coordinator commits the table at the target epoch and hands it to
 *       {@link #activate}, which ACTIVATEs the target at that epoch.
 *   <li>SOURCE_DROPPED: once the target serves, the source drops its copy and keeps a tombstone
 *       epoch, so a write sent to it later is redirected, never applied.
 * </ol>
 *
 * <h2>Why two owners never accept writes</h2>
 * The source stops accepting before the copy starts; the target starts only after the commit,
 * and only from RECEIVED. A roll back first ABORTs the target (which the target refuses once
 * activated) and only then UNFENCEs the source, so the target's own state decides, atomically,
 * which of the two ever serves again.
 *
 * <h2>Crashes</h2>
 * Every step is recorded where it happens (see {@link MigrationStep}), and every node operation
 * is idempotent, so {@link #resume} runs the protocol again from the start when the committed
 * table it is given does not decide the migration yet (done steps answer OK at once, an
 * interrupted copy restarts), and finishes or rolls it back when the table does. After a commit,
 * {@link #activate} (which the coordinator calls after every commit and when it becomes the
 * leader) finishes what a crashed coordinator left: activates committed targets, drops their
 * sources, rolls back migrations the committed table did not take and no running migration of
 * this executor claims. An unreachable node makes a step retry (with backoff) for up to the step
 * timeout; a migration that cannot finish before the commit is rolled back.
 *
 * <h2>Bounded concurrency</h2>
 * At most {@code maxConcurrentMigrations} migrations run their steps at once (a fair semaphore);
 * more are queued. Give the coordinator the same K ({@code Coordinators.Builder
 * .maxConcurrentMigrations}), so its waves and this bound agree.
 *
 * <h2>Abilities</h2>
 * Every one the SPI names: it moves whole replica lists (a partition with backups changes its
 * whole row in one migration), reports copies that lost acknowledged records ({@link
 * #lostReplicas}), takes out the backups their primaries suspect and joins them again ({@link
 * #suspectedReplicas}, {@link #removeReplicas}, {@link #restoreReplicas}), and renumbers its
 * data when partitions split ({@link #prepareSplit}).
 *
 * <h2>Parts</h2>
 * This class runs the moves (single-owner and replicated) and orders the rest: {@link NodeCalls}
 * reaches the nodes (pooled connections, retries), {@link ReconcilePlan} decides a reconcile
 * from the nodes' listings without I/O and {@link ReconcileRun} carries it out, {@link
 * SplitProtocol} prepares and settles splits, with the requests {@link SplitRequests} encodes.
 */
public final class KvMigrationExecutor implements MigrationExecutor.ReportsLostReplicas,
    MigrationExecutor.RemovesSuspectedReplicas, MigrationExecutor.SplitsPartitions,
    AutoCloseable {

  private final Function<NodeId, String> addresses;
  private final Supplier<? extends Collection<NodeId>> extraNodes;
  private final BiConsumer<Migration, MigrationStep> listener;
  /** Pooled connections, retries, and no node operation once closed. */
  private final NodeCalls calls;
  private final SplitProtocol splits;
  private final ReconcileRun reconcileRun;
  private final Semaphore permits;
  private final ReplicaAdmin replicas;
  private final int maxConcurrent;
  private final ExecutorService pool;
  private final ExecutorService reconciler;
  /** Migrations running their steps here; reconcile leaves their partitions alone. */
  private final Map<Integer, Migration> active = new ConcurrentHashMap<>();
  /**
   * Migrations this executor brought to COPIED that no {@link #activate} has decided yet;
   * reconcile leaves them alone too (their commit may still come).
   */
  private final Map<Integer, Migration> copied = new ConcurrentHashMap<>();
  /** Backups taken out on their primary's suspicion and joined again. */
  private final ReplicaSuspicions suspicions;
  private volatile boolean closed;

  private KvMigrationExecutor(Builder b) {
    this.addresses = b.addresses;
    this.extraNodes = b.nodes;
    this.listener = b.listener;
    this.calls = new NodeCalls(b.addresses, b.stepTimeout, b.requestTimeout, b.copyTimeout,
        b.secret);
    this.splits = new SplitProtocol(calls);
    this.reconcileRun = new ReconcileRun(calls, b.listener, this::movingHere);
    this.maxConcurrent = b.maxConcurrent;
    this.permits = new Semaphore(b.maxConcurrent, true);
    this.replicas = new ReplicaAdmin(b.requestTimeout, b.copyTimeout, b.secret);
    this.pool = Executors.newCachedThreadPool(daemon("kv-migration"));
    this.reconciler = Executors.newSingleThreadExecutor(daemon("kv-reconcile"));
    // A primary's lock may be held by a write waiting out the replica timeout on the very
    // backup being taken out: the steps of a removal wait that long on top of a request. The
    // nodes' timeout is theirs, not known here: the builder's bound must be at least the longest
    // of them (a longer one only makes a removal wait longer for a primary that is gone).
    this.suspicions = new ReplicaSuspicions(addresses, node -> calls.client(node, false),
        calls::glance,
        new ReplicaAdmin(b.requestTimeout.plus(b.replicaTimeout), b.copyTimeout,
            b.secret), this::movingHere, b.events);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** A builder; {@link Builder#addresses} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** The bound on migrations running at once. */
  public int maxConcurrentMigrations() {
    return maxConcurrent;
  }

  // ---------------------------------------------------------------- MigrationExecutor

  /**
   * Fences the source and copies the partition to the target. The target does not serve until
   * {@link #activate} is given a table that commits it.
   *
   * @return completes normally when the target acknowledged all the data and the source is
   *     fenced (ready to commit: the coordinator commits next); exceptionally, with a
   *     {@link MigrationRolledBackException}, when the migration was rolled back
   */
  @Override
  public CompletionStage<Migration> migrate(Migration migration) {
    requireNonNull(migration, "migration");
    return run(migration, () -> replicated(migration) ? toReconfigured(migration)
        : toCopied(migration));
  }

  /**
   * The replicas of a partition with copies that answer STATUS with "must rejoin" (see {@link
   * NodeStatus#mustRejoin}): the node's own report, read over the connection the executor uses
   * for every node operation, from the table's nodes that are members. A node that does not
   * answer reports nothing (the next rebalance asks again).
   */
  @Override
  public Map<Integer, Set<NodeId>> lostReplicas(PartitionAssignment committed,
      Set<NodeId> members) {
    requireNonNull(committed, "committed");
    Map<Integer, Set<NodeId>> lost = new TreeMap<>();
    for (NodeId node : committed.nodes()) {
      if (!members.contains(node)) {
        continue;
      }
      try (TcpNodeClient c = calls.client(node, false)) {
        for (PartitionStatus s : c.list()) {
          int p = s.partition();
          if (s.state() == PartitionState.BACKUP && p < committed.partitionCount()
              && committed.replicas(p).size() > 1 && committed.replicas(p).contains(node)
              && c.nodeStatus(p).mustRejoin()) {
            lost.computeIfAbsent(p, k -> new TreeSet<>()).add(node);
          }
        }
      } catch (IOException | RuntimeException e) {
        // unreachable now: asked again at the next rebalance
      }
    }
    return lost;
  }

  /** Read from each primary's SUSPECTS answer (see {@link ReplicaSuspicions}). */
  @Override
  public Map<Integer, Set<NodeId>> suspectedReplicas(PartitionAssignment committed,
      Set<NodeId> members) {
    requireNonNull(committed, "committed");
    return suspicions.suspected(committed, members);
  }

  /** {@link ReplicaAdmin#reconfigure} at the committed epoch, without the removed backups. */
  @Override
  public void removeReplicas(PartitionAssignment committed, int partition,
      Set<NodeId> removed) {
    try {
      suspicions.remove(committed, partition, removed);
    } catch (IOException e) {
      throw new UncheckedIOException("partition " + partition + ": " + removed
          + " not taken out at epoch " + committed.epoch() + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@link ReplicaSuspicions#restore}, one at a time with {@link #reconcile}: the backups not seen
   * whole.
   */
  @Override
  public synchronized int restoreReplicas(PartitionAssignment committed) {
    requireNonNull(committed, "committed");
    return suspicions.restore(committed);
  }

  /**
   * With a table older than the migration's target epoch, the same as {@link #migrate}: every
   * step is idempotent, so a migration is resumed by running it again. With a table at or past
   * it, the table decided: a migration it commits is finished (target activated, source
   * dropped), one it does not is rolled back.
   */
  @Override
  public CompletionStage<Migration> resume(Migration migration, PartitionAssignment committed) {
    requireNonNull(migration, "migration");
    requireNonNull(committed, "committed");
    if (replicated(migration)) {
      return run(migration, () -> committed.epoch() >= migration.targetEpoch()
          ? matchTable(migration, committed) : toReconfigured(migration));
    }
    if (committed.epoch() >= migration.targetEpoch()) {
      return run(migration, () -> finishDecided(migration, committed));
    }
    return run(migration, () -> toCopied(migration));
  }

  /**
   * Activates the targets of the migrations {@code committed} commits and drops their sources,
   * then reconciles the nodes with the table (see {@link #reconcile}). Every migration that
   * reached COPIED here before this call is decided by this table: one it does not commit was
   * abandoned by the coordinator and is rolled back by the reconcile. Runs on one reconciler
   * thread, so activations apply in call order.
   *
   * @return completes when every committed target serves and every reachable node is in line
   *     with the table; exceptionally when a node could not be reached or refused (the next
   *     activation retries)
   */
  @Override
  public CompletionStage<Void> activate(PartitionAssignment committed) {
    requireNonNull(committed, "committed");
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("executor is closed"));
    }
    // Taken out now, on the caller's thread: what the coordinator starts after this call
    // returns reaches COPIED later and stays protected from this round's reconcile.
    List<Migration> decided = new ArrayList<>();
    for (Migration m : copied.values()) {
      if (copied.remove(m.partition(), m)) {
        decided.add(m);
      }
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      reconciler.execute(() -> {
        try {
          List<String> problems = new ArrayList<>();
          // The targets first: every millisecond before they serve is one of refused writes. A
          // migration never runs while a split is pending on its nodes, and a split table
          // commits no migration, so they do not depend on the splits settled next.
          activateCommitted(committed, decided, problems);
          // before the reconcile, which reads the numbering
          splits.settle(committed, knownNodes(committed, List.of()), problems);
          reconcile(committed, decided, problems);
          if (problems.isEmpty()) {
            done.complete(null);
          } else {
            done.completeExceptionally(new IllegalStateException("epoch " + committed.epoch()
                + " not fully activated: " + String.join("; ", problems)));
          }
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new IllegalStateException("executor is closed", e));
    }
    return done;
  }

  /**
   * Fences, on every node, the partitions a split renumbers: each node that may hold data
   * (the committed table's, the split's, the wiring's) must accept, so that none serves in the
   * old numbering once clients hold the split table. A split some predecessor left pending is
   * decided by {@code committed} first. On any refusal the nodes already prepared are released
   * (ABORT) and the stage fails.
   */
  @Override
  public CompletionStage<Void> prepareSplit(PartitionAssignment committed,
      PartitionAssignment split) {
    requireNonNull(committed, "committed");
    requireNonNull(split, "split");
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("executor is closed"));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      reconciler.execute(() -> { // after the activations before it: they may settle a split
        try {
          Set<NodeId> nodes = knownNodes(committed, List.of());
          Set<NodeId> all = new TreeSet<>(nodes);
          all.addAll(split.nodes());
          splits.prepare(committed, split, nodes, all);
          done.complete(null);
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new IllegalStateException("executor is closed", e));
    }
    return done;
  }

  private interface Body {
    Migration run();
  }

  private CompletionStage<Migration> run(Migration m, Body body) {
    if (closed) {
      throw new IllegalStateException("executor is closed");
    }
    return CompletableFuture.supplyAsync(() -> {
      try {
        permits.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
      try {
        Migration previous = active.putIfAbsent(m.partition(), m);
        if (previous != null) {
          throw new IllegalStateException("partition " + m.partition()
              + " is already migrating: " + previous);
        }
        try {
          return body.run();
        } finally {
          active.remove(m.partition(), m);
        }
      } finally {
        permits.release();
      }
    }, pool);
  }

  /**
   * A table at or past the target epoch decided the migration: finish what it committed, roll
   * back what it did not.
   */
  private Migration finishDecided(Migration m, PartitionAssignment table) {
    int p = m.partition();
    boolean taken = p < table.partitionCount() && table.primary(p).equals(m.target());
    if (!taken) {
      IllegalStateException cause = new IllegalStateException("the table at epoch "
          + table.epoch() + " did not commit it (owner " + (p < table.partitionCount()
          ? table.primary(p) : "none") + ")");
      rollBack(m, cause);
      throw new MigrationRolledBackException(m, cause.getMessage(), cause);
    }
    expectOk(call(m.target(), "ACTIVATE", c -> c.admin(Wire.ACTIVATE, p, m.targetEpoch()),
        false));
    listener.accept(m, MigrationStep.COMMITTED);
    expectOk(call(m.source(), "DROP", c -> c.admin(Wire.DROP, p, m.targetEpoch()), false));
    listener.accept(m, MigrationStep.SOURCE_DROPPED);
    return m;
  }

  // ---------------------------------------------------------------- replicated partitions

  private static boolean replicated(Migration m) {
    return m.sourceReplicas().size() > 1 || m.targetReplicas().size() > 1;
  }

  /**
   * A partition with backups (or gaining them) moves by changing its replica list
   * ({@link ReplicaAdmin#reconfigure}) at the target epoch. While the old primary still serves,
   * replicas that stopped answering are first taken out of its writes and the new ones join and
   * catch up, so that the part that refuses writes (from the fence to the commit) is short. When
   * the primary is gone, the reconfiguration promotes a survivor first (a failover).
   *
   * <p>Once it has fenced, a replica change cannot be rolled back to an older epoch: if it fails
   * after that, the partition stays unavailable (never wrong) until a table at or past its target
   * epoch is committed, which the coordinator's next rebalance does.
   */
  private Migration toReconfigured(Migration m) {
    listener.accept(m, MigrationStep.PLANNED);
    int p = m.partition();
    List<String> from = addressesOf(m.sourceReplicas());
    List<String> to = addressesOf(m.targetReplicas());
    List<String> joining = to.stream().filter(r -> !from.contains(r)).toList();
    try {
      prepareWhileServing(m, from.get(0), joining);
      List<String> known = new ArrayList<>(from);
      known.addAll(joining);
      replicas.reconfigure(p, m.targetEpoch(), known, to);
    } catch (IOException | RuntimeException e) {
      throw new MigrationRolledBackException(m, "replicas of partition " + p + " not moved to "
          + m.targetReplicas() + " at epoch " + m.targetEpoch() + " (replicas already at that"
          + " epoch stay fenced until a table at or past it commits them): " + e.getMessage(), e);
    }
    listener.accept(m, MigrationStep.COPIED);
    return m;
  }

  /**
   * Best effort, at the primary's own epoch, when all of its replicas answer: the joining
   * replicas catch up while it serves. Anything else is left to the reconfiguration, which does
   * the same under the fence.
   */
  private void prepareWhileServing(Migration m, String primaryAddress, List<String> joining) {
    int p = m.partition();
    try {
      // an unreachable replica throws here: the reconfiguration handles it under the fence
      PartitionStatus primary = status(m.source(), p);
      if (primary.state() != PartitionState.OWNED) {
        return; // the primary is gone: reconfigure fails over first
      }
      for (NodeId backup : m.sourceReplicas().subList(1, m.sourceReplicas().size())) {
        if (status(backup, p).state() != PartitionState.BACKUP) {
          // A backup is down: the primary's writes stall on it anyway, and taking it out of
          // them needs a new epoch, which is the fence: leave it all to the reconfiguration.
          return;
        }
      }
      replicas.addBackups(p, primary.epoch(), primaryAddress, joining);
    } catch (IOException | RuntimeException e) {
      // the reconfiguration does it under the fence
    }
  }

  /**
   * A table at or past the target epoch decided a replica change: bring the nodes to the
   * table's row at the table's epoch (which every node accepts, as no replica is past it).
   */
  private Migration matchTable(Migration m, PartitionAssignment table) {
    int p = m.partition();
    if (p >= table.partitionCount()) {
      throw new MigrationRolledBackException(m, "the table at epoch " + table.epoch()
          + " has no partition " + p, null);
    }
    List<String> known = new ArrayList<>(addressesOf(m.sourceReplicas()));
    addressesOf(m.targetReplicas()).stream().filter(r -> !known.contains(r)).forEach(known::add);
    List<String> row = addressesOf(table.replicas(p));
    row.stream().filter(r -> !known.contains(r)).forEach(known::add);
    try {
      replicas.reconfigure(p, table.epoch(), known, row);
    } catch (IOException | RuntimeException e) {
      throw new MigrationRolledBackException(m, "replicas of partition " + p + " not brought"
          + " to the committed " + table.replicas(p) + ": " + e.getMessage(), e);
    }
    if (!table.replicas(p).equals(m.targetReplicas())) {
      throw new MigrationRolledBackException(m, "the table at epoch " + table.epoch()
          + " did not commit it; the replicas follow the table's " + table.replicas(p), null);
    }
    listener.accept(m, MigrationStep.COMMITTED);
    return m;
  }

  private List<String> addressesOf(List<NodeId> nodes) {
    List<String> out = new ArrayList<>(nodes.size());
    for (NodeId n : nodes) {
      out.add(requireNonNull(addresses.apply(n), () -> "no address for node " + n));
    }
    return out;
  }

  private Migration toCopied(Migration m) {
    listener.accept(m, MigrationStep.PLANNED);
    int p = m.partition();
    try {
      String sourceAddress = addresses.apply(m.source());
      if (precopy(m, sourceAddress)) {
        listener.accept(m, MigrationStep.PRECOPIED);
      }
      expectOk(call(m.source(), "FENCE", c -> c.admin(Wire.FENCE, p, m.targetEpoch()), false));
      listener.accept(m, MigrationStep.FENCED);
      expectOk(call(m.target(), "RECEIVE",
          c -> c.receive(p, m.targetEpoch(), sourceAddress), true));
      // before it leaves active: a reconcile never sees it unclaimed
      copied.put(m.partition(), m);
      listener.accept(m, MigrationStep.COPIED);
      return m;
    } catch (RuntimeException e) {
      rollBack(m, e);
      throw new MigrationRolledBackException(m, e.getMessage(), e);
    }
  }

  /**
   * Copies the partition to the target while the source serves it, so that the fenced copy
   * after it ships only the keys written meanwhile: writes to the partition are refused only
   * for that short delta, not for the whole copy. An optimization only: when it fails (a node
   * down, a refusal), the move goes on as before and copies everything under the fence.
   *
   * @return whether the target holds a pre-copy
   */
  private boolean precopy(Migration m, String sourceAddress) {
    try (TcpNodeClient c = calls.client(m.target(), true)) {
      return c.precopy(m.partition(), m.targetEpoch(), sourceAddress).isOk();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Rolls back: the target first (it refuses once activated, which settles the race), then the
   * source. An unreachable target does not block the roll back: the source refuses any later
   * move at this epoch once unfenced, so a copy the target may still hold from under this fence
   * can never be committed; a later reconcile discards it when the target is back.
   */
  private void rollBack(Migration m, RuntimeException cause) {
    int p = m.partition();
    try {
      KvReply aborted;
      try {
        aborted = call(m.target(), "ABORT", c -> c.admin(Wire.ABORT, p, m.targetEpoch()), false);
      } catch (IllegalStateException unreachable) {
        cause.addSuppressed(unreachable);
        aborted = null;
      }
      if (closed) {
        return; // a dead coordinator does nothing more
      }
      if (aborted != null && aborted.status() == Status.REFUSED && aborted.value() != null
          && aborted.value().length == 1
          && aborted.value()[0] == (byte) PartitionState.OWNED.code()) {
        // the target serves: the migration was committed, it is not ours to undo
        cause.addSuppressed(new IllegalStateException("roll back stopped: " + aborted));
        return;
      }
      expectOk(call(m.source(), "UNFENCE", c -> c.admin(Wire.UNFENCE, p, m.targetEpoch()),
          false));
      listener.accept(m, MigrationStep.ROLLED_BACK);
    } catch (RuntimeException e) {
      // left for a later reconcile: the source stays fenced (unavailable, never wrong) until then
      cause.addSuppressed(e);
    }
  }

  // ---------------------------------------------------------------- inspection

  /**
   * Where a migration stands, read from the two nodes and the committed table the caller
   * passes. A migration with nothing of it on the nodes reads PLANNED while this executor runs
   * it, else ROLLED_BACK (recorded but not started looks the same: only the coordinator's record
   * tells them apart).
   *
   * @throws IllegalStateException if a node cannot be reached
   */
  public MigrationStep step(Migration m, PartitionAssignment committed) {
    requireNonNull(committed, "committed");
    PartitionStatus source = status(m.source(), m.partition());
    PartitionStatus target = status(m.target(), m.partition());
    long e = m.targetEpoch();
    if (committed.epoch() >= e && target.state() == PartitionState.OWNED && target.epoch() >= e) {
      return source.state() == PartitionState.ABSENT ? MigrationStep.SOURCE_DROPPED
          : MigrationStep.COMMITTED;
    }
    if (committed.epoch() >= e && m.partition() < committed.partitionCount()
        && committed.primary(m.partition()).equals(m.target())) {
      return MigrationStep.COMMITTED; // committed, the target not activated yet
    }
    if (target.state() == PartitionState.RECEIVED && target.epoch() == e) {
      return MigrationStep.COPIED;
    }
    if (source.state() == PartitionState.MIGRATING_OUT && source.epoch() == e) {
      return MigrationStep.FENCED;
    }
    return m.equals(active.get(m.partition())) ? MigrationStep.PLANNED
        : MigrationStep.ROLLED_BACK;
  }

  private PartitionStatus status(NodeId node, int partition) {
    return calls.status(node, partition);
  }

  // ---------------------------------------------------------------- bootstrap and reconcile

  /**
   * Hands each partition of a first table to its primary (an empty OWNED partition). Safe to call
   * again: a node that owns it already answers OK, one that held it before refuses.
   *
   * @throws IllegalStateException if a node refuses or cannot be reached
   */
  public void assignInitial(PartitionAssignment table) {
    requireNonNull(table, "table");
    for (int p = 0; p < table.partitionCount(); p++) {
      int partition = p;
      if (table.replicas(p).size() == 1) {
        KvReply r = call(table.primary(p), "ASSIGN",
            c -> c.admin(Wire.ASSIGN, partition, table.epoch()), false);
        expectOk(r);
        continue;
      }
      List<String> row = addressesOf(table.replicas(p));
      try {
        replicas.create(p, table.epoch(), row.get(0), row.subList(1, row.size()));
      } catch (IOException e) {
        throw new IllegalStateException("partition " + p + " could not be created on "
            + table.replicas(p) + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Brings the nodes in line with a committed table: activates targets the table commits, drops
   * their sources once the targets serve, rolls back partitions in transit that the table does
   * not commit and no migration running here claims. {@link #activate} runs it after activating
   * what it decided; wiring code may run it by hand (with the table as committed now) to wait
   * for the nodes to settle. Call it only while the coordinator runs no migration through
   * another executor: only this executor's own migrations are protected.
   *
   * @return the number of node operations it issued
   */
  public int reconcile(PartitionAssignment committed) {
    requireNonNull(committed, "committed");
    return reconcile(committed, List.of(), new ArrayList<>());
  }

  private synchronized int reconcile(PartitionAssignment table, List<Migration> decided,
      List<String> problems) {
    // List the nodes first and look at the running migrations after: one that starts while a
    // node reported its partition in transit is then seen as active (it is put there before its
    // first node operation) or copied (put there before it leaves active), never as an orphan.
    Map<NodeId, List<PartitionStatus>> held = new LinkedHashMap<>();
    boolean everyoneAnswered = true;
    for (NodeId node : knownNodes(table, decided)) {
      try (TcpNodeClient c = calls.client(node, false)) {
        held.put(node, c.list());
      } catch (IOException | RuntimeException e) {
        everyoneAnswered = false; // unreachable now: its part waits for the next round
        if (table.nodes().contains(node)) {
          problems.add(node + " did not answer: " + e.getMessage());
        }
      }
    }
    Set<String> inFlight = new HashSet<>();
    for (Migration m : active.values()) {
      inFlight.add(ReconcilePlan.key(m.partition(), m.targetEpoch()));
    }
    for (Migration m : copied.values()) {
      inFlight.add(ReconcilePlan.key(m.partition(), m.targetEpoch()));
    }
    return reconcileRun.carryOut(ReconcilePlan.of(table, held, everyoneAnswered, inFlight),
        problems);
  }

  private boolean movingHere(int partition) {
    return active.containsKey(partition) || copied.containsKey(partition);
  }

  /**
   * The table's nodes, the nodes of the migrations decided and running here (a source that left
   * the table may still hold a copy to drop) and the nodes the wiring names.
   */
  private Set<NodeId> knownNodes(PartitionAssignment table, List<Migration> decided) {
    Set<NodeId> nodes = new TreeSet<>(table.nodes());
    List<Migration> involved = new ArrayList<>(decided);
    involved.addAll(active.values());
    involved.addAll(copied.values());
    for (Migration m : involved) {
      nodes.addAll(m.sourceReplicas());
      nodes.addAll(m.targetReplicas());
    }
    try {
      nodes.addAll(extraNodes.get());
    } catch (RuntimeException e) {
      // the table's nodes are enough to finish what the table committed
    }
    return nodes;
  }

  /**
   * Activates the targets of the decided migrations the table commits (one ACTIVATE each: the
   * partition refuses writes from its fence until then, so this is on the critical path of every
   * move) and drops their sources. The rest (not committed, or a node unreachable) is left to the
   * reconcile that follows.
   */
  private void activateCommitted(PartitionAssignment table, List<Migration> decided,
      List<String> problems) {
    for (Migration m : decided) {
      if (replicated(m)) {
        continue; // its replicas serve at the target epoch already (see toReconfigured)
      }
      if (table.epoch() < m.targetEpoch() || m.partition() >= table.partitionCount()
          || !table.primary(m.partition()).equals(m.target())) {
        continue; // abandoned: the reconcile rolls it back
      }
      if (!tryCall(m.target(), Wire.ACTIVATE, m.partition(), m.targetEpoch())) {
        continue; // the reconcile retries it, and reports it if it fails again
      }
      listener.accept(m, MigrationStep.COMMITTED);
      // the target serves: drop the source now, so that a client with the old table gets
      // REDIRECT (and looks up the new owner) rather than MOVING until the next reconcile
      if (tryCall(m.source(), Wire.DROP, m.partition(), m.targetEpoch())) {
        listener.accept(m, MigrationStep.SOURCE_DROPPED);
      }
    }
  }

  private KvReply call(NodeId node, String step, NodeCalls.NodeCall call, boolean copy) {
    return calls.call(node, step, call, copy);
  }

  private static void expectOk(KvReply reply) {
    NodeCalls.expectOk(reply);
  }

  private boolean tryCall(NodeId node, byte op, int partition, long epoch) {
    return calls.tryCall(node, op, partition, epoch);
  }

  /** Stops the worker threads; running migrations stop at their next step. */
  @Override
  public void close() {
    closed = true;
    calls.stop();
    reconciler.shutdownNow();
    pool.shutdownNow();
    calls.close();
  }

  /** Configures a {@link KvMigrationExecutor}. */
  public static final class Builder {
    Function<NodeId, String> addresses;
    Supplier<? extends Collection<NodeId>> nodes = List::of;
    int maxConcurrent = 1;
    Duration requestTimeout = Duration.ofSeconds(5);
    Duration copyTimeout = Duration.ofMinutes(5);
    Duration stepTimeout = Duration.ofSeconds(30);
    Duration replicaTimeout = KvNode.REPLICA_TIMEOUT;
    BiConsumer<Migration, MigrationStep> listener = (m, s) -> { };
    java.util.function.Consumer<String> events = line -> { };
    SharedSecret secret;

    Builder() {}

    /** The cluster's shared secret, proven to every node that asks for it. */
    public Builder secret(SharedSecret secret) {
      this.secret = requireNonNull(secret, "secret");
      return this;
    }

    /**
     * How to reach a node ({@code host:port}; null when unknown). Required. Wiring that has the
     * coordinator's metadata store passes the address of the member registration, {@code id ->
     * store.members().find(id).map(Member::address).orElse(null)}.
     */
    public Builder addresses(Function<NodeId, String> resolver) {
      this.addresses = requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * Nodes to look at when reconciling, besides the committed table's and those of the
     * migrations this executor handles: nodes that may hold data a crashed predecessor left
     * (wiring that has the metadata store passes the members, {@code () ->
     * store.members().ids()}). Default: none.
     */
    public Builder nodes(Supplier<? extends Collection<NodeId>> extra) {
      this.nodes = requireNonNull(extra, "extra");
      return this;
    }

    /**
     * At most this many migrations at once. Default 1.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxConcurrentMigrations(int k) {
      if (k < 1) {
        throw new IllegalArgumentException("maxConcurrentMigrations must be >= 1: " + k);
      }
      this.maxConcurrent = k;
      return this;
    }

    /**
     * How long one step keeps retrying an unreachable node before the migration is rolled back.
     * Default 30 s.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder stepTimeout(Duration timeout) {
      this.stepTimeout = positive("step timeout", timeout);
      return this;
    }

    /**
     * How long one node request may take (the copy has its own, {@link #copyTimeout}). Default 5 s.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = positive("request timeout", timeout);
      return this;
    }

    /**
     * The longest replica timeout of the nodes (how long a primary waits for a backup's answer,
     * holding the partition's lock). Default {@link KvNode#REPLICA_TIMEOUT}, the nodes'
     * default: give the same value as the nodes' {@code --replica-timeout-ms} when it is longer.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder replicaTimeout(Duration timeout) {
      this.replicaTimeout = positive("replica timeout", timeout);
      return this;
    }

    /**
     * How long the copy of one partition may take. Default 5 min.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder copyTimeout(Duration timeout) {
      this.copyTimeout = positive("copy timeout", timeout);
      return this;
    }

    /**
     * Called on the executor's thread each time a migration reaches a step (after the step is
     * durable). It may block: the migration waits, which is how tests pause one at a given step.
     */
    public Builder onStep(BiConsumer<Migration, MigrationStep> stepListener) {
      this.listener = requireNonNull(stepListener, "stepListener");
      return this;
    }

    /**
     * Called with one line ({@link io.partkit.kvstore.EventLine}, who {@code coordinator}) per
     * event of the replica reviews: a removal on suspicion offered, adopted, refused or done the
     * general way; a backup joined again or not; a partition repaired to its row; a restore pass
     * ended at a busy node. Never per request. Default: dropped. The harness's coordinator
     * prints them, next to the nodes' own lines in their logs.
     */
    public Builder onEvent(java.util.function.Consumer<String> eventLines) {
      this.events = requireNonNull(eventLines, "eventLines");
      return this;
    }

    /**
     * The executor.
     *
     * @throws IllegalStateException if no address resolver was given
     */
    public KvMigrationExecutor build() {
      if (addresses == null) {
        throw new IllegalStateException("a KvMigrationExecutor needs addresses(...)");
      }
      return new KvMigrationExecutor(this);
    }

    private static Duration positive(String what, Duration d) {
      requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive: " + d);
      }
      return d;
    }
  }
}
