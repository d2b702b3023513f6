package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The plan that joins again replicas that lost acknowledged records: a survivor leads, the
 * node is a backup after it, each partition changes its row (a migration must), in waves.
 */
class RejoinPlanTest {

  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final NodeId C = NodeId.of("c");
  private static final MembershipView VIEW = MembershipView.of(Member.of("a"), Member.of("b"),
      Member.of("c"));

  @Test
  void eachPartitionTheNodeLostGoesToASurvivorWithTheNodeLastInWavesFromTheNextEpoch() {
    PartitionAssignment current = PartitionAssignment.of("t", 5, 1, HashSlots.of(4),
        List.of(List.of(A, B, C), List.of(B, A, C), List.of(B, C, A), List.of(C, B, A)));
    RebalancePlan plan = RebalancePlanner.rejoin(current,
        Map.of(0, Set.of(A), 1, Set.of(A), 2, Set.of(A)), 2, VIEW);
    assertThat(plan.migrations()).extracting(Migration::targetReplicas).containsExactly(
        List.of(B, C, A), // led by the node: the next replica leads
        List.of(B, C, A), // a backup: moved last
        List.of(C, B, A)); // last already: the survivors are rotated so that the row changes
    assertThat(plan.migrations()).extracting(Migration::targetEpoch).containsExactly(6L, 6L, 7L);
    assertThat(plan.proposed().epoch()).isEqualTo(7);
    assertThat(plan.proposed().replicas(3)).as("a partition not lost").containsExactly(C, B, A);
  }

  @Test
  void aPartitionWithNoOtherCopyOrNoOtherOrderIsLeftAlone() {
    PartitionAssignment current = PartitionAssignment.of("t", 5, 1, HashSlots.of(2),
        List.of(List.of(A, B), List.of(B, A)));
    RebalancePlan plan = RebalancePlanner.rejoin(current,
        Map.of(0, Set.of(A, B), 1, Set.of(A)), 2, VIEW);
    assertThat(plan.migrations()).isEmpty();
    assertThat(plan.isNoOp()).isTrue();
  }

  @Test
  void aRebalanceRejoinsWhatTheExecutorReportsFirstUnderTheCompareAndSet() {
    RecordingMigrationExecutor.WholeReplicaLists e =
        new RecordingMigrationExecutor.WholeReplicaLists();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = Coordinators.builder().store(store)
            .strategy("test-table", PartitionerConfig.of("partitions", 6, "replicas", 3))
            .clock(new ManualClock()).migrationExecutor(e).maxConcurrentMigrations(2).build()) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.join(Member.of("c"));
      PartitionAssignment before = c.rebalance().proposed();
      AtomicInteger asked = new AtomicInteger();
      e.reportingLost((table, members) -> {
        asked.incrementAndGet();
        assertThat(members).containsExactlyInAnyOrder(A, B, C);
        Map<Integer, Set<NodeId>> lost = new HashMap<>();
        if (table.epoch() == before.epoch()) { // a lost its copies; rejoined after this epoch
          for (int p = 0; p < table.partitionCount(); p++) {
            lost.put(p, Set.of(A));
          }
        }
        return lost;
      });
      assertThat(e.migrated()).isEmpty();
      c.rebalance();
      assertThat(asked).as("asked once per rebalance").hasValue(1);
      List<Migration> rejoined = e.migrated().subList(0, 6);
      assertThat(rejoined).extracting(Migration::targetEpoch)
          .containsExactly(2L, 2L, 3L, 3L, 4L, 4L); // 3 waves of 2, from the next epoch
      for (Migration m : rejoined) {
        assertThat(m.sourceReplicas()).isEqualTo(before.replicas(m.partition()));
        assertThat(m.targetReplicas()).as("partition %d", m.partition()).endsWith(A)
            .containsExactlyInAnyOrder(A, B, C);
      }
      // then the plan for the membership, from the table the rejoin committed: here it gives
      // a, caught up by now, its share of primaries back
      assertThat(c.table().orElseThrow().epoch()).isGreaterThanOrEqualTo(4);
      assertThat(c.rebalance().isNoOp()).isTrue();
    }
  }

  @Test
  void aFailingReportDoesNotStopARebalance() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor.WholeReplicaLists()
        .reportingLost((table, members) -> {
          throw new IllegalStateException("the nodes cannot be reached");
        });
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = Coordinators.builder().store(store)
            .strategy("test-table", PartitionerConfig.of("partitions", 6, "replicas", 2))
            .clock(new ManualClock()).migrationExecutor(e).build()) {
      c.join(Member.of("a"));
      c.rebalance();
      c.join(Member.of("b"));
      assertThat(c.rebalance().isNoOp()).isFalse();
      assertThat(c.table().orElseThrow().replicas(0)).hasSize(2);
    }
  }
}
