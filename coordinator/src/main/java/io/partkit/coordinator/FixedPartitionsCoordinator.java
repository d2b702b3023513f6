package io.partkit.coordinator;

import static io.partkit.coordinator.internal.ListenerExecutor.closeQuietly;
import static java.util.Objects.requireNonNull;

import io.partkit.coordinator.internal.ListenerExecutor;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.MigrationExecutor.MovesReplicas;
import io.partkit.spi.MigrationExecutor.RemovesSuspectedReplicas;
import io.partkit.spi.MigrationExecutor.ReportsLostReplicas;
import io.partkit.spi.MigrationExecutor.RestoresReplicas;
import io.partkit.spi.MigrationExecutor.SplitsPartitions;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consistent core of the "Fixed Partitions" pattern (Joshi, <i>Patterns of Distributed
 * Systems</i>, "Fixed Partitions" and "Consistent Core"; Kafka's controller and Hazelcast's
 * master play this role).
 *
 * <p>Everything durable is in the {@link MetadataStore}; this object keeps only the heartbeat
 * times it observed (on the injected clock) and a lock that serializes its own operations.
 * Safety does not rest on that lock or on leader election: every table change is a
 * compare-and-set on the epoch, so coordinators racing on one store produce one linear sequence of
 * tables. A lost race is retried from the fresh state.
 *
 * <p>With a {@link MigrationExecutor}, every table this coordinator commits (or keeps, when it
 * abandons a wave) is handed to {@link MigrationExecutor#activate}, so the data plane learns
 * decisions from the coordinator and never reads the store itself. What the executor can do
 * beyond moving partitions is asked with {@code instanceof} of its abilities ({@link
 * MovesReplicas} and the rest): work that needs an ability the executor lacks is not done (lost
 * replicas, reviews) or, for a change of partition scheme, refused.
 *
 * <p>Leadership may be lost and regained (on etcd, a leader steps down on a transient fault and
 * leads again on its surviving lease). Every election, first or regained, is handled alike:
 * heartbeat grace for every member, pending migrations resumed, the committed table activated
 * (a predecessor may have crashed between a commit and its activation), then a rebalance if
 * automatic.
 * Nothing is cached across it: every decision reads the table from the store.
 *
 * <p>Failure detection is timeout based on the injected {@link InstantSource}: a member not heard
 * from for longer than the heartbeat timeout is removed. A newly elected leader gives every member
 * a full timeout of grace, since it has not been receiving their heartbeats.
 */
final class FixedPartitionsCoordinator implements ClusterCoordinator {

  private static final Logger LOG = LoggerFactory.getLogger(FixedPartitionsCoordinator.class);
  /** Lost compare-and-set races retried per call before giving up. */
  private static final int MAX_ATTEMPTS = 16;
  /**
   * How long a commit waits for the executor to activate the table. Bounded because the
   * coordinator's lock is held: a data plane that cannot be reached does not stall the
   * coordinator; the activation is retried by the next commit or the next leader.
   */
  private static final Duration ACTIVATION_TIMEOUT = Duration.ofSeconds(30);

  private final MetadataStore store;
  private final RebalancePlanner planner;
  /** The executor moves whole replica lists ({@link MovesReplicas}). */
  private final boolean wholeReplicaLists;
  private final int minClusterSize;
  private final Duration heartbeatTimeout;
  private final InstantSource clock;
  private final MigrationExecutor executor;
  private final int maxConcurrent;
  private final boolean autoRebalance;
  private final String name;

  private final ReentrantLock lock = new ReentrantLock();
  /**
   * When each member was last heard, changed under the lock but for a heartbeat's arrival: a
   * rebalance holds the lock while its migrations run, on a real data plane longer than the
   * heartbeat timeout, and the members that beat meanwhile must not look silent once it lets go.
   */
  private final Map<NodeId, Instant> lastSeen = new ConcurrentHashMap<>();
  private final Map<AutoCloseable, Boolean> watches = new ConcurrentHashMap<>();
  private volatile Leadership leadership; // null without election
  /**
   * The table epoch at which {@link RestoresReplicas#restoreReplicas} last found every replica
   * whole (-1: none since this coordinator was elected): the review asks again at another epoch.
   */
  private final AtomicLong wholeAtEpoch = new AtomicLong(-1);
  private volatile boolean closed;
  private AutoCloseable memberWatch;

  private FixedPartitionsCoordinator(Coordinators.Builder b) {
    this.store = b.store;
    this.minClusterSize = b.minClusterSize;
    this.heartbeatTimeout = b.heartbeatTimeout;
    this.clock = b.clock;
    this.executor = b.migrationExecutor;
    this.maxConcurrent = b.maxConcurrentMigrations;
    this.autoRebalance = b.autoRebalance;
    this.name = b.name;
    this.wholeReplicaLists = executor instanceof MovesReplicas;
    this.planner = new RebalancePlanner(b.partitioner, maxConcurrent, executor != null,
        wholeReplicaLists, b.loadSource, b.maxLoadMoves, b.loadImbalanceThreshold);
  }

  static ClusterCoordinator start(Coordinators.Builder b) {
    FixedPartitionsCoordinator c = new FixedPartitionsCoordinator(b);
    if (b.leaderElection) {
      c.leadership = c.store.campaign(c.name, c::onElected, c::onLost);
    }
    if (c.isLeader()) {
      c.onElected(); // do not wait for the store's callback: build() returns a working leader
    }
    if (c.autoRebalance) {
      c.memberWatch = c.store.watchMembers(c::onMembersChanged);
    }
    return c;
  }

  // ---- leadership ----

  private boolean electedHandled; // guarded by lock

  private void onElected() {
    lock.lock();
    try {
      if (closed || electedHandled || !isLeader()) {
        return;
      }
      electedHandled = true;
      wholeAtEpoch.set(-1); // a predecessor may have taken replicas out
      LOG.info("{} leads on {}", name, store.describe());
      lastSeen.clear();
      Instant now = clock.instant();
      store.members().ids().forEach(id -> lastSeen.put(id, now));
      try {
        resumePendingAndActivateLocked();
        if (autoRebalance) {
          rebalanceIfPossible();
        }
      } catch (RuntimeException e) {
        LOG.error("{}: resuming after election failed; call resumePending() to retry", name, e);
      }
    } finally {
      lock.unlock();
    }
  }

  private void onLost() {
    lock.lock();
    try {
      electedHandled = false;
      LOG.warn("{} lost leadership on {}", name, store.describe());
    } finally {
      lock.unlock();
    }
  }

  private void onMembersChanged() {
    if (closed || !isLeader() || lock.isHeldByCurrentThread()) {
      return;
    }
    lock.lock();
    try {
      if (!closed && isLeader()) {
        rebalanceIfPossible();
      }
    } catch (RuntimeException e) {
      LOG.warn("{}: automatic rebalance failed", name, e);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isLeader() {
    Leadership l = leadership;
    return !closed && (l == null || l.isLeader());
  }

  private void requireLeader(String what) {
    if (!isLeader()) {
      String leader = store.leader().orElse("none");
      throw new IllegalStateException(name + " cannot " + what + ": it is not the leader (leader: "
          + leader + ")" + (leader.equals(name) ? "; it stepped down after a fault of "
          + store.describe() + " and is taking its own leader key back: retry shortly" : ""));
    }
  }

  // ---- membership ----

  @Override
  public MembershipView join(Member member) {
    requireNonNull(member, "member");
    return locked(() -> {
      checkFailuresLocked(false);
      store.putMember(member, heartbeatTimeout);
      lastSeen.put(member.id(), clock.instant());
      if (autoRebalance && isLeader()) {
        rebalanceIfPossible();
      }
      return store.members();
    });
  }

  @Override
  public void heartbeat(NodeId member) {
    requireNonNull(member, "member");
    checkOpen();
    lastSeen.merge(member, clock.instant(), (a, b) -> a.isAfter(b) ? a : b);
    if (!lock.tryLock()) {
      // held by a rebalance (or another call): the member's renewal does not wait for it, and
      // the failures are checked by the next call that takes the lock, counting this beat
      renew(member);
      return;
    }
    try {
      checkOpen();
      checkFailuresLocked(true);
      renew(member);
    } finally {
      lock.unlock();
    }
  }

  private void renew(NodeId member) {
    if (!store.renewMember(member)) {
      throw new IllegalStateException("member " + member + " is unknown or was declared failed"
          + " (no heartbeat within " + heartbeatTimeout + "): it must join again");
    }
  }

  @Override
  public MembershipView leave(NodeId member) {
    requireNonNull(member, "member");
    return locked(() -> {
      checkFailuresLocked(false);
      lastSeen.remove(member);
      if (store.removeMember(member) && autoRebalance && isLeader()) {
        rebalanceIfPossible();
      }
      return store.members();
    });
  }

  @Override
  public MembershipView membership() {
    return locked(() -> {
      checkFailuresLocked(true);
      return store.members();
    });
  }

  @Override
  public List<NodeId> checkFailures() {
    return locked(() -> checkFailuresLocked(true));
  }

  private List<NodeId> checkFailuresLocked(boolean rebalance) {
    if (!isLeader()) {
      return List.of();
    }
    Instant now = clock.instant();
    MembershipView view = store.members();
    lastSeen.keySet().retainAll(view.ids());
    TreeSet<NodeId> failed = new TreeSet<>();
    for (NodeId id : view.ids()) {
      Instant seen = lastSeen.putIfAbsent(id, now); // joined elsewhere: grace from now
      if (seen != null && Duration.between(seen, now).compareTo(heartbeatTimeout) > 0) {
        failed.add(id);
      }
    }
    for (NodeId id : failed) {
      LOG.warn("{}: member {} failed: no heartbeat since {} (timeout {})", name, id,
          lastSeen.get(id), heartbeatTimeout);
      store.removeMember(id);
      lastSeen.remove(id);
    }
    if (!failed.isEmpty() && rebalance && autoRebalance) {
      rebalanceIfPossible();
    }
    return List.copyOf(failed);
  }

  // ---- table ----

  @Override
  public Optional<PartitionAssignment> table() {
    checkOpen();
    return store.read().table();
  }

  @Override
  public RebalancePlan plan() {
    return locked(() -> {
      checkFailuresLocked(false);
      MembershipView view = store.members();
      requireQuorum(view);
      Optional<PartitionAssignment> current = store.read().table();
      RebalancePlan plan = planner.plan(current, view);
      current.ifPresent(c -> splitter(c, plan.proposed()));
      return plan;
    });
  }

  @Override
  public RebalancePlan rebalance() {
    return locked(() -> {
      requireLeader("rebalance");
      checkFailuresLocked(false);
      requireQuorum(store.members());
      return rebalanceLocked();
    });
  }

  private void rebalanceIfPossible() {
    if (store.members().size() >= minClusterSize) {
      try {
        rebalanceLocked();
      } catch (RuntimeException e) {
        LOG.warn("{}: automatic rebalance failed; the next membership change or rebalance() "
            + "retries", name, e);
      }
    }
  }

  private void requireQuorum(MembershipView view) {
    if (view.size() < minClusterSize) {
      throw new IllegalStateException(
          "not enough members: have " + view.size() + ", need " + minClusterSize);
    }
  }

  private RebalancePlan rebalanceLocked() {
    RebalancePlan rejoined = null; // replicas that lost records rejoin once per rebalance
    for (int attempt = 1; ; attempt++) {
      if (!store.read().pending().isEmpty()) {
        resumePendingLocked();
      }
      MetadataSnapshot snap = store.read();
      MembershipView view = store.members();
      requireQuorum(view);
      Optional<RebalancePlan> rejoin = rejoined == null ? rejoinPlan(snap, view)
          : Optional.empty();
      if (rejoin.isPresent()) {
        if (execute(snap, rejoin.get())) {
          LOG.info("{}: committed epoch {} (rejoined {} partitions)", name,
              rejoin.get().proposed().epoch(), rejoin.get().migrations().size());
          rejoined = rejoin.get();
          continue; // then what the membership asks for, from the table just committed
        }
      } else {
        RebalancePlan plan = planner.plan(snap.table(), view);
        if (plan.isNoOp()) {
          return rejoined == null ? plan : rejoined;
        }
        if (execute(snap, plan)) {
          LOG.info("{}: committed epoch {} ({} migrations){}", name, plan.proposed().epoch(),
              plan.migrations().size(), plan.load().map(l -> "; load: " + l.reason())
                  .orElse(""));
          return plan;
        }
      }
      if (attempt == MAX_ATTEMPTS) {
        throw new IllegalStateException(
            name
                + ": lost "
                + MAX_ATTEMPTS
                + " compare-and-set races"
                + " in a row on "
                + store.describe()
                + "; another coordinator keeps changing the table");
      }
      LOG.info("{}: the table changed under the rebalance (attempt {}); planning again", name,
          attempt);
    }
  }

  /**
   * Replicas that lost acknowledged records come first: until they rejoin, their partitions
   * serve nothing. The data plane reports them ({@link ReportsLostReplicas#lostReplicas}); an
   * executor without that ability is not asked, and a report that fails is no reason to stop a
   * rebalance (the next one asks again). The plan then runs and commits like any other, under
   * the table's compare-and-set.
   */
  private Optional<RebalancePlan> rejoinPlan(MetadataSnapshot snap, MembershipView view) {
    Map<Integer, Set<NodeId>> lost = Map.of();
    if (executor instanceof ReportsLostReplicas reporter && snap.table().isPresent()) {
      try {
        lost = reporter.lostReplicas(snap.table().get(), Set.copyOf(view.ids()));
      } catch (RuntimeException e) {
        LOG.warn("{}: the executor could not report lost replicas; the next rebalance asks"
            + " again", name, e);
      }
    }
    if (lost.isEmpty()) {
      return Optional.empty();
    }
    RebalancePlan plan = RebalancePlanner.rejoin(snap.table().get(), lost, maxConcurrent, view);
    LOG.warn("{}: replicas that lost acknowledged records rejoin as backups: {}; {} partitions"
        + " reconfigured", name, lost, plan.migrations().size());
    return plan.migrations().isEmpty() ? Optional.empty() : Optional.of(plan);
  }

  /**
   * The node calls (the primaries' SUSPECTS, the restore's STATUS and joins, the removals) run
   * outside the lock, so a review that waits on an unreachable node holds up no join, heartbeat
   * or rebalance; the lock is taken only to decide and commit, and the decision is dropped when
   * the table or the pending migrations changed since the reports were gathered (they were about
   * another table). Nodes refuse a reconfiguration older than their epoch, so a removal that a
   * later commit overtakes changes nothing.
   *
   * <p>What a review does depends on the executor's abilities: with none of them, nothing; with
   * {@link RestoresReplicas} alone, the restore; with {@link RemovesSuspectedReplicas}, the
   * suspicions first and the restore when there is nothing to take out.
   */
  @Override
  public Map<Integer, Set<NodeId>> reviewReplicas() {
    checkOpen();
    requireLeader("review replicas");
    if (!(executor instanceof RestoresReplicas restorer)) {
      return Map.of(); // the data plane keeps its replica sets to itself
    }
    MetadataSnapshot snap = store.read();
    if (!reviewable(snap)) {
      return Map.of(); // a migration's reconfiguration decides those partitions
    }
    PartitionAssignment table = snap.table().get();
    RemovesSuspectedReplicas remover =
        executor instanceof RemovesSuspectedReplicas r ? r : null; // null: restores only
    Map<Integer, Set<NodeId>> removed = remover == null ? Map.of()
        : SuspectedBackups.removable(table,
            remover.suspectedReplicas(table, Set.copyOf(store.members().ids())));
    if (removed.isEmpty()) {
      // Idle, every replica whole at this epoch: no STATUS round for each partition every
      // review. Taking a replica out commits a new epoch, and so does any other change of rows.
      if (wholeAtEpoch.get() != table.epoch() && restorer.restoreReplicas(table) == 0) {
        wholeAtEpoch.set(table.epoch());
      }
      return Map.of();
    }
    // The epoch first, then the nodes: a coordinator that lost the race changes nothing, and
    // the winner's reconfiguration at the new epoch fences every older configuration.
    PartitionAssignment next = table.withEpoch(table.epoch() + 1);
    boolean committed = locked(() -> {
      requireLeader("review replicas");
      MetadataSnapshot now = store.read();
      return reviewable(now) && now.table().get().equals(table)
          && store.compareAndSetTable(table.epoch(), next);
    });
    if (!committed) {
      return Map.of();
    }
    LOG.warn("{}: committed epoch {}: backups their primaries cannot reach taken out: {}",
        name, next.epoch(), removed);
    for (Map.Entry<Integer, Set<NodeId>> e : removed.entrySet()) {
      try {
        remover.removeReplicas(next, e.getKey(), e.getValue());
      } catch (RuntimeException ex) {
        LOG.warn("{}: partition {}: {} not taken out at epoch {}; asked again at the next"
            + " review", name, e.getKey(), e.getValue(), next.epoch(), ex);
      }
    }
    return removed;
  }

  /** Whether {@link #reviewReplicas} may act on {@code snap}: a table, and no migration pending. */
  private static boolean reviewable(MetadataSnapshot snap) {
    return snap.table().isPresent() && snap.pending().isEmpty();
  }

  /** Runs a plan; false when another coordinator changed the table first. */
  private boolean execute(MetadataSnapshot snap, RebalancePlan plan) {
    if (executor != null && snap.table().isPresent()
        && RebalancePlanner.needsSplit(snap.table().get(), plan.proposed())) {
      Optional<MetadataSnapshot> split = commitSplit(snap.table().get(), plan.proposed());
      if (split.isEmpty()) {
        return false;
      }
      snap = split.get();
      if (snap.epoch() == plan.proposed().epoch()) {
        return true; // the split was the whole change
      }
    }
    if (plan.migrations().isEmpty()) {
      if (!store.compareAndSetTable(snap.epoch(), plan.proposed())) {
        return false;
      }
      activate(plan.proposed());
      return true;
    }
    PartitionAssignment current = snap.table().orElseThrow();
    List<String> rolledBack = new ArrayList<>();
    boolean first = true;
    for (List<Migration> wave : RebalancePlanner.waves(plan.migrations())) {
      List<PendingMigration> pending = new ArrayList<>(wave.size());
      for (Migration m : wave) {
        pending.add(new PendingMigration(m, plan.proposed().replicas(m.partition())));
      }
      if (!store.recordMigrations(current.epoch(), pending)) {
        if (first) {
          return false;
        }
        throw raceDuringRebalance(current.epoch());
      }
      WaveResult result = run(pending, executor::migrate);
      long epoch = wave.get(0).targetEpoch();
      Optional<PartitionAssignment> next = RebalancePlanner.commitTable(current, result.completed,
          result.failed.isEmpty(), first ? Optional.of(plan.proposed()) : Optional.empty(), epoch,
          wholeReplicaLists);
      result.failed.forEach((m, e) -> rolledBack.add(m.partition() + " (" + m.source() + " -> "
          + m.target() + "): " + e));
      if (next.isEmpty()) {
        store.clearMigrations(current.epoch());
        activate(current); // the wave's completed migrations were abandoned: roll them back
        break; // a change of shape commits all or nothing
      }
      if (!store.compareAndSetTable(current.epoch(), next.get())) {
        throw raceDuringRebalance(current.epoch());
      }
      current = next.get();
      activate(current);
      first = false;
    }
    if (!rolledBack.isEmpty()) {
      throw new IllegalStateException(name + ": rebalance to epoch " + plan.proposed().epoch()
          + " incomplete, " + rolledBack.size() + " of " + plan.migrations().size()
          + " migrations rolled back (the table is at epoch " + current.epoch()
          + "; rebalance() again to retry): " + String.join("; ", rolledBack));
    }
    return true;
  }

  /**
   * Commits the split table of a scheme change (see {@link RebalancePlanner#splitTable}): the
   * executor fences what it renumbers first, so no node serves in either numbering between the
   * commit and the activation that renumbers its data. Empty when another coordinator changed
   * the table first (the fence is lifted again).
   *
   * @throws IllegalStateException when the executor cannot split partitions or could not
   *     prepare this split
   */
  private Optional<MetadataSnapshot> commitSplit(PartitionAssignment current,
      PartitionAssignment proposed) {
    SplitsPartitions splitter = splitter(current, proposed);
    PartitionAssignment split = RebalancePlanner.splitTable(current, proposed);
    Throwable failed = await(() -> splitter.prepareSplit(current, split));
    if (failed != null) {
      activate(current); // lifts whatever part of the fence was put up
      throw new IllegalStateException(name + ": could not prepare the split of epoch "
          + current.epoch() + " into " + split.partitionCount() + " partitions (" + split.scheme()
          + "); the table stays at epoch " + current.epoch() + ": " + failed, failed);
    }
    if (!store.compareAndSetTable(current.epoch(), split)) {
      store.read().table().ifPresent(this::activate);
      return Optional.empty();
    }
    LOG.info("{}: committed epoch {}: {} partitions split into {}, no data moved", name,
        split.epoch(), current.partitionCount(), split.partitionCount());
    activate(split);
    MetadataSnapshot now = store.read();
    if (now.epoch() != split.epoch()) {
      throw raceDuringRebalance(split.epoch());
    }
    return Optional.of(now);
  }

  /**
   * The executor as one that splits partitions, when committing {@code proposed} over {@code
   * current} needs a split; null when it needs none (or there is no executor: the coordinator
   * then commits the new scheme as metadata). Asked by the dry run too, so that {@code plan()}
   * refuses what {@code rebalance()} would.
   *
   * @throws IllegalStateException when it needs one and the executor cannot split partitions
   */
  private SplitsPartitions splitter(PartitionAssignment current, PartitionAssignment proposed) {
    if (executor == null || !RebalancePlanner.needsSplit(current, proposed)) {
      return null;
    }
    if (executor instanceof SplitsPartitions splitter) {
      return splitter;
    }
    throw new IllegalStateException(name + ": strategy '" + proposed.strategy() + "' changed the"
        + " partition scheme from " + current.scheme() + " to " + proposed.scheme() + ", but the"
        + " migration executor " + executor.getClass().getName() + " cannot renumber partitions"
        + " (it does not implement MigrationExecutor.SplitsPartitions); the table stays at"
        + " epoch " + current.epoch() + ": use a strategy with a fixed partition count");
  }

  /** Waits for a stage, bounded like an activation; its failure, or null. */
  private Throwable await(java.util.function.Supplier<CompletionStage<Void>> action) {
    CompletableFuture<Void> done;
    try {
      done = action.get().toCompletableFuture();
    } catch (RuntimeException e) {
      return e;
    }
    long deadline = System.nanoTime() + ACTIVATION_TIMEOUT.toNanos();
    while (true) {
      try {
        done.get(50, TimeUnit.MILLISECONDS);
        return null;
      } catch (TimeoutException e) {
        if (closed || System.nanoTime() > deadline) {
          return new TimeoutException("not done within " + ACTIVATION_TIMEOUT);
        }
      } catch (ExecutionException e) {
        return e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return e;
      }
    }
  }

  private IllegalStateException raceDuringRebalance(long epoch) {
    return new IllegalStateException(name + ": another coordinator changed the table on "
        + store.describe() + " while migrations from epoch " + epoch + " were running; "
        + "is leader election disabled with two coordinators acting?");
  }

  @Override
  public int resumePending() {
    return locked(() -> {
      requireLeader("resume pending migrations");
      return resumePendingAndActivateLocked();
    });
  }

  /**
   * Resumes what a predecessor left pending (which activates the table it commits), or, with
   * nothing pending, activates the committed table: the predecessor may have crashed between a
   * commit and its activation.
   */
  private int resumePendingAndActivateLocked() {
    int resumed = resumePendingLocked();
    if (resumed == 0) {
      store.read().table().ifPresent(this::activate);
    }
    return resumed;
  }

  private int resumePendingLocked() {
    MetadataSnapshot snap = store.read();
    List<PendingMigration> pending = snap.pending();
    if (pending.isEmpty()) {
      return 0;
    }
    if (executor == null) {
      throw new IllegalStateException(name + ": " + pending.size() + " migrations are pending on "
          + store.describe() + " but this coordinator has no migration executor to resume them");
    }
    PartitionAssignment current = snap.table().orElseThrow(() -> new MetadataStoreException(
        store.describe() + " has pending migrations but no table"));
    long epoch = pending.get(0).migration().targetEpoch();
    LOG.info("{}: resuming {} migrations from epoch {} to {}", name, pending.size(),
        current.epoch(), epoch);
    WaveResult result = run(pending, m -> executor.resume(m, current));
    Optional<PartitionAssignment> next = RebalancePlanner.commitTable(current, result.completed,
        result.failed.isEmpty(), Optional.empty(), epoch, wholeReplicaLists);
    boolean done = next.isPresent()
        ? store.compareAndSetTable(current.epoch(), next.get())
        : store.clearMigrations(current.epoch());
    if (!done) {
      throw raceDuringRebalance(current.epoch());
    }
    activate(next.orElse(current));
    result.failed.forEach((m, e) -> LOG.warn("{}: migration of partition {} rolled back: {}",
        name, m.partition(), e.toString()));
    return pending.size();
  }

  /**
   * Hands a table just committed (or kept) to the executor and waits for it, bounded. A failure
   * is logged, never thrown: the table is committed and stays so; the next commit or the next
   * leader activates again (activation is idempotent).
   */
  private void activate(PartitionAssignment committed) {
    if (executor == null) {
      return;
    }
    Throwable failed = await(() -> executor.activate(committed));
    if (failed instanceof TimeoutException) {
      LOG.warn("{}: activating epoch {} did not finish within {}; it stays committed and is "
          + "activated again at the next commit or by the next leader", name, committed.epoch(),
          ACTIVATION_TIMEOUT);
    } else if (failed instanceof InterruptedException) {
      LOG.warn("{}: interrupted while activating epoch {}", name, committed.epoch());
    } else if (failed != null) {
      LOG.warn("{}: activating epoch {} failed; it stays committed and is activated again at "
          + "the next commit or by the next leader", name, committed.epoch(), failed);
    }
  }

  private static final class WaveResult {
    final List<PendingMigration> completed = new ArrayList<>();
    final Map<Migration, Throwable> failed = new HashMap<>();
  }

  /**
   * Runs migrations with at most K in flight; waits for all. Polls for {@link #close()} while
   * waiting, so a closed (crashed) coordinator stops without committing and leaves the migrations
   * pending for its successor.
   */
  private WaveResult run(List<PendingMigration> migrations,
      Function<Migration, CompletionStage<Migration>> action) {
    WaveResult result = new WaveResult();
    Semaphore slots = new Semaphore(maxConcurrent);
    for (PendingMigration pm : migrations) {
      acquire(slots, 1);
      CompletionStage<Migration> stage;
      try {
        stage = action.apply(pm.migration());
      } catch (RuntimeException e) {
        stage = CompletableFuture.failedFuture(e);
      }
      stage.whenComplete((m, e) -> {
        synchronized (result) {
          if (e == null) {
            result.completed.add(pm);
          } else {
            result.failed.put(pm.migration(), e);
          }
        }
        slots.release();
      });
    }
    acquire(slots, maxConcurrent);
    synchronized (result) {
      return result;
    }
  }

  private void acquire(Semaphore slots, int permits) {
    try {
      while (!slots.tryAcquire(permits, 50, TimeUnit.MILLISECONDS)) {
        if (closed) {
          throw new IllegalStateException(name + " closed while migrations were running; they "
              + "stay pending on " + store.describe() + " for the next leader to resume");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(name + " interrupted while migrations were running", e);
    }
  }

  // ---- watch and lifecycle ----

  @Override
  public AutoCloseable watch(Consumer<PartitionAssignment> listener) {
    checkOpen();
    AutoCloseable handle = store.watchTable(requireNonNull(listener, "listener"));
    watches.put(handle, Boolean.TRUE);
    return () -> {
      watches.remove(handle);
      handle.close();
    };
  }

  @Override
  public MetadataStore store() {
    return store;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true; // first, so that a running wave stops waiting
    lock.lock();
    try {
      Leadership l = leadership;
      if (l != null) {
        l.close();
      }
      closeQuietly(memberWatch);
      watches.keySet().forEach(ListenerExecutor::closeQuietly);
      watches.clear();
    } finally {
      lock.unlock();
    }
  }


  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(name + " is closed");
    }
  }

  private interface Action<T> {
    T run();
  }

  private <T> T locked(Action<T> action) {
    checkOpen();
    lock.lock();
    try {
      checkOpen();
      return action.run();
    } finally {
      lock.unlock();
    }
  }
}
