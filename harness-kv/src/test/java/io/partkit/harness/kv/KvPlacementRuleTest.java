package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The placement rule on LIST answers, without a cluster: each way a node can be out of place. */
class KvPlacementRuleTest {

  private static final Set<String> MEMBERS = Set.of("n1", "n2", "n3");

  /** Partition 0 on n1 then n2, partition 1 on n2 then n3, at epoch 7. */
  private static PartitionAssignment table() {
    return PartitionAssignment.of("test", 7, 1, HashSlots.of(2), List.of(
        List.of(NodeId.of("n1"), NodeId.of("n2")), List.of(NodeId.of("n2"), NodeId.of("n3"))));
  }

  private static PartitionStatus status(int partition, PartitionState state, long keys) {
    return new PartitionStatus(partition, state, 7, keys);
  }

  /** Every node holding what the table says. */
  private static Map<String, Map<Integer, PartitionStatus>> inPlace() {
    Map<String, Map<Integer, PartitionStatus>> held = new TreeMap<>();
    held.put("n1", new TreeMap<>(Map.of(0, status(0, PartitionState.OWNED, 10))));
    held.put("n2", new TreeMap<>(Map.of(0, status(0, PartitionState.BACKUP, 10),
        1, status(1, PartitionState.OWNED, 4))));
    held.put("n3", new TreeMap<>(Map.of(1, status(1, PartitionState.BACKUP, 4))));
    return held;
  }

  @Test
  void nodesHoldingWhatTheTableSaysAreInPlace() {
    assertThat(KvPlacementRule.misplaced(table(), MEMBERS, 2, inPlace())).isEmpty();
  }

  @Test
  void aBackupBehindItsPrimaryIsOutOfPlace() {
    Map<String, Map<Integer, PartitionStatus>> held = inPlace();
    held.get("n3").put(1, status(1, PartitionState.BACKUP, 3)); // one key short
    assertThat(KvPlacementRule.misplaced(table(), MEMBERS, 2, held)).singleElement()
        .asString().contains("partition 1").contains("backup n3 holds");
  }

  @Test
  void aReplicaThatDoesNotAnswerIsOutOfPlace() {
    Map<String, Map<Integer, PartitionStatus>> held = inPlace();
    held.remove("n3");
    assertThat(KvPlacementRule.misplaced(table(), MEMBERS, 2, held)).singleElement()
        .asString().contains("backup n3 does not answer");
    held.remove("n1");
    assertThat(KvPlacementRule.misplaced(table(), MEMBERS, 2, held))
        .anySatisfy(line -> assertThat(line).contains("primary n1 does not answer"));
  }

  @Test
  void aNodeOutsideTheRowThatStillHoldsACopyIsOutOfPlace() {
    Map<String, Map<Integer, PartitionStatus>> held = inPlace();
    held.get("n1").put(1, status(1, PartitionState.BACKUP, 4));
    assertThat(KvPlacementRule.misplaced(table(), MEMBERS, 2, held)).singleElement()
        .asString().contains("n1 still holds");
    held.get("n1").put(1, status(1, PartitionState.ABSENT, 0)); // dropped: absent is in place
    assertThat(KvPlacementRule.misplaced(table(), MEMBERS, 2, held)).isEmpty();
  }

  @Test
  void aRowWithAMemberNoLongerInTheClusterIsOutOfPlace() {
    assertThat(KvPlacementRule.misplaced(table(), Set.of("n1", "n2"), 2, inPlace()))
        .anySatisfy(line -> assertThat(line).contains("partition 1")
            .contains("the table should hold 2 distinct members"));
  }
}
