package io.partkit.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Balance and movement on small tables whose figures can be checked by hand. */
class StatisticsTest {

  /** A table over {@code scheme}; each string lists a partition's replicas, e.g. "ab". */
  private static PartitionAssignment table(PartitionScheme scheme, String... partitions) {
    List<List<NodeId>> replicas = new ArrayList<>();
    for (String p : partitions) {
      List<NodeId> list = new ArrayList<>();
      for (char c : p.toCharArray()) {
        list.add(NodeId.of(String.valueOf(c)));
      }
      replicas.add(list);
    }
    return PartitionAssignment.of("hand", 1, 0, scheme, replicas);
  }

  private static PartitionAssignment slots(String... partitions) {
    return table(HashSlots.of(partitions.length), partitions);
  }

  @Test
  void balanceOfAHandBuiltTable() {
    PlacementStatistics s = PlacementStatistics.of(slots("a", "a", "a", "b"));
    assertThat(s.maxPrimaryPartitions()).isEqualTo(3);
    assertThat(s.minPrimaryPartitions()).isEqualTo(1);
    assertThat(s.primaryPartitionsMaxOverAvg()).isCloseTo(1.5, offset(1e-12));
    assertThat(s.primaryShareMaxOverAvg()).isCloseTo(1.5, offset(1e-9));
    assertThat(s.primaryShareStdDev()).isCloseTo(0.5, offset(1e-9));
    assertThat(s.loads().get(0).primaryShare()).isCloseTo(0.75, offset(1e-9));
  }

  @Test
  void membersHoldingNothingCountAndWeightsNormalize() {
    PartitionAssignment t = slots("a", "a", "a", "b");
    PlacementStatistics withIdle = PlacementStatistics.of(t,
        MembershipView.of(Member.of("a"), Member.of("b"), Member.of("c")));
    assertThat(withIdle.primaryShareMaxOverAvg()).isCloseTo(2.25, offset(1e-9));
    assertThat(withIdle.loads()).extracting(NodeLoad::primaryPartitions).containsExactly(3, 1, 0);
    PlacementStatistics weighted = PlacementStatistics.of(t,
        MembershipView.of(Member.weighted("a", 3), Member.of("b")));
    assertThat(weighted.primaryShareMaxOverAvg()).isCloseTo(1.0, offset(1e-9));
    assertThat(weighted.primaryShareStdDev()).isCloseTo(0.0, offset(1e-9));
    assertThatThrownBy(() -> PlacementStatistics.of(t, MembershipView.of(Member.of("a"))))
        .hasMessageContaining("places data on b");
  }

  @Test
  void replicaSharesSumToTheReplicationFactor() {
    PlacementStatistics s = PlacementStatistics.of(slots("ab", "bc", "ca", "ab"));
    assertThat(s.loads().stream().mapToDouble(NodeLoad::replicaShare).sum())
        .isCloseTo(2.0, offset(1e-9));
    assertThat(s.loads()).extracting(NodeLoad::replicaPartitions).containsExactly(3, 3, 2);
  }

  @Test
  void bestBalanceIsCeilOverAverage() {
    assertThat(PlacementStatistics.bestMaxOverAvg(1024, 100)).isCloseTo(11 / 10.24, offset(1e-12));
    assertThat(PlacementStatistics.bestMaxOverAvg(271, 271)).isEqualTo(1.0);
    assertThatThrownBy(() -> PlacementStatistics.bestMaxOverAvg(0, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void nothingMovesBetweenEqualPlacementsEvenAcrossPartitionCounts() {
    Movement same = Movement.between(slots("a", "b", "c", "a"), slots("a", "b", "c", "a"));
    assertThat(same.primaryMovedShare()).isZero();
    assertThat(same.optimalShare()).isZero();
    assertThat(same.primaryMovedOverOptimal()).isNaN();
    // 8 slots nest exactly inside 4: the same owners per half-slot is the same placement
    Movement refined = Movement.between(slots("a", "b", "c", "a"),
        slots("a", "a", "b", "b", "c", "c", "a", "a"));
    assertThat(refined.primaryMovedShare()).isZero();
    assertThat(refined.replicaMovedShare()).isZero();
  }

  @Test
  void aJoinThatTakesOnlyFromOthersIsChurnFree() {
    Movement m = Movement.between(slots("a", "b", "a", "b"), slots("a", "b", "c", "b"));
    assertThat(m.primaryMovedShare()).isCloseTo(0.25, offset(1e-12));
    assertThat(m.optimalShare()).isCloseTo(1 / 3.0, offset(1e-12));
    assertThat(m.primaryMovedBetweenStayingShare()).isZero();
    assertThat(m.joined()).containsExactly(NodeId.of("c"));
    assertThat(m.left()).isEmpty();
    assertThat(m.primaryMovedOverOptimal()).isCloseTo(0.75, offset(1e-12));
  }

  @Test
  void swapsBetweenStayingNodesAreChurn() {
    Movement m = Movement.between(slots("a", "b", "a", "b"), slots("b", "a", "a", "b"));
    assertThat(m.primaryMovedShare()).isCloseTo(0.5, offset(1e-12));
    assertThat(m.primaryMovedBetweenStayingShare()).isCloseTo(0.5, offset(1e-12));
    assertThat(m.optimalShare()).isZero();
  }

  @Test
  void aLeaveMovesTheLeaversShare() {
    Movement m = Movement.between(slots("a", "b", "c", "a"), slots("a", "b", "a", "a"));
    assertThat(m.primaryMovedShare()).isCloseTo(0.25, offset(1e-12));
    assertThat(m.optimalShare()).isCloseTo(1 / 3.0, offset(1e-12));
    assertThat(m.left()).containsExactly(NodeId.of("c"));
    assertThat(m.primaryMovedBetweenStayingShare()).isZero();
  }

  @Test
  void rangesAreComparedAcrossSchemes() {
    PartitionAssignment oneToken = table(TokenRanges.of(0L), "a");
    PartitionAssignment halves = slots("a", "b");
    Movement m = Movement.between(oneToken, halves);
    assertThat(m.primaryMovedShare()).isCloseTo(0.5, offset(1e-12));
    assertThat(m.joined()).containsExactly(NodeId.of("b"));
  }

  @Test
  void replicaMovesCountNewCopies() {
    Movement m = Movement.between(slots("ab", "ba"), slots("ac", "ba"));
    assertThat(m.primaryMovedShare()).isZero();
    // one of the four copies is new (c on the first half)
    assertThat(m.replicaMovedShare()).isCloseTo(0.25, offset(1e-12));
    assertThat(m.replicaCopiesToStayingShare()).isZero();
    Movement weighted = Movement.between(slots("ab", "ba"),
        MembershipView.of(Member.of("a"), Member.of("b")), slots("ac", "ba"),
        MembershipView.of(Member.of("a"), Member.of("b"), Member.weighted("c", 2)));
    assertThat(weighted.optimalShare()).isCloseTo(0.5, offset(1e-12));
  }
}
