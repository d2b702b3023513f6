package io.partkit.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
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

  private static byte[] key(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void rangeTablesAreComparedRangeByRange() {
    PartitionAssignment two = table(KeyRanges.even(2), "ab", "ba");
    // a metadata-only split of the upper half: both halves stay where they were
    KeyRanges split = KeyRanges.even(2).withSplit(1, new byte[] {(byte) 0xc0});
    Movement none = Movement.between(two, table(split, "ab", "ba", "ba"));
    assertThat(none.primaryMovedShare()).isZero();
    assertThat(none.replicaMovedShare()).isZero();
    // then one half (a quarter of the line) moves to c, its backup staying
    Movement half = Movement.between(two, table(split, "ab", "ba", "ca"));
    assertThat(half.primaryMovedShare()).isCloseTo(0.25, offset(1e-12));
    assertThat(half.replicaMovedShare()).isCloseTo(0.125, offset(1e-12));
    assertThat(half.primaryMovedBetweenStayingShare()).isZero();
    assertThat(half.joined()).containsExactly(NodeId.of("c"));
    // with split keys that share 8 bytes, the partition between them is empty on the line
    KeyRanges close = KeyRanges.of(key("prefix-1a"), key("prefix-1b"));
    Movement shared = Movement.between(table(close, "a", "b", "a"), table(close, "a", "a", "a"));
    assertThat(shared.primaryMovedShare()).isZero();
  }

  @Test
  void rangeAgainstHashIsTheExpectationForIndependentPositions() {
    // all of a's keys stay on a: nothing moves, whatever the schemes
    Movement same = Movement.between(table(KeyRanges.even(3), "a", "a", "a"), slots("a", "a"));
    assertThat(same.primaryMovedShare()).isZero();
    // ranges a|b against slots a|b: half of a's range-half hashes into b's slot, and back
    Movement halves = Movement.between(table(KeyRanges.even(2), "a", "b"), slots("a", "b"));
    assertThat(halves.primaryMovedShare()).isCloseTo(0.5, offset(1e-12));
    assertThat(halves.primaryMovedBetweenStayingShare()).isCloseTo(0.5, offset(1e-12));
    // slots a|a|a|b to ranges c|b: keys on a (3/4) all move; b keeps 1/4 * 1/2 of its keys and
    // sends the rest to c, which joined: no churn between nodes that stayed
    Movement cross = Movement.between(slots("a", "a", "a", "b"),
        table(KeyRanges.even(2), "c", "b"));
    assertThat(cross.primaryMovedShare()).isCloseTo(1 - 0.125, offset(1e-12));
    assertThat(cross.primaryMovedBetweenStayingShare()).isCloseTo(0, offset(1e-12));
    assertThat(cross.joined()).containsExactly(NodeId.of("c"));
    assertThat(cross.left()).containsExactly(NodeId.of("a"));
    // replicas: a and b held every key before, so only c's copies are new: it holds half of
    // the keys, a quarter of all copies
    Movement copies = Movement.between(slots("ab", "ba"), table(KeyRanges.even(2), "ab", "bc"));
    assertThat(copies.replicaMovedShare()).isCloseTo(0.5 * 1.0 / 2, offset(1e-12));
  }

  @Test
  void placementStatisticsOfARangeTableUseTheLineShares() {
    KeyRanges r = KeyRanges.even(4).withSplit(3, new byte[] {(byte) 0xe0});
    PlacementStatistics s = PlacementStatistics.of(table(r, "a", "a", "b", "b", "c"));
    assertThat(s.loads()).extracting(NodeLoad::primaryShare)
        .containsExactly(0.5, 0.375, 0.125);
  }
}
