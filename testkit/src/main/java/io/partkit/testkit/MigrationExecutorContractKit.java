package io.partkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every {@link MigrationExecutor} must pass, on a real data plane. A data plane
 * gets the whole suite with a subclass that implements {@link #newCluster()} (and, for the
 * resume tests, a static {@code steps()} method source is not needed: the steps come from
 * {@link MigrationCluster#recordedSteps()}).
 *
 * <p>What it checks, after the protocol of {@link MigrationExecutor}:
 * <ul>
 *   <li>a migration moves the data and the ownership, and the old owner then rejects writes;
 *   <li>fencing: a write carrying an epoch older than the new owner's is rejected;
 *   <li>at no moment do both owners accept writes (both are probed all through the move);
 *   <li>{@link MigrationExecutor#migrate} stops at ready-to-commit: the target does not serve
 *       before {@link MigrationExecutor#activate} is called with a table that commits it;
 *   <li>{@link MigrationExecutor#activate} is idempotent;
 *   <li>a migration interrupted after each recorded step (the coordinator crashes with it) is
 *       completed or rolled back by a new executor's {@link MigrationExecutor#resume}, given
 *       the committed table: finished if that table commits it, else brought to ready-to-commit
 *       or rolled back;
 *   <li>a coordinator that crashed between a commit and its activation is made good by the
 *       next leader's {@link MigrationExecutor#activate} alone;
 *   <li>every acknowledged write survives all of the above.
 * </ul>
 */
public abstract class MigrationExecutorContractKit {

  /** What a node did with a write sent straight to it. */
  public enum WriteOutcome {
    /** Applied and acknowledged. */
    ACCEPTED,
    /** Refused with a retriable "moving" answer: not applied. */
    MOVING,
    /** Refused: the node does not own the partition at that epoch (redirect). Not applied. */
    REJECTED
  }

  /**
   * A data plane of at least two nodes with a committed table, its metadata store and an
   * executor. It plays the coordinator's store side (record, commit, abandon); the kit itself
   * calls the executor, as the coordinator does. Methods throw unchecked exceptions on
   * infrastructure failures.
   */
  public interface MigrationCluster extends AutoCloseable {

    /** The committed table. */
    PartitionAssignment table();

    /** The executor under test (a new instance after {@link #crashAfter}). */
    MigrationExecutor executor();

    /** Records the migration as pending in the metadata store: the coordinator's first step. */
    void record(Migration migration);

    /**
     * Commits, in the metadata store only, the table that makes the migration's target the
     * owner at its target epoch (the coordinator's compare-and-set after {@code migrate}
     * completed). It does not tell the executor: the kit calls
     * {@link MigrationExecutor#activate} next, as the coordinator does.
     */
    void commit(Migration migration);

    /** Drops the pending record of a migration that was rolled back. */
    void abandon(Migration migration);

    /** A write sent straight to {@code node} with the given epoch, bypassing routing. */
    WriteOutcome write(NodeId node, int partition, long epoch, String key, String value);

    /** A read routed by the committed table (retrying while the partition moves). */
    Optional<String> read(String key);

    /** The {@code i}-th of many distinct keys that fall into {@code partition}. */
    String keyIn(int partition, int i);

    /**
     * The steps an implementation records, in order; each must be accepted by
     * {@link #crashAfter}.
     */
    List<String> recordedSteps();

    /**
     * Runs the migration (recorded, and committed if it gets that far) until {@code step} is
     * recorded, then crashes the coordinator side: the executor is abandoned mid-protocol and
     * replaced by a new one over the same metadata store and nodes.
     */
    void crashAfter(Migration migration, String step);

    /**
     * Runs the migration to ready-to-commit, commits its table, then crashes the coordinator
     * side before {@link MigrationExecutor#activate} is called: the executor is replaced by a
     * new one over the same metadata store and nodes, and the record of the migration is gone
     * with the commit.
     */
    void crashAfterCommit(Migration migration);

    /** Where the migration stands, as one of {@link #recordedSteps()} or "ROLLED_BACK". */
    String step(Migration migration);
  }

  /** A fresh cluster for one test. */
  protected abstract MigrationCluster newCluster() throws Exception;

  /** How long one migration may take in these tests. */
  protected Duration migrationTimeout() {
    return Duration.ofSeconds(60);
  }

  private MigrationCluster cluster;

  @BeforeEach
  void createCluster() throws Exception {
    cluster = newCluster();
  }

  @AfterEach
  void closeCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A migration of the first partition of the table's first node to its second node. */
  private Migration firstMove() {
    PartitionAssignment t = cluster.table();
    List<NodeId> nodes = t.nodes();
    assertThat(nodes).as("the cluster needs two nodes").hasSizeGreaterThanOrEqualTo(2);
    NodeId source = t.primary(0);
    NodeId target = nodes.get(0).equals(source) ? nodes.get(1) : nodes.get(0);
    return new Migration(0, source, target, t.epoch() + 1);
  }

  private Map<String, String> load(Migration m, int keys) {
    Map<String, String> acked = new LinkedHashMap<>();
    long epoch = cluster.table().epoch();
    for (int i = 0; i < keys; i++) {
      String key = cluster.keyIn(m.partition(), i);
      String value = "v" + i;
      assertThat(cluster.write(m.source(), m.partition(), epoch, key, value))
          .as("write %s to the owner %s before the move", key, m.source())
          .isEqualTo(WriteOutcome.ACCEPTED);
      acked.put(key, value);
    }
    return acked;
  }

  /** Runs migrate and commits or abandons as the coordinator would; true if committed. */
  private boolean runToEnd(Migration m) {
    cluster.record(m);
    return finish(m, cluster.executor().migrate(m).toCompletableFuture());
  }

  private boolean finish(Migration m, CompletableFuture<Migration> running) {
    try {
      running.get(migrationTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | CompletionException e) {
      cluster.abandon(m);
      activate("after abandoning " + m);
      return false;
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("migration " + m + " did not finish in " + migrationTimeout(), e);
    }
    cluster.commit(m);
    activate("after committing " + m);
    return true;
  }

  /** The coordinator's step after each commit: hands the committed table to the executor. */
  private void activate(String when) {
    PartitionAssignment table = cluster.table();
    assertThat(cluster.executor().activate(table).toCompletableFuture())
        .as("activate epoch %d %s", table.epoch(), when)
        .succeedsWithin(migrationTimeout());
  }

  private void assertReadable(Map<String, String> acked, String when) {
    for (Map.Entry<String, String> e : acked.entrySet()) {
      assertThat(cluster.read(e.getKey())).as("acknowledged %s=%s %s", e.getKey(), e.getValue(),
          when).contains(e.getValue());
    }
  }

  @Test
  void migrateMovesDataAndOwnership() {
    Migration m = firstMove();
    Map<String, String> acked = load(m, 200);
    assertThat(runToEnd(m)).as("migration %s committed", m).isTrue();
    assertThat(cluster.table().primary(m.partition())).isEqualTo(m.target());
    assertThat(cluster.table().epoch()).isGreaterThanOrEqualTo(m.targetEpoch());
    assertReadable(acked, "after the move");
    String key = cluster.keyIn(m.partition(), 0);
    assertThat(cluster.write(m.target(), m.partition(), m.targetEpoch(), key, "new"))
        .isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(m.source(), m.partition(), m.targetEpoch() - 1, key, "late"))
        .as("a write sent to the old owner after the move").isEqualTo(WriteOutcome.REJECTED);
    assertThat(cluster.read(key)).as("the late write was not applied").contains("new");
    assertThat(cluster.step(m)).isEqualTo(last(cluster.recordedSteps()));
  }

  @Test
  void aWriteWithAStaleEpochIsRejectedByTheNewOwner() {
    Migration m = firstMove();
    load(m, 10);
    assertThat(runToEnd(m)).isTrue();
    String key = cluster.keyIn(m.partition(), 1);
    assertThat(cluster.write(m.target(), m.partition(), m.targetEpoch() - 1, key, "stale"))
        .isEqualTo(WriteOutcome.REJECTED);
    assertThat(cluster.read(key)).contains("v1");
  }

  @Test
  void neverDoTwoOwnersAcceptWrites() throws Exception {
    Migration m = firstMove();
    load(m, 500);
    String key = cluster.keyIn(m.partition(), 0);
    List<String> acceptedBy = new ArrayList<>();
    // Set once the migration has ended (committed and activated, or rolled back): the prober
    // then goes on until that owner has accepted a probe, or the deadline passes and the
    // assertion below fails.
    AtomicReference<NodeId> finalOwner = new AtomicReference<>();
    long sourceEpoch = cluster.table().epoch();
    long deadline = System.nanoTime() + 2 * migrationTimeout().toNanos();
    CompletableFuture<Void> prober = CompletableFuture.runAsync(() -> {
      int i = 0;
      while (System.nanoTime() < deadline) {
        NodeId owner = finalOwner.get();
        if (owner != null && i >= 4 && accepted(acceptedBy, owner)) {
          break;
        }
        // alternate: the old owner with the old epoch, the new owner with the new epoch
        boolean toSource = i % 2 == 0;
        NodeId node = toSource ? m.source() : m.target();
        long epoch = toSource ? sourceEpoch : m.targetEpoch();
        WriteOutcome o = cluster.write(node, m.partition(), epoch, key, "probe" + i);
        if (o == WriteOutcome.ACCEPTED) {
          synchronized (acceptedBy) {
            acceptedBy.add(node.value() + "#" + i);
          }
        }
        i++;
      }
    });
    boolean committed = runToEnd(m);
    NodeId owner = committed ? m.target() : m.source();
    finalOwner.set(owner);
    prober.get(3 * migrationTimeout().toMillis(), TimeUnit.MILLISECONDS);
    synchronized (acceptedBy) {
      // acceptances must read source... then target...: never the source after the target
      int firstTarget = -1;
      for (int i = 0; i < acceptedBy.size(); i++) {
        boolean target = acceptedBy.get(i).startsWith(m.target().value() + "#");
        if (target && firstTarget < 0) {
          firstTarget = i;
        }
        assertThat(!target && firstTarget >= 0)
            .as(
                "the source accepted %s after the target " + "accepted %s: %s",
                acceptedBy.get(i), firstTarget < 0 ? "" : acceptedBy.get(firstTarget), acceptedBy)
            .isFalse();
      }
      assertThat(acceptedBy).as("the final owner %s accepted probes", owner)
          .anyMatch(s -> s.startsWith(owner.value() + "#"));
      String last = acceptedBy.get(acceptedBy.size() - 1);
      assertThat(cluster.read(key)).as("the last accepted probe %s", last)
          .contains("probe" + last.substring(last.indexOf('#') + 1));
    }
  }

  private static boolean accepted(List<String> acceptedBy, NodeId node) {
    synchronized (acceptedBy) {
      return acceptedBy.stream().anyMatch(s -> s.startsWith(node.value() + "#"));
    }
  }

  static Stream<Integer> stepIndexes() {
    return Stream.of(0, 1, 2, 3, 4);
  }

  @ParameterizedTest(name = "crash after step #{0}")
  @MethodSource("stepIndexes")
  void aMigrationInterruptedAfterAnyRecordedStepIsCompletedOrRolledBack(int stepIndex) {
    List<String> steps = cluster.recordedSteps();
    if (stepIndex >= steps.size()) {
      return; // the implementation records fewer steps
    }
    String step = steps.get(stepIndex);
    Migration m = firstMove();
    Map<String, String> acked = load(m, 300);
    cluster.crashAfter(m, step);
    boolean committed;
    PartitionAssignment table = cluster.table();
    if (table.epoch() >= m.targetEpoch()) {
      // the crash came after the commit: resume must finish the move
      CompletableFuture<Migration> resumed =
          cluster.executor().resume(m, table).toCompletableFuture();
      assertThat(resumed).as("resume after %s", step)
          .succeedsWithin(migrationTimeout()).isEqualTo(m);
      committed = cluster.table().primary(m.partition()).equals(m.target());
      activate("after resuming " + m); // a new leader activates after resuming
    } else {
      committed = finish(m, cluster.executor().resume(m, table).toCompletableFuture());
    }
    NodeId owner = committed ? m.target() : m.source();
    NodeId other = committed ? m.source() : m.target();
    assertThat(cluster.table().primary(m.partition())).as("owner after resume from %s", step)
        .isEqualTo(owner);
    assertReadable(acked, "after a crash after " + step + " and resume");
    long epoch = cluster.table().epoch();
    String key = cluster.keyIn(m.partition(), 2);
    assertThat(cluster.write(owner, m.partition(), epoch, key, "after"))
        .as("the owner %s accepts after resume from %s", owner, step)
        .isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(other, m.partition(), epoch, key, "wrong"))
        .as("the other node %s refuses after resume from %s", other, step)
        .isNotEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.read(key)).contains("after");
  }

  @Test
  void migrateStopsAtReadyToCommitAndActivateMakesTheTargetServe() throws Exception {
    Migration m = firstMove();
    Map<String, String> acked = load(m, 50);
    long sourceEpoch = cluster.table().epoch();
    cluster.record(m);
    assertThat(cluster.executor().migrate(m).toCompletableFuture())
        .succeedsWithin(migrationTimeout()).isEqualTo(m);
    String key = cluster.keyIn(m.partition(), 0);
    assertThat(cluster.write(m.target(), m.partition(), m.targetEpoch(), key, "early"))
        .as("the target before the commit").isNotEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(m.source(), m.partition(), sourceEpoch, key, "fenced"))
        .as("the fenced source before the commit").isNotEqualTo(WriteOutcome.ACCEPTED);
    cluster.commit(m);
    activate("after committing " + m);
    assertThat(cluster.write(m.target(), m.partition(), m.targetEpoch(), key, "served"))
        .as("the target after activate").isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(m.source(), m.partition(), sourceEpoch, key, "late"))
        .as("the source after activate").isEqualTo(WriteOutcome.REJECTED);
    assertThat(cluster.read(key)).contains("served");
    acked.remove(key);
    assertReadable(acked, "after the move");
  }

  @Test
  void activateIsIdempotent() {
    Migration m = firstMove();
    Map<String, String> acked = load(m, 50);
    assertThat(runToEnd(m)).isTrue();
    activate("a second time");
    activate("a third time");
    assertThat(cluster.table().primary(m.partition())).isEqualTo(m.target());
    assertReadable(acked, "after activating again");
    String key = cluster.keyIn(m.partition(), 0);
    assertThat(cluster.write(m.target(), m.partition(), cluster.table().epoch(), key, "again"))
        .isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(m.source(), m.partition(), m.targetEpoch() - 1, key, "late"))
        .isEqualTo(WriteOutcome.REJECTED);
    assertThat(cluster.step(m)).isEqualTo(last(cluster.recordedSteps()));
  }

  @Test
  void aCrashBetweenCommitAndActivateIsFinishedByTheNextLeadersActivate() {
    Migration m = firstMove();
    Map<String, String> acked = load(m, 100);
    cluster.crashAfterCommit(m);
    assertThat(cluster.table().primary(m.partition())).isEqualTo(m.target());
    activate("by the next leader"); // nothing is pending any more: activate alone finishes it
    assertReadable(acked, "after a crash between commit and activate");
    String key = cluster.keyIn(m.partition(), 0);
    long epoch = cluster.table().epoch();
    assertThat(cluster.write(m.target(), m.partition(), epoch, key, "after"))
        .isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(m.source(), m.partition(), epoch, key, "wrong"))
        .isNotEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.read(key)).contains("after");
    assertThat(cluster.step(m)).isEqualTo(last(cluster.recordedSteps()));
  }

  @Test
  void resumeWithACommittedTableFinishesTheMove() {
    Migration m = firstMove();
    Map<String, String> acked = load(m, 100);
    cluster.crashAfterCommit(m);
    PartitionAssignment table = cluster.table();
    assertThat(cluster.executor().resume(m, table).toCompletableFuture())
        .as("resume with the table that commits it").succeedsWithin(migrationTimeout())
        .isEqualTo(m);
    String key = cluster.keyIn(m.partition(), 0);
    assertThat(cluster.write(m.target(), m.partition(), table.epoch(), key, "after"))
        .as("the target serves once resume finished").isEqualTo(WriteOutcome.ACCEPTED);
    assertThat(cluster.write(m.source(), m.partition(), table.epoch(), key, "wrong"))
        .isNotEqualTo(WriteOutcome.ACCEPTED);
    acked.remove(key);
    assertReadable(acked, "after resume with the committed table");
  }

  @Test
  void acknowledgedWritesDuringAMoveSurvive() throws Exception {
    Migration m = firstMove();
    Map<String, String> acked = new java.util.concurrent.ConcurrentHashMap<>(load(m, 100));
    AtomicBoolean done = new AtomicBoolean();
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      for (int i = 100; !done.get() || i < 150; i++) {
        String key = cluster.keyIn(m.partition(), i);
        long epoch = cluster.table().epoch();
        NodeId owner = cluster.table().primary(m.partition());
        if (cluster.write(owner, m.partition(), epoch, key, "w" + i) == WriteOutcome.ACCEPTED) {
          acked.put(key, "w" + i);
        }
      }
    });
    boolean committed = runToEnd(m);
    done.set(true);
    writer.get(migrationTimeout().toMillis(), TimeUnit.MILLISECONDS);
    assertThat(committed).isTrue();
    assertReadable(acked, "written during the move");
  }

  private static String last(List<String> list) {
    return list.get(list.size() - 1);
  }
}
