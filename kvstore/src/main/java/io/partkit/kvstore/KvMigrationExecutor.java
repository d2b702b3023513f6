package io.partkit.kvstore;

import static java.util.Objects.requireNonNull;

import io.partkit.kvstore.KvReply.Status;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
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
import java.util.concurrent.TimeUnit;
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
 */
public final class KvMigrationExecutor implements MigrationExecutor, AutoCloseable {

  private final Function<NodeId, String> addresses;
  private final Supplier<? extends Collection<NodeId>> extraNodes;
  private final long stepTimeoutNanos;
  private final BiConsumer<Migration, MigrationStep> listener;
  /**
   * Connections for requests and for copies (their read timeouts differ; both prove the
   * builder's secret, if any): each step of a move on a pooled connection, not a new one with
   * its handshake, which matters most in the fenced window (RECEIVE, ACTIVATE, DROP).
   */
  private final NodeConnectionPool requestConnections;
  private final NodeConnectionPool copyConnections;
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
    this.stepTimeoutNanos = b.stepTimeout.toNanos();
    this.listener = b.listener;
    this.requestConnections = new NodeConnectionPool(b.requestTimeout, b.secret);
    this.copyConnections = new NodeConnectionPool(b.copyTimeout, b.secret);
    this.maxConcurrent = b.maxConcurrent;
    this.permits = new Semaphore(b.maxConcurrent, true);
    this.replicas = new ReplicaAdmin(b.requestTimeout, b.copyTimeout, b.secret);
    this.pool = Executors.newCachedThreadPool(daemon("kv-migration"));
    this.reconciler = Executors.newSingleThreadExecutor(daemon("kv-reconcile"));
    // A primary's lock may be held by a write waiting out the replica timeout on the very
    // backup being taken out: the steps of a removal wait that long on top of a request.
    this.suspicions = new ReplicaSuspicions(addresses, node -> client(node, false),
        new ReplicaAdmin(b.requestTimeout.plus(TcpKvNode.REPLICA_TIMEOUT), b.copyTimeout,
            b.secret), this::movingHere);
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
      try (TcpNodeClient c = client(node, false)) {
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

  /** {@link ReplicaSuspicions#restore}, one at a time with {@link #reconcile}. */
  @Override
  public synchronized int restoreReplicas(PartitionAssignment committed) {
    requireNonNull(committed, "committed");
    return suspicions.restore(committed);
  }

  /** Yes: a partition with backups changes its whole replica list in one migration. */
  @Override
  public boolean movesReplicas() {
    return true;
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
          settleSplits(committed, problems); // before the reconcile, which reads the numbering
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
          prepareSplitNow(committed, split);
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

  private void prepareSplitNow(PartitionAssignment committed, PartitionAssignment split) {
    if (split.epoch() <= committed.epoch()) {
      throw new IllegalArgumentException("a split table must be newer than the committed one: "
          + split.epoch() + " <= " + committed.epoch());
    }
    List<String> problems = new ArrayList<>();
    settleSplits(committed, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("cannot prepare the split for epoch " + split.epoch()
          + ": an earlier split is not settled: " + String.join("; ", problems));
    }
    byte[] scheme = SchemeCodec.encode(split.scheme());
    Set<NodeId> nodes = knownNodes(committed, List.of());
    nodes.addAll(split.nodes());
    List<NodeId> prepared = new ArrayList<>();
    try {
      for (NodeId node : nodes) {
        int[] owned = split.primaryPartitionsOf(node);
        KvReply r = call(node, "SPLIT PREPARE", c -> {
          Wire.Writer w = NodeConnection.request(Wire.SPLIT, 0, split.epoch())
              .i8(TcpKvNode.SPLIT_PREPARE).bytes(scheme).i32(owned.length);
          for (int q : owned) {
            w.i32(q);
          }
          return c.call(w.toBytes());
        }, true); // the node reads every key it holds: a copy's timeout
        expectOk(r);
        prepared.add(node);
      }
    } catch (RuntimeException e) {
      for (NodeId node : prepared) {
        splitCall(node, TcpKvNode.SPLIT_ABORT, split.epoch()); // best effort: activate retries
      }
      throw e;
    }
  }

  /**
   * Decides every split a node holds pending by the committed table: applied when the table is
   * at or past its epoch with its scheme (the split was committed; later tables keep the
   * scheme until the next split, which is prepared only once this one is settled), aborted
   * otherwise.
   */
  private void settleSplits(PartitionAssignment committed, List<String> problems) {
    for (NodeId node : knownNodes(committed, List.of())) {
      KvReply q = splitCall(node, TcpKvNode.SPLIT_QUERY, 0);
      if (q == null || !q.isOk()) {
        if (committed.nodes().contains(node)) {
          problems.add(node + " did not say whether it holds a split: " + q);
        }
        continue;
      }
      long epoch;
      io.partkit.spi.PartitionScheme scheme;
      try {
        Wire.Reader r = new Wire.Reader(q.value());
        epoch = r.i64();
        if (epoch == 0) {
          continue;
        }
        scheme = SchemeCodec.decode(r.bytes());
      } catch (IOException e) {
        problems.add(node + " answered an unreadable split: " + e.getMessage());
        continue;
      }
      boolean committedSplit = committed.epoch() >= epoch && committed.scheme().equals(scheme);
      int phase = committedSplit ? TcpKvNode.SPLIT_APPLY : TcpKvNode.SPLIT_ABORT;
      KvReply r = splitCall(node, phase, epoch);
      if (r == null || !r.isOk()) {
        problems.add((committedSplit ? "APPLY" : "ABORT") + " of the split for epoch " + epoch
            + " on " + node + " failed: " + r);
      }
    }
  }

  /** One SPLIT phase without a body, or null when the node could not be reached. */
  private KvReply splitCall(NodeId node, int phase, long epoch) {
    if (closed) {
      return null;
    }
    // APPLY renumbers every key the node holds: a copy's timeout; the others are quick
    try (TcpNodeClient c = client(node, phase == TcpKvNode.SPLIT_APPLY)) {
      return c.call(NodeConnection.request(Wire.SPLIT, 0, epoch).i8(phase).toBytes());
    } catch (IOException | RuntimeException e) {
      return null;
    }
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
    try (TcpNodeClient c = client(m.target(), true)) {
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
    try (TcpNodeClient c = client(node, false)) {
      return c.status(partition);
    } catch (IOException e) {
      throw new IllegalStateException("node " + node + " did not answer STATUS of partition "
          + partition + ": " + e.getMessage(), e);
    }
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
    Map<NodeId, List<PartitionStatus>> held = new HashMap<>();
    boolean everyoneAnswered = true;
    for (NodeId node : knownNodes(table, decided)) {
      try (TcpNodeClient c = client(node, false)) {
        held.put(node, c.list());
      } catch (IOException | RuntimeException e) {
        everyoneAnswered = false; // unreachable now: its part waits for the next round
        if (table.nodes().contains(node)) {
          problems.add(node + " did not answer: " + e.getMessage());
        }
      }
    }
    long epoch = table.epoch();
    Set<String> inFlight = new HashSet<>();
    for (Migration m : active.values()) {
      inFlight.add(key(m.partition(), m.targetEpoch()));
    }
    for (Migration m : copied.values()) {
      inFlight.add(key(m.partition(), m.targetEpoch()));
    }
    int ops = 0;
    // partitions some node still takes in (or serves) at a given move epoch: their sources stay
    // fenced until that is resolved
    Set<String> claimed = new HashSet<>();
    Map<String, NodeId> sources = new HashMap<>();
    held.forEach((node, list) -> list.stream()
        .filter(s -> s.state() == PartitionState.MIGRATING_OUT)
        .forEach(s -> sources.put(key(s.partition(), s.epoch()), node)));
    // targets first: a source is dropped only after its target serves
    for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
      NodeId node = e.getKey();
      for (PartitionStatus s : e.getValue()) {
        boolean incoming = s.state() == PartitionState.RECEIVING
            || s.state() == PartitionState.RECEIVED;
        if (!incoming || s.partition() >= table.partitionCount()) {
          continue;
        }
        if (inFlight.contains(key(s.partition(), s.epoch()))) {
          claimed.add(key(s.partition(), s.epoch()));
          continue;
        }
        boolean committedHere = s.epoch() <= epoch && table.primary(s.partition()).equals(node);
        if (committedHere && s.state() == PartitionState.RECEIVING) {
          // The table commits this node as the owner, which happens only after its copy was
          // acknowledged (RECEIVED): the listing is older than the commit. Aborting here would
          // throw away the committed owner's data and leave the partition with no owner that
          // serves it; the next round activates it.
          claimed.add(key(s.partition(), s.epoch()));
          problems.add(node + " still receives partition " + s.partition());
          continue;
        }
        boolean committed = committedHere && s.state() == PartitionState.RECEIVED;
        byte op = committed ? Wire.ACTIVATE : Wire.ABORT;
        if (tryCall(node, op, s.partition(), s.epoch())) {
          ops++;
          NodeId source = sources.get(key(s.partition(), s.epoch()));
          if (committed && source != null) {
            listener.accept(new Migration(s.partition(), source, node, s.epoch()),
                MigrationStep.COMMITTED);
          }
        } else {
          claimed.add(key(s.partition(), s.epoch()));
          problems.add((committed ? "ACTIVATE" : "ABORT") + " of partition " + s.partition()
              + " on " + node + " failed");
        }
      }
    }
    for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
      NodeId node = e.getKey();
      for (PartitionStatus s : e.getValue()) {
        if (s.state() != PartitionState.MIGRATING_OUT || s.partition() >= table.partitionCount()
            || inFlight.contains(key(s.partition(), s.epoch()))) {
          continue;
        }
        NodeId owner = table.primary(s.partition());
        boolean uncommitted = s.epoch() > epoch || owner.equals(node);
        if (uncommitted) {
          // an orphan, or committed without it: the source keeps the partition, once no node
          // takes it in any more (and every node answered, so none is unseen)
          if (everyoneAnswered && !claimed.contains(key(s.partition(), s.epoch()))
              && tryCall(node, Wire.UNFENCE, s.partition(), s.epoch())) {
            ops++;
          }
        } else if (serves(owner, s.partition())) {
          if (tryCall(node, Wire.DROP, s.partition(), s.epoch())) {
            ops++;
            listener.accept(new Migration(s.partition(), node, owner, s.epoch()),
                MigrationStep.SOURCE_DROPPED);
          } else {
            problems.add("DROP of partition " + s.partition() + " on " + node + " failed");
          }
        } else {
          problems.add("partition " + s.partition() + " is not served by its owner " + owner
              + " yet; " + node + " keeps it fenced");
        }
      }
    }
    // replicated copies the table left behind: a deposed primary that was cut off during its
    // failover, a backup taken out of the list; every acknowledged write is on the table's row
    for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
      NodeId node = e.getKey();
      for (PartitionStatus s : e.getValue()) {
        boolean replica = s.state() == PartitionState.OWNED || s.state() == PartitionState.BACKUP;
        if (replica && s.partition() < table.partitionCount() && s.epoch() < epoch
            && !table.replicas(s.partition()).contains(node)
            && !movingHere(s.partition()) && tryCall(node, Wire.DROP, s.partition(), epoch)) {
          ops++; // an unreplicated owner refuses: it is the only copy, moved by migrations
        }
      }
    }
    return ops;
  }

