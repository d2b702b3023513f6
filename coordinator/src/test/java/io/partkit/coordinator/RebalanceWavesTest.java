package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionerConfig;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a rebalance is cut into waves, and what happens when migrations roll back. */
class RebalanceWavesTest {

  private static ClusterCoordinator coordinator(MetadataStore store, RecordingMigrationExecutor e,
      int k, int replicas) {
    return Coordinators.builder().store(store)
        .strategy("test-table", PartitionerConfig.of("partitions", 12, "replicas", replicas))
        .clock(new ManualClock()).migrationExecutor(e).maxConcurrentMigrations(k).build();
  }

  @Test
  void wavesOfAtMostKEachCommitOneEpoch() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e, 2, 1)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.rebalance(); // epoch 1: 6 + 6
      c.join(Member.of("c"));
      RebalancePlan plan = c.rebalance(); // 4 partitions move to c: 2 waves of 2
      assertThat(plan.migrations()).extracting(Migration::targetEpoch)
          .containsExactly(2L, 2L, 3L, 3L);
      assertThat(plan.proposed().epoch()).isEqualTo(3);
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(3);
      assertThat(e.maxInFlight()).isLessThanOrEqualTo(2);
    }
  }

  @Test
  void aChangeOfReplicationFactorMovesEverythingInOneEpoch() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e, 2, 2)) {
      c.join(Member.of("a"));
      c.rebalance(); // one member: one replica per partition
      c.join(Member.of("b"));
      RebalancePlan plan = c.rebalance();
      assertThat(plan.migrations()).isNotEmpty()
          .allSatisfy(m -> assertThat(m.targetEpoch()).isEqualTo(2));
      assertThat(c.table().orElseThrow().replicationFactor()).isEqualTo(2);
      assertThat(e.maxInFlight()).isLessThanOrEqualTo(2);
    }
  }

  @Test
  void rolledBackMigrationsKeepTheirOwnerAndAreReported() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor()
        .rollBackWhen(m -> m.partition() % 2 == 0);
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e, 8, 1)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.rebalance();
      c.join(Member.of("c"));
      List<Migration> planned = c.plan().migrations();
      var before = c.table().orElseThrow();
      assertThatThrownBy(c::rebalance).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("incomplete").hasMessageContaining("rolled back");
      var after = c.table().orElseThrow();
      assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
      for (Migration m : planned) {
        NodeId expected = m.partition() % 2 == 0 ? m.source() : m.target();
        assertThat(after.primary(m.partition())).as("partition %d", m.partition())
            .isEqualTo(expected);
      }
      assertThat(store.read().pending()).isEmpty();
    }
  }

  @Test
  void anExecutorThatMovesReplicasGetsEveryChangedReplicaListAndOnlyCompletedOnesCommit() {
    // partitions whose backups change (their primary stays) are migrations too; the odd ones
    // fail, and their rows stay as they were
    RecordingMigrationExecutor e = new RecordingMigrationExecutor.WholeReplicaLists()
        .rollBackWhen(m -> m.partition() % 2 == 1);
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e, 12, 2)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.rebalance();
      c.join(Member.of("c"));
      var before = c.table().orElseThrow();
      List<Migration> planned = c.plan().migrations();
      assertThat(planned).anySatisfy(m -> assertThat(m.movesPrimary()).isFalse());
      for (Migration m : planned) {
        assertThat(m.sourceReplicas()).isEqualTo(before.replicas(m.partition()));
      }
      var proposed = c.plan().proposed();
      assertThatThrownBy(c::rebalance).hasMessageContaining("rolled back");
      var after = c.table().orElseThrow();
      java.util.Set<Integer> moved = new java.util.HashSet<>();
      planned.forEach(m -> moved.add(m.partition()));
      for (int p = 0; p < after.partitionCount(); p++) {
        var expected = moved.contains(p) && p % 2 == 1 ? before.replicas(p) : proposed.replicas(p);
        assertThat(after.replicas(p)).as("partition %d", p).isEqualTo(expected);
      }
    }
  }
}
