package io.partkit.coordinator.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.Coordinator;
import io.partkit.coordinator.LoadPlan;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.stats.LoadStatistics;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Coordinator} must honor, run against each metadata store by a short
 * subclass (Micrometer's {@code MeterRegistryCompatibilityKit} is the model).
 *
 * <p>A subclass gives every test a fresh, empty store (e.g. in a {@code @BeforeEach}, a new
 * in-memory store or a new etcd key prefix) and builds coordinators over it in
 * {@link #newCoordinator}; all coordinators of one test share that store, which is how restarts,
 * races and takeovers are tested. The strategy is the subclass's choice; it must spread partitions
 * over all members (so a joining member takes some primaries).
 *
 * <p>No test sleeps: time is a {@link ManualClock}, and asynchronous outcomes (a standby's
 * takeover on etcd) are polled for with a deadline.
 */
public abstract class CoordinatorContractKit {

  /** The clock every coordinator of the current test runs on. */
  protected final ManualClock clock = new ManualClock();

  private final List<Coordinator> opened = new ArrayList<>();

  /**
   * A new coordinator over the current test's store.
   *
   * @param settings what to build it with
   */
  protected abstract Coordinator createCoordinator(CoordinatorSettings settings);

  /** Builds a coordinator and closes it after the test. */
  protected final Coordinator newCoordinator(CoordinatorSettings settings) {
    Coordinator c = createCoordinator(settings);
    opened.add(c);
    return c;
  }

  @AfterEach
  void closeCoordinators() {
    opened.forEach(Coordinator::close);
  }

  private CoordinatorSettings defaults() {
    return CoordinatorSettings.defaults(clock);
  }

  private static Member member(String id) {
    return Member.of(id).withAddress("127.0.0.1:" + (7000 + Math.abs(id.hashCode() % 1000)));
  }

  @Test
  void membersJoinHeartbeatAndFailByTimeout() {
    Coordinator c = newCoordinator(defaults());
    c.join(member("a"));
    c.join(member("b"));
    c.join(member("c"));
    clock.advance(Duration.ofSeconds(6));
    c.heartbeat(NodeId.of("a"));
    c.heartbeat(NodeId.of("b"));
    clock.advance(Duration.ofSeconds(6)); // c: 12 s of silence > 10 s; a and b: 6 s
    assertThat(c.membership().ids()).containsExactly(NodeId.of("a"), NodeId.of("b"));
    assertThatThrownBy(() -> c.heartbeat(NodeId.of("c")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("c")
        .hasMessageContaining("join again");
    c.join(member("c"));
    assertThat(c.membership().ids()).hasSize(3);
    c.leave(NodeId.of("a"));
    assertThat(c.membership().ids()).containsExactly(NodeId.of("b"), NodeId.of("c"));
  }

  @Test
  void heartbeatsKeepMembersAliveIndefinitely() {
    Coordinator c = newCoordinator(defaults());
    c.join(member("a"));
    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofSeconds(9));
      c.heartbeat(NodeId.of("a"));
    }
    assertThat(c.membership().ids()).containsExactly(NodeId.of("a"));
  }

  @Test
  void noTableBeforeTheMinimumClusterSize() {
    Coordinator c = newCoordinator(defaults().minSize(3).autoRebalance(true));
    c.join(member("a"));
    c.join(member("b"));
    assertThatThrownBy(c::plan).isInstanceOf(IllegalStateException.class)
        .hasMessage("not enough members: have 2, need 3");
    assertThatThrownBy(c::rebalance).isInstanceOf(IllegalStateException.class)
        .hasMessage("not enough members: have 2, need 3");
    assertThat(c.table()).isEmpty();
    c.join(member("c")); // auto-rebalance: the third member makes the first table
    assertThat(c.table()).isPresent();
    assertThat(c.table().get().nodes()).hasSize(3);
  }

  @Test
  void dryRunChangesNothingAndEqualsWhatRebalanceDoes() {
    RecordingMigrationExecutor executor = new RecordingMigrationExecutor();
    Coordinator c = newCoordinator(defaults().executor(executor, 2));
    for (String id : List.of("a", "b", "c")) {
      c.join(member(id));
    }
    RebalancePlan first = c.rebalance();
    assertThat(first.migrations()).as("no data to move for the first table").isEmpty();
    c.join(member("d"));
    PartitionAssignment before = c.table().orElseThrow();

    RebalancePlan dry = c.plan();
    assertThat(c.table()).contains(before);
    assertThat(executor.migrated()).isEmpty();
    assertThat(c.plan().migrations()).as("a second dry run").isEqualTo(dry.migrations());

    RebalancePlan done = c.rebalance();
    assertThat(done.proposed()).isEqualTo(dry.proposed());
    assertThat(done.migrations()).isEqualTo(dry.migrations()).isNotEmpty();
    assertThat(done.movement()).isEqualTo(dry.movement());
    assertThat(done.balanceAfter().toString()).isEqualTo(dry.balanceAfter().toString());
    assertThat(dry.current()).contains(before);
    assertThat(dry.movement().orElseThrow().primaryMovedShare()).isGreaterThan(0);
    assertThat(c.table()).contains(done.proposed());
    assertThat(executor.migrated()).containsExactlyInAnyOrderElementsOf(done.migrations());
    for (Migration m : done.migrations()) {
      assertThat(m.target()).isEqualTo(NodeId.of("d"));
      assertThat(m.source()).isEqualTo(before.primary(m.partition()));
      assertThat(c.table().get().primary(m.partition())).isEqualTo(NodeId.of("d"));
    }
    assertThat(c.plan().isNoOp()).as("nothing left to do").isTrue();
  }

  /**
   * With a load source: loads of another epoch are not applied and say so; loads of the table
   * in force give a plan that is the dry run, no worse than counting, committed in waves of at
   * most K, whose figures are those of the committed table; and what a load-aware rebalance
   * commits, the next plan keeps (whether the strategy allows any load move is its own: the
   * figures say, the contract does not require moves).
   */
  @Test
  void aLoadAwareRebalanceIsItsDryRunCommitsInBoundedWavesAndStays() {
    RecordingMigrationExecutor executor = new RecordingMigrationExecutor();
    AtomicReference<PartitionLoads> measured = new AtomicReference<>();
    Coordinator c = newCoordinator(defaults().executor(executor, 2)
        .loadSource(t -> Optional.ofNullable(measured.get())));
    for (String id : List.of("a", "b", "c", "d")) {
      c.join(member(id));
    }
    RebalancePlan first = c.rebalance();
    assertThat(first.load()).as("a load source gives load figures").isPresent();
    assertThat(first.load().get().applied()).as("no table, nothing measured").isFalse();
    PartitionAssignment before = c.table().orElseThrow();
    double[] skew = new double[before.partitionCount()];
    for (int p = 0; p < skew.length; p++) {
      skew[p] = before.primary(p).equals(NodeId.of("a")) ? 10 : 1; // a is hot
    }

    measured.set(PartitionLoads.of(before.epoch() + 7, skew));
    RebalancePlan stale = c.plan();
    assertThat(stale.load().orElseThrow().applied()).isFalse();
    assertThat(stale.load().get().reason()).contains("epoch " + (before.epoch() + 7))
        .contains("epoch " + before.epoch());
    assertThat(stale.isNoOp()).as("stale loads change nothing").isTrue();

    PartitionLoads loads = PartitionLoads.of(before.epoch(), skew);
    measured.set(loads);
    RebalancePlan dry = c.plan();
    assertThat(c.table()).contains(before);
    RebalancePlan done = c.rebalance();
    assertThat(done.migrations()).isEqualTo(dry.migrations());
    assertThat(done.load()).isEqualTo(dry.load());
    LoadPlan load = done.load().orElseThrow();
    assertThat(load.before().orElseThrow().maxOverMean()).as(load.reason()).isGreaterThan(1.5);
    assertThat(load.after().orElseThrow().maxOverMean()).as(load.reason())
        .isLessThanOrEqualTo(load.countOnly().orElseThrow().maxOverMean());
    assertThat(executor.maxInFlight()).isLessThanOrEqualTo(2);
    PartitionAssignment after = c.table().orElseThrow();
    assertThat(after.samePlacementAs(done.proposed())).isTrue();
    assertThat(LoadStatistics.of(after, loads, c.membership()).maxOverMean())
        .isEqualTo(load.after().orElseThrow().maxOverMean());
    assertThat(c.plan().isNoOp()).as("the next plan keeps it: " + load.reason()).isTrue();
  }

  @Test
  void epochsStrictlyIncreaseAndMigrationsAreBounded() {
    RecordingMigrationExecutor executor = new RecordingMigrationExecutor();
    Coordinator c = newCoordinator(defaults().executor(executor, 2));
    List<Long> watched = new CopyOnWriteArrayList<>();
    c.watch(t -> watched.add(t.epoch()));
    List<Long> read = new ArrayList<>();
    for (String id : List.of("a", "b", "c", "d", "e")) {
      c.join(member(id));
      c.rebalance();
      read.add(c.table().orElseThrow().epoch());
    }
    c.leave(NodeId.of("b"));
    RebalancePlan leave = c.rebalance();
    read.add(c.table().orElseThrow().epoch());
    assertThat(leave.migrations())
        .allSatisfy(m -> assertThat(m.source()).isEqualTo(NodeId.of("b")));

    assertThat(read).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    long last = read.get(read.size() - 1);
    awaitTrue(() -> !watched.isEmpty() && watched.get(watched.size() - 1) == last,
        "the watch delivers epoch " + last);
    assertThat(watched).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates()
        .containsAll(read);
    assertThat(executor.maxInFlight()).isBetween(1, 2);
    for (Migration m : executor.migrated()) {
      assertThat(m.targetEpoch()).isIn(watched);
    }
  }

  @Test
  void aLateWatcherGetsTheCurrentTableFirst() {
    Coordinator c = newCoordinator(defaults());
    c.join(member("a"));
    c.rebalance();
    c.join(member("b"));
    c.rebalance();
    long epoch = c.table().orElseThrow().epoch();
    List<PartitionAssignment> seen = new CopyOnWriteArrayList<>();
    c.watch(seen::add);
    awaitTrue(() -> !seen.isEmpty(), "the current table is delivered");
    assertThat(seen.get(0).epoch()).isEqualTo(epoch);
    assertThat(seen.get(0)).isEqualTo(c.table().orElseThrow());
  }

  @Test
  void racingCoordinatorsNeverCommitOneEpochTwice() throws Exception {
    CoordinatorSettings s = defaults().leaderElection(false);
    Coordinator one = newCoordinator(s.named("one"));
    Coordinator two = newCoordinator(s.named("two"));
    List<PartitionAssignment> watched = new CopyOnWriteArrayList<>();
    one.watch(watched::add);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CyclicBarrier barrier = new CyclicBarrier(2);
      int rounds = 6;
      List<Future<?>> futures = new ArrayList<>();
      for (Coordinator c : List.of(one, two)) {
        String tag = c == one ? "x" : "y";
        futures.add(pool.submit(() -> {
          for (int i = 0; i < rounds; i++) {
            c.join(member(tag + i));
            barrier.await();
            c.rebalance();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    PartitionAssignment last = one.table().orElseThrow();
    assertThat(two.table()).contains(last);
    awaitTrue(() -> !watched.isEmpty() && watched.get(watched.size() - 1).epoch() == last.epoch(),
        "the watch reaches epoch " + last.epoch());
    List<Long> epochs = watched.stream().map(PartitionAssignment::epoch).toList();
    assertThat(epochs).as("each epoch committed once, in order")
        .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    // no lost update: the last table was computed from all members that joined
    assertThat(last.nodes()).hasSize(12);
    assertThat(one.plan().isNoOp()).isTrue();
  }

  /**
   * A rebalance holds the coordinator while its migrations run, which on a real data plane may
   * take longer than the heartbeat timeout: members that kept beating meanwhile are alive when
   * it ends, and their heartbeats did not wait for it.
   */
  @Test
  void heartbeatsDuringALongRebalanceKeepMembersAlive() throws Exception {
    RecordingMigrationExecutor slow = new RecordingMigrationExecutor();
    Coordinator c = newCoordinator(defaults().executor(slow, 1));
    List<String> ids = List.of("a", "b", "c", "d");
    for (String id : ids.subList(0, 3)) {
      c.join(member(id));
    }
    c.rebalance();
    c.join(member("d"));
    slow.holdMigrations();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<RebalancePlan> running = pool.submit(c::rebalance);
      awaitTrue(() -> slow.heldCount() == 1, "a migration is in flight");
      for (int round = 0; round < 3; round++) {
        clock.advance(Duration.ofSeconds(6)); // 18 s in all, past the 10 s timeout
        for (String id : ids) {
          Future<?> beat = pool.submit(() -> c.heartbeat(NodeId.of(id)));
          beat.get(30, java.util.concurrent.TimeUnit.SECONDS); // a wait for the rebalance fails
        }
      }
      slow.releaseHeld();
      running.get(30, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(c.membership().ids()).as("members that beat during the rebalance")
        .hasSize(4);
  }

  @Test
  void aNewCoordinatorResumesPendingMigrations() throws Exception {
    RecordingMigrationExecutor stuck = new RecordingMigrationExecutor();
    Coordinator first = newCoordinator(defaults().named("first").executor(stuck, 1));
    for (String id : List.of("a", "b", "c")) {
      first.join(member(id));
    }
    first.rebalance();
    first.join(member("d"));
    PartitionAssignment before = first.table().orElseThrow();
    stuck.holdMigrations();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<RebalancePlan> running = pool.submit(first::rebalance);
      awaitTrue(() -> stuck.heldCount() == 1, "a migration is in flight");
      first.close(); // the coordinator "crashes" mid-migration: nothing is committed
      assertThatThrownBy(running::get).hasCauseInstanceOf(IllegalStateException.class);
    } finally {
      pool.shutdownNow();
    }
    Migration inFlight = stuck.migrated().get(0);
    RecordingMigrationExecutor fresh = new RecordingMigrationExecutor();
    Coordinator second = newCoordinator(defaults().named("second").executor(fresh, 1));
    awaitTrue(() -> second.table().orElseThrow().epoch() > before.epoch(),
        "the new coordinator commits the resumed migration");
    assertThat(fresh.resumed()).containsExactly(inFlight);
    PartitionAssignment after = second.table().orElseThrow();
    assertThat(after.epoch()).isEqualTo(inFlight.targetEpoch());
    assertThat(after.primary(inFlight.partition())).isEqualTo(inFlight.target());
    assertThat(after.membershipVersion()).isGreaterThanOrEqualTo(before.membershipVersion());
    assertThat(second.membership().ids()).hasSize(4);
    assertThat(fresh.activated()).as("the table committing the resumed migration is activated")
        .contains(after);
  }

  @Test
  void everyCommittedTableIsActivated() {
    RecordingMigrationExecutor executor = new RecordingMigrationExecutor();
    Coordinator c = newCoordinator(defaults().executor(executor, 2));
    List<PartitionAssignment> committed = new ArrayList<>();
    for (String id : List.of("a", "b", "c", "d")) {
      c.join(member(id));
      c.rebalance();
      committed.add(c.table().orElseThrow());
    }
    assertThat(executor.migrated()).as("the later joins moved data").isNotEmpty();
    assertThat(executor.activated()).containsAll(committed);
    List<Long> epochs = executor.activated().stream().map(PartitionAssignment::epoch).toList();
    assertThat(epochs).as("activated in commit order").isSortedAccordingTo(Long::compare);
    for (Migration m : executor.migrated()) {
      assertThat(executor.activated()).as("a table committing %s is activated", m)
          .anyMatch(t -> t.epoch() == m.targetEpoch()
              && t.primary(m.partition()).equals(m.target()));
    }
  }

  @Test
  void aFailedActivationDoesNotUndoTheCommit() {
    RecordingMigrationExecutor executor = new RecordingMigrationExecutor();
    Coordinator c = newCoordinator(defaults().executor(executor, 2));
    for (String id : List.of("a", "b", "c")) {
      c.join(member(id));
    }
    c.rebalance();
    executor.failActivations(true);
    c.join(member("d"));
    RebalancePlan plan = c.rebalance();
    assertThat(plan.migrations()).isNotEmpty();
    assertThat(c.table()).as("the table stays committed").contains(plan.proposed());
    assertThat(executor.activated()).contains(plan.proposed());
  }

  @Test
  void aNewLeaderActivatesTheCommittedTable() {
    RecordingMigrationExecutor first = new RecordingMigrationExecutor().failActivations(true);
    Coordinator one = newCoordinator(defaults().named("one").executor(first, 2));
    for (String id : List.of("a", "b", "c")) {
      one.join(member(id));
    }
    one.rebalance();
    one.join(member("d"));
    one.rebalance(); // committed, never activated: as if "one" crashed right after the commit
    PartitionAssignment committed = one.table().orElseThrow();
    one.close();
    RecordingMigrationExecutor fresh = new RecordingMigrationExecutor();
    newCoordinator(defaults().named("two").executor(fresh, 2));
    awaitTrue(() -> fresh.activated().contains(committed),
        "the next leader activates epoch " + committed.epoch());
    assertThat(fresh.resumed()).as("nothing was pending").isEmpty();
  }

  @Test
  void onlyTheLeaderActsAndAStandbyTakesOver() {
    Coordinator leader = newCoordinator(defaults().named("leader"));
    awaitTrue(() -> {
      try {
        leader.join(member("a"));
        leader.rebalance();
        return true;
      } catch (IllegalStateException notYet) {
        return false;
      }
    }, "the first coordinator leads");
    Coordinator standby = newCoordinator(defaults().named("standby"));
    standby.join(member("b")); // membership changes are accepted by any coordinator
    assertThatThrownBy(standby::rebalance).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not the leader");
    long epoch = leader.table().orElseThrow().epoch();
    leader.close();
    awaitTrue(() -> {
      try {
        standby.rebalance();
        return true;
      } catch (IllegalStateException notYet) {
        return false;
      }
    }, "the standby takes over");
    assertThat(standby.table().orElseThrow().epoch()).isGreaterThan(epoch);
    assertThat(standby.table().orElseThrow().nodes()).contains(NodeId.of("a"), NodeId.of("b"));
  }

  /** Polls {@code condition} until it holds, failing after 30 s (never a fixed sleep). */
  protected static void awaitTrue(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(5); // a polling interval, not a wait for an outcome
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }
}
