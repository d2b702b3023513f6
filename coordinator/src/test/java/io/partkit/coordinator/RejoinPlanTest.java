package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
}