  private boolean movingHere(int partition) {
    return active.containsKey(partition) || copied.containsKey(partition);
  }

  private boolean serves(NodeId node, int partition) {
    try (TcpNodeClient c = client(node, false)) {
      return c.status(partition).state() == PartitionState.OWNED;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private boolean tryCall(NodeId node, byte op, int partition, long epoch) {
    if (closed) {
      return false; // a dead coordinator issues no more node operations
    }
    try (TcpNodeClient c = client(node, false)) {
      return c.admin(op, partition, epoch).isOk();
    } catch (IOException | RuntimeException e) {
      return false;
    }
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

  private static String key(int partition, long epoch) {
    return partition + "@" + epoch;
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

  // ---------------------------------------------------------------- node calls

  /** A node call that may fail with an IOException. */
  private interface NodeCall {
    KvReply apply(TcpNodeClient client) throws IOException;
  }

  /**
   * Calls a node, retrying unreachable nodes and node-side errors (a failed copy) with backoff
   * until the step timeout; a REFUSED answer is final.
   */
  private KvReply call(NodeId node, String step, NodeCall call, boolean copy) {
    long deadline = System.nanoTime() + stepTimeoutNanos;
    long backoff = TimeUnit.MILLISECONDS.toNanos(5);
    Exception last = null;
    while (true) {
      if (closed) {
        throw new IllegalStateException("executor closed during " + step);
      }
      try (TcpNodeClient c = client(node, copy)) {
        KvReply reply = call.apply(c);
        if (reply.status() != Status.ERROR) {
          return reply;
        }
        last = new IOException(reply.message());
      } catch (IOException e) {
        last = e;
      }
      if (System.nanoTime() + backoff > deadline) {
        throw new IllegalStateException(step + " on " + node + " failed for "
            + Duration.ofNanos(stepTimeoutNanos) + ": " + last.getMessage(), last);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(backoff);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(step + " on " + node + " interrupted", e);
      }
      backoff = Math.min(backoff * 2, TimeUnit.MILLISECONDS.toNanos(500));
    }
  }

  private static void expectOk(KvReply reply) {
    if (!reply.isOk()) {
      throw new IllegalStateException(reply.message() == null ? reply.toString()
          : reply.message());
    }
  }

  /** A client over pooled connections to {@code node}, with the copy or the request timeout. */
  private TcpNodeClient client(NodeId node, boolean copy) {
    String address = addresses.apply(node);
    if (address == null || address.isEmpty()) {
      throw new IllegalStateException("no address known for node " + node);
    }
    return new TcpNodeClient(copy ? copyConnections : requestConnections, address);
  }

  /** Stops the worker threads; running migrations stop at their next step. */
  @Override
  public void close() {
    closed = true;
    reconciler.shutdownNow();
    pool.shutdownNow();
    requestConnections.close();
    copyConnections.close();
  }

  /** Configures a {@link KvMigrationExecutor}. */
  public static final class Builder {
    Function<NodeId, String> addresses;
    Supplier<? extends Collection<NodeId>> nodes = List::of;
    int maxConcurrent = 1;
    Duration requestTimeout = Duration.ofSeconds(5);
    Duration copyTimeout = Duration.ofMinutes(5);
    Duration stepTimeout = Duration.ofSeconds(30);
    BiConsumer<Migration, MigrationStep> listener = (m, s) -> { };
    KvSecret secret;

    Builder() {}

    /** The cluster's shared secret, proven to every node that asks for it ({@link KvSecret}). */
    public Builder secret(KvSecret secret) {
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
