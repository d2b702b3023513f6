package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TargetPlacementTest {

  private static TreeMap<Integer, List<Integer>> members(Object... pairs) {
    TreeMap<Integer, List<Integer>> m = new TreeMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      @SuppressWarnings("unchecked")
      List<Integer> nodes = (List<Integer>) pairs[i + 1];
      m.put((Integer) pairs[i], nodes);
    }
    return m;
  }

  @Test
  void eligibleTargetsAreTheAnswerExactly() {
    TargetPlacement t = TargetPlacement.of(Map.of(0, List.of(3, 1, 2), 1, List.of(2, 0, 4)));
    assertThat(t.place(members(0, List.of(0, 1, 2), 1, List.of(1, 2, 3)),
        List.of(0, 1, 2, 3, 4), 3))
        .isEqualTo(members(0, List.of(3, 1, 2), 1, List.of(2, 0, 4)));
  }

  @Test
  void aNodeThatMayNotHoldCopiesIsStoodInForByACopyFirstThenTheLowestEligible() {
    TargetPlacement t = TargetPlacement.of(Map.of(0, List.of(3, 1, 2), 1, List.of(3, 4, 0)));
    // 3 is down: partition 0 keeps its copy on 0, partition 1 has none spare and takes 1
    assertThat(t.place(members(0, List.of(0, 1, 2), 1, List.of(3, 4, 0)),
        List.of(0, 1, 2, 4), 3))
        .isEqualTo(members(0, List.of(1, 2, 0), 1, List.of(4, 0, 1)));
  }

  @Test
  void aNodeNeitherEligibleNorLeavingKeepsItsPlaceFromSparesButNotFromCopiesThePartitionHas() {
    TargetPlacement t = TargetPlacement.of(Map.of(0, List.of(3, 1, 2), 1, List.of(3, 4, 0),
        2, List.of(3)));
    TreeMap<Integer, List<Integer>> now =
        members(0, List.of(0, 1, 2), 1, List.of(3, 4, 0), 2, List.of(3));
    // 3 is down (or forgotten), not leaving: partition 0 keeps its copy on 0 in its place,
    // partition 1 has no copy to keep and waits with two, partition 2 (a row of one) takes the
    // two copies its row lacks besides 3's place
    assertThat(t.place(now, List.of(0, 1, 2, 4), Set.of(), 3))
        .isEqualTo(members(0, List.of(1, 2, 0), 1, List.of(4, 0), 2, List.of(0, 1)));
    assertThat(t.place(members(2, List.of(3)), List.of(0, 1, 2, 4), Set.of(), 1))
        .as("never none").isEqualTo(members(2, List.of(0)));
    // leaving, its places are filled
    assertThat(t.place(now, List.of(0, 1, 2, 4), Set.of(3), 3))
        .isEqualTo(members(0, List.of(1, 2, 0), 1, List.of(4, 0, 1), 2, List.of(0, 1, 2)));
  }

  @Test
  void aPartitionWithoutATargetKeepsItsCopiesAndFewerEligibleNodesGiveFewerCopies() {
    TargetPlacement t = TargetPlacement.of(Map.of(0, List.of(0, 1, 2)));
    assertThat(t.place(members(0, List.of(0, 1, 2), 5, List.of(2, 1, 0)), List.of(1, 2), 3))
        .isEqualTo(members(0, List.of(1, 2), 5, List.of(2, 1)));
  }

  @Test
  void aTargetThatIsNoListOfDistinctNodesIsRefusedNamingThePartition() {
    assertThatThrownBy(() -> TargetPlacement.of(Map.of(4, List.of(1, 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition 4").hasMessageContaining("distinct");
    assertThatThrownBy(() -> TargetPlacement.of(Map.of(2, List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition 2 is empty");
    assertThatThrownBy(() -> TargetPlacement.of(Map.of(-1, List.of(0))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition -1");
  }

  @Test
  void aTargetLongerThanReplicasIsPlacedWholeAndItsAwayNodesKeepTheirPlaces() {
    TargetPlacement t = TargetPlacement.of(Map.of(0, List.of(0, 1, 2), 1, List.of(1, 3)));
    TreeMap<Integer, List<Integer>> now = members(0, List.of(0, 1), 1, List.of(1));
    assertThat(t.place(now, List.of(0, 1, 2, 3), Set.of(), 2))
        .isEqualTo(members(0, List.of(0, 1, 2), 1, List.of(1, 3)));
    // 2 is down: the partition keeps what it has, and no spare takes 2's place
    assertThat(t.place(now, List.of(0, 1, 3), Set.of(), 2))
        .isEqualTo(members(0, List.of(0, 1), 1, List.of(1, 3)));
    assertThat(t.place(now, List.of(0, 1, 3), Set.of(), 1))
        .as("a row of one moving: both copies")
        .isEqualTo(members(0, List.of(0, 1), 1, List.of(1, 3)));
  }
}
