package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Reconfiguring on suspicion: which reports the coordinator acts on, and that it takes a backup
 * out under the table's compare-and-set at the next epoch, rows unchanged, before the executor
 * touches a node; with nothing suspected, it has the executor join removed replicas again.
 */
class SuspectedBackupsTest {

  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final NodeId C = NodeId.of("c");
  private static final NodeId X = NodeId.of("x");

  @Test
  void onlyBackupsOfTheCommittedRowAreTakenOutNeverThePrimary() {
    PartitionAssignment table = PartitionAssignment.of("t", 5, 1, HashSlots.of(3),
        List.of(List.of(A, B, C), List.of(B, C, A), List.of(C, A, B)));
    Map<Integer, Set<NodeId>> removable = SuspectedBackups.removable(table, Map.of(
        0, Set.of(C, X), // X holds no replica of it
        1, Set.of(B), // its own primary: never
        2, Set.of(A, B),
        7, Set.of(A))); // no such partition
    assertThat(removable).containsOnlyKeys(0, 2);
    assertThat(removable.get(0)).containsExactly(C);
    assertThat(removable.get(2)).containsExactlyInAnyOrder(A, B);
  }

  @Test
  void aReviewCommitsTheNextEpochFirstThenTakesTheBackupOutThenRestores() {
    Suspecting e = new Suspecting();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = threeMembers(store, e)) {
      PartitionAssignment before = c.rebalance().proposed();
      NodeId primary = before.replicas(1).get(0);
      NodeId backup = before.replicas(1).get(2);
      e.report = Map.of(1, Set.of(backup, primary));

      Map<Integer, Set<NodeId>> removed = c.reviewReplicas();

      assertThat(removed).containsOnlyKeys(1);
      assertThat(removed.get(1)).containsExactly(backup);
      PartitionAssignment after = c.table().orElseThrow();
      assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
      assertThat(after.samePlacementAs(before)).as("the rows stay: the set to return to").isTrue();
      assertThat(e.removals).hasSize(1);
      assertThat(e.removals.get(0).epochCommittedFirst()).as("committed before the executor acts")
          .isEqualTo(after.epoch());
      assertThat(e.removals.get(0).table().epoch()).isEqualTo(after.epoch());
      assertThat(e.removals.get(0).partition()).isEqualTo(1);
      assertThat(e.restores).hasValue(0);

      e.report = Map.of();
      assertThat(c.reviewReplicas()).isEmpty();
      assertThat(c.table().orElseThrow().epoch()).as("nothing to take out: no new epoch")
          .isEqualTo(after.epoch());
      assertThat(e.restores).as("removed replicas are joined again").hasValue(1);
    }
  }

  @Test
  void idleReviewsSkipTheRestoreOnceEveryReplicaIsWholeUntilTheEpochChanges() {
    Suspecting e = new Suspecting();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = threeMembers(store, e)) {
      PartitionAssignment before = c.rebalance().proposed();

      e.notWhole = 1;
      c.reviewReplicas();
      c.reviewReplicas();
      assertThat(e.restores).as("a replica not whole yet: asked at every review").hasValue(2);
      e.notWhole = 0;
      c.reviewReplicas();
      assertThat(e.restores).hasValue(3);
      c.reviewReplicas();
      c.reviewReplicas();
      assertThat(e.restores).as("every replica whole at this epoch: no more rounds").hasValue(3);

      e.report = Map.of(2, Set.of(before.replicas(2).get(1)));
      assertThat(c.reviewReplicas()).containsOnlyKeys(2);
      assertThat(e.restores).as("a removal is not a restore round").hasValue(3);
      e.report = Map.of();
      c.reviewReplicas();
      assertThat(e.restores).as("the removal's epoch: asked again").hasValue(4);
    }
  }

  /**
   * The review calls the nodes without the coordinator's lock: each node call of the executor
   * waits for a membership read (which takes the lock) on another thread to complete. Were the
   * lock held across the call, that read could not complete and the wait would time out.
   */
  @Test
  void aReviewCallsTheNodesWithoutHoldingTheCoordinatorsLock() throws Exception {
    Suspecting e = new Suspecting();
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = threeMembers(store, e)) {
      PartitionAssignment before = c.rebalance().proposed();
      e.duringNodeCall = () -> {
        try {
          // generous: on a busy machine the other thread may wait long to be scheduled
          other.submit(c::membership).get(60, TimeUnit.SECONDS);
        } catch (TimeoutException t) {
          throw new AssertionError("the coordinator's lock was held during a node call", t);
        } catch (InterruptedException | ExecutionException x) {
          throw new AssertionError(x);
        }
        e.callsWithoutLock.incrementAndGet();
      };
      e.report = Map.of(1, Set.of(before.replicas(1).get(2)));

      assertThat(c.reviewReplicas()).containsOnlyKeys(1);
      assertThat(e.callsWithoutLock).as("the SUSPECTS round and the removal").hasValue(2);
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(before.epoch() + 1);

      e.report = Map.of();
      assertThat(c.reviewReplicas()).isEmpty();
      assertThat(e.callsWithoutLock).as("then the SUSPECTS round and the restore").hasValue(4);
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void reportsAboutATableThatChangedMeanwhileCommitNothing() {
    Suspecting e = new Suspecting();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = threeMembers(store, e)) {
      PartitionAssignment before = c.rebalance().proposed();
      // while the primaries are asked, another coordinator commits the next epoch
      e.duringNodeCall = () -> {
        PartitionAssignment t = store.read().table().orElseThrow();
        assertThat(store.compareAndSetTable(t.epoch(), t.withEpoch(t.epoch() + 1))).isTrue();
        e.duringNodeCall = () -> {};
      };
      e.report = Map.of(1, Set.of(before.replicas(1).get(2)));

      assertThat(c.reviewReplicas()).as("the reports were about the older table").isEmpty();
      assertThat(c.table().orElseThrow().epoch()).as("only the other coordinator's commit")
          .isEqualTo(before.epoch() + 1);
      assertThat(e.removals).isEmpty();
    }
  }

  /** A coordinator on {@code store} with {@code e}, and members a, b and c. */
  private static ClusterCoordinator threeMembers(MetadataStore store, Suspecting e) {
    e.store = store;
    ClusterCoordinator c = Coordinators.builder().store(store)
        .strategy("test-table", PartitionerConfig.of("partitions", 4, "replicas", 3))
        .clock(new ManualClock()).migrationExecutor(e).maxConcurrentMigrations(2).build();
    c.join(Member.of("a"));
    c.join(Member.of("b"));
    c.join(Member.of("c"));
    return c;
  }

  /** Reports {@link #report} as suspected and records what it is asked to do. */
  private static final class Suspecting implements MigrationExecutor.RemovesSuspectedReplicas {
    private final RecordingMigrationExecutor recording = new RecordingMigrationExecutor();
    private final List<Removal> removals = new ArrayList<>();
    private final AtomicInteger restores = new AtomicInteger();
    private volatile Map<Integer, Set<NodeId>> report = Map.of();
    private volatile MetadataStore store;
    /** Run at the start of every call that would reach the nodes. */
    private volatile Runnable duringNodeCall = () -> {};
    /** What {@link #restoreReplicas} answers: replicas not seen whole. */
    private volatile int notWhole = 1;
    private final AtomicInteger callsWithoutLock = new AtomicInteger();

    record Removal(PartitionAssignment table, int partition, Set<NodeId> removed,
        long epochCommittedFirst) {}

    @Override
    public CompletionStage<Migration> migrate(Migration migration) {
      return recording.migrate(migration);
    }

    @Override
    public CompletionStage<Void> activate(PartitionAssignment committed) {
      return recording.activate(committed);
    }

    @Override
    public CompletionStage<Migration> resume(Migration migration,
        PartitionAssignment committed) {
      return recording.resume(migration, committed);
    }

    @Override
    public Map<Integer, Set<NodeId>> suspectedReplicas(PartitionAssignment committed,
        Set<NodeId> members) {
      assertThat(members).containsExactlyInAnyOrder(A, B, C);
      duringNodeCall.run();
      return report;
    }

    @Override
    public void removeReplicas(PartitionAssignment committed, int partition,
        Set<NodeId> removed) {
      duringNodeCall.run();
      removals.add(new Removal(committed, partition, removed, store.read().epoch()));
    }

    @Override
    public int restoreReplicas(PartitionAssignment committed) {
      duringNodeCall.run();
      restores.incrementAndGet();
      return notWhole;
    }
  }
}
