package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The coordinator asks a migration executor only for what it is able to do: an ability it lacks
 * is work left undone (or, for a split, refused: {@link SplitPlanTest}), never a call that
 * throws. The abilities in use are tested where their work is: {@link RejoinPlanTest} (lost
 * replicas), {@link SuspectedBackupsTest} (removal and restore), {@link RebalanceWavesTest}
 * (whole replica lists), {@link SplitPlanTest} (splits).
 */
class ExecutorAbilitiesTest {

  private static ClusterCoordinator coordinator(MetadataStore store, MigrationExecutor e) {
    Coordinators.Builder b = Coordinators.builder().store(store)
        .strategy("test-table", PartitionerConfig.of("partitions", 12, "replicas", 2))
        .clock(new ManualClock()).maxConcurrentMigrations(4);
    return (e == null ? b : b.migrationExecutor(e)).build();
  }

  /** Members a and b with a table, then c joins: primaries and backups both have to change. */
  private static ClusterCoordinator grown(MetadataStore store, MigrationExecutor e) {
    ClusterCoordinator c = coordinator(store, e);
    c.join(Member.of("a"));
    c.join(Member.of("b"));
    c.rebalance();
    c.join(Member.of("c"));
    return c;
  }

  @Test
  void anExecutorWithNoAbilityGetsPrimaryMovesOnlyAndReviewsLeaveItAlone() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = grown(store, e)) {
      RebalancePlan plan = c.rebalance();
      assertThat(e.migrated()).isNotEmpty().allSatisfy(m -> {
        assertThat(m.movesPrimary()).isTrue();
        assertThat(m.sourceReplicas()).hasSize(1);
        assertThat(m.targetReplicas()).hasSize(1);
      });
      PartitionAssignment table = c.table().orElseThrow();
      assertThat(table.replicaTable()).as("backups committed without the executor")
          .isEqualTo(plan.proposed().replicaTable());
      int activations = e.activated().size();
      assertThat(c.reviewReplicas()).isEmpty();
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(table.epoch());
      assertThat(e.activated()).hasSize(activations);
    }
  }

  @Test
  void anExecutorThatMovesReplicasGetsBackupChangesButNoReview() {
    WholeListsOnly e = new WholeListsOnly();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = grown(store, e)) {
      List<Migration> planned = c.plan().migrations();
      assertThat(planned).anySatisfy(m -> assertThat(m.movesPrimary()).isFalse());
      c.rebalance();
      assertThat(e.recording.migrated()).containsExactlyElementsOf(planned);
      long epoch = c.table().orElseThrow().epoch();
      assertThat(c.reviewReplicas()).isEmpty();
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(epoch);
    }
  }

  @Test
  void anExecutorThatOnlyRestoresIsAskedToRestoreAndNothingIsTakenOut() {
    RestoresOnly e = new RestoresOnly();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = grown(store, e)) {
      c.rebalance();
      long epoch = c.table().orElseThrow().epoch();
      assertThat(c.reviewReplicas()).isEmpty();
      assertThat(e.restores).hasValue(1);
      e.notWhole.set(0);
      c.reviewReplicas();
      assertThat(e.restores).hasValue(2);
      c.reviewReplicas();
      assertThat(e.restores).as("every replica whole at this epoch: not asked again")
          .hasValue(2);
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(epoch);
    }
  }

  @Test
  void withoutAnExecutorAReviewDoesNothing() {
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = grown(store, null)) {
      c.rebalance();
      long epoch = c.table().orElseThrow().epoch();
      assertThat(c.reviewReplicas()).isEmpty();
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(epoch);
    }
  }

  /** Moves whole replica lists, and nothing more. */
  private static class WholeListsOnly implements MigrationExecutor.MovesReplicas {
    final RecordingMigrationExecutor recording = new RecordingMigrationExecutor();

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
  }

  /** Moves whole replica lists and restores replicas, but takes none out. */
  private static final class RestoresOnly extends WholeListsOnly
      implements MigrationExecutor.RestoresReplicas {
    final AtomicInteger restores = new AtomicInteger();
    final AtomicInteger notWhole = new AtomicInteger(1);

    @Override
    public int restoreReplicas(PartitionAssignment committed) {
      restores.incrementAndGet();
      return notWhole.get();
    }
  }
}
