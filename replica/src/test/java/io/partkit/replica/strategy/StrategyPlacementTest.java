package io.partkit.replica.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.Partitioners;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The bridge from a partkit strategy to the control's placement. */
class StrategyPlacementTest {

  private static PartitionerProvider provider(String name) {
    return Partitioners.load().provider(name).orElseThrow();
  }

  private static SortedMap<Integer, List<Integer>> table(int partitions, List<Integer> nodes) {
    TreeMap<Integer, List<Integer>> t = new TreeMap<>();
    for (int p = 0; p < partitions; p++) {
      t.put(p, List.of(nodes.get(p % nodes.size()), nodes.get((p + 1) % nodes.size())));
    }
    return t;
  }

  @Test
  void partitionPIsTheStrategysSlotPOverTheNodesAsPaddedIds() {
    List<Integer> nodes = List.of(3, 7, 12, 100);
    SortedMap<Integer, List<Integer>> targets =
        StrategyPlacement.of(provider("rendezvous")).place(table(16, nodes), nodes, 2);
    PartitionAssignment direct = provider("rendezvous")
        .create(PartitionerConfig.of("partitions", 16))
        .place(MembershipView.of(0, List.of(Member.of("node-0000000003"),
            Member.of("node-0000000007"), Member.of("node-0000000012"),
            Member.of("node-0000000100"))), Optional.empty(), 2);
    assertThat(targets.keySet()).hasSize(16);
    for (int p = 0; p < 16; p++) {
      List<Integer> expected = direct.replicas(p).stream()
          .map(id -> Integer.parseInt(id.value().substring("node-".length()))).toList();
      assertThat(targets.get(p)).as("partition %d", p).isEqualTo(expected);
    }
    assertThat(StrategyPlacement.nodeId(7).compareTo(StrategyPlacement.nodeId(12))).isNegative();
  }

  @Test
  void aSplitsPartitionIsPlacedAsTheSlotOfItsNumberAndRendezvousMovesNoOther() {
    List<Integer> nodes = List.of(0, 1, 2, 3, 4);
    StrategyPlacement rendezvous = StrategyPlacement.of(provider("rendezvous"));
    SortedMap<Integer, List<Integer>> before = rendezvous.place(table(8, nodes), nodes, 3);
    TreeMap<Integer, List<Integer>> split = new TreeMap<>(before);
    split.put(13, before.get(5)); // partition 5 at modulus 8 splits off 13
    SortedMap<Integer, List<Integer>> after = rendezvous.place(split, nodes, 3);
    assertThat(after.keySet()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 13);
    assertThat(after.headMap(8)).isEqualTo(before);
    assertThat(after.get(13)).hasSize(3).doesNotHaveDuplicates();
    SortedMap<Integer, List<Integer>> fixed =
        StrategyPlacement.of(provider("fixed")).place(split, nodes, 3);
    assertThat(fixed.keySet()).isEqualTo(after.keySet());
    fixed.values().forEach(m -> assertThat(m).hasSize(3).doesNotHaveDuplicates());
  }

  @Test
  void fewerNodesThanReplicasPlaceEveryNodeOnce() {
    List<Integer> nodes = List.of(4, 9);
    SortedMap<Integer, List<Integer>> targets =
        StrategyPlacement.of(provider("fixed")).place(table(4, List.of(1, 4, 9)), nodes, 3);
    targets.values().forEach(m -> assertThat(m).containsExactlyInAnyOrder(4, 9));
  }

  @Test
  void strategiesWhosePartitionsAreNotHashSlotsAreRefusedByName() {
    for (String name : List.of("tokenring", "range")) {
      assertThatThrownBy(() -> StrategyPlacement.of(provider(name)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("strategy " + name)
          .hasMessageContaining("fixed, rendezvous");
    }
  }
}
