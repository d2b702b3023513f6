package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The metadata-only table of a key-range split or merge, decided on the split keys. The whole
 * path through a coordinator (split committed, then one half migrated) is tested where the
 * range strategy is, in {@code strategy-range}'s {@code RangeSplitThroughCoordinatorTest}: that
 * module's tests depend on this one, so this module's tests cannot depend on it.
 */
class RangeSplitPlanTest {

  private static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static PartitionAssignment ranges(long epoch, List<String> splits, String... rows) {
    List<List<NodeId>> replicas = new ArrayList<>();
    for (String r : rows) {
      replicas.add(List.of(NodeId.of(r)));
    }
    return PartitionAssignment.of("range", epoch, 1,
        KeyRanges.of(splits.stream().map(RangeSplitPlanTest::k).toList()), replicas);
  }

  @Test
  void splitTableDecidesOnTheSplitKeysAndMergesOnlyRangesOnTheSameReplicas() {
    // split keys sharing 8 bytes: empty on the hash line, still a range of their own
    PartitionAssignment current = ranges(5, List.of("user-0000", "user-0001"), "a", "b", "c");
    PartitionAssignment proposed = ranges(0,
        List.of("user-0000", "user-00005", "user-0001"), "x", "x", "x", "x");
    PartitionAssignment split = RebalancePlanner.splitTable(current, proposed);
    assertThat(split.epoch()).isEqualTo(6);
    assertThat(split.replicaTable()).extracting(r -> r.get(0).value())
        .containsExactly("a", "b", "b", "c");
    // a merge of [, g) and [g, p) on the same node is metadata too
    PartitionAssignment same = ranges(5, List.of("g", "p"), "a", "a", "b");
    PartitionAssignment merged = RebalancePlanner.splitTable(same,
        ranges(0, List.of("p"), "x", "x"));
    assertThat(merged.replicaTable()).extracting(r -> r.get(0).value()).containsExactly("a", "b");
    PartitionAssignment apart = ranges(5, List.of("g", "p"), "a", "b", "b");
    assertThatThrownBy(() -> RebalancePlanner.splitTable(apart, ranges(0, List.of("p"), "x", "x")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a merge of ranges on different replicas: new partition 0 spans"
            + " old partitions 0 (on [a]) and 1 (on [b])");
  }
}
