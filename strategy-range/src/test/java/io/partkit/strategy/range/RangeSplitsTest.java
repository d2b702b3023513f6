package io.partkit.strategy.range;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.stats.Movement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RangeSplitsTest {

  private static final double INF = Double.POSITIVE_INFINITY;

  private static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Ranges cut at the given keys; each string of {@code rows} lists a range's replicas. */
  private static PartitionAssignment table(long epoch, List<String> splits, String... rows) {
    List<byte[]> keys = splits.stream().map(RangeSplitsTest::k).toList();
    List<List<NodeId>> replicas = new ArrayList<>();
    for (String row : rows) {
      replicas.add(row.chars().mapToObj(c -> NodeId.of(String.valueOf((char) c))).toList());
    }
    return PartitionAssignment.of("range", epoch, 1, KeyRanges.of(keys), replicas);
  }

  private static PartitionLoads figures(long epoch, double... values) {
    return PartitionLoads.of(epoch, values);
  }

  private static List<byte[]> keys(String... keys) {
    List<byte[]> list = new ArrayList<>();
    for (String s : keys) {
      list.add(s == null ? null : k(s));
    }
    return list;
  }

  @Test
  void aRangeOverTheSizeThresholdSplitsAtItsKeyWithBothHalvesWhereItWas() {
    PartitionAssignment t = table(4, List.of("g", "p"), "ab", "bc", "ca");
    RangeSplits.Plan plan = RangeSplits.of(100, INF, 10)
        .plan(t, figures(4, 50, 150, 60), keys("c", "k", "x"));
    assertThat(plan.splits()).isEqualTo(1);
    assertThat(plan.merges()).isZero();
    PartitionAssignment s = plan.table();
    assertThat(s.scheme()).isEqualTo(KeyRanges.of(k("g"), k("k"), k("p")));
    assertThat(s.replicaTable()).containsExactly(t.replicas(0), t.replicas(1), t.replicas(1),
        t.replicas(2));
    assertThat(s.epoch()).as("unstamped").isZero();
    Movement m = Movement.between(t, s);
    assertThat(m.primaryMovedShare()).as("metadata only: %s", m).isZero();
    assertThat(m.replicaMovedShare()).isZero();
  }

  @Test
  void aHotRangeSplitsByLoadAndOneHotKeyCannotSplit() {
    PartitionAssignment t = table(2, List.of("m"), "a", "b");
    RangeSplits planner = RangeSplits.of(INF, 1000, 0);
    RangeSplits.Plan plan = planner.plan(t, figures(2, 1, 1), figures(2, 5000, 10),
        keys("f", null));
    assertThat(plan.splits()).isEqualTo(1);
    assertThat(plan.table().partitionCount()).isEqualTo(3);
    // all the load on the range's first key: the median is its lower bound, not inside it
    RangeSplits.Plan stuck = planner.plan(t, figures(2, 1, 1), figures(2, 10, 5000),
        keys(null, "m"));
    assertThat(stuck.changed()).isFalse();
    assertThat(stuck.unsplittable()).containsExactly(1);
    assertThat(stuck.table().samePlacementAs(t)).isTrue();
  }

  @Test
  void smallNeighboursOnTheSameReplicasMergeAndOthersDoNot() {
    PartitionAssignment t = table(7, List.of("c", "f", "j", "m", "q"), "ab", "ab", "ab", "ba",
        "ba", "ab");
    RangeSplits.Plan plan = RangeSplits.of(100, 100, 30)
        .plan(t, figures(7, 10, 10, 15, 5, 5, 1), figures(7, 1, 1, 1, 1, 1, 1),
            keys("b", "d", "g", "k", "n", "r"));
    // 0+1 merge (20); adding 2 would make 35 > 30; 3+4 merge (same replicas "ba"); 5 differs
    assertThat(plan.merges()).isEqualTo(2);
    assertThat(plan.table().scheme()).isEqualTo(KeyRanges.of(k("f"), k("j"), k("q")));
    assertThat(plan.table().replicaTable()).extracting(r -> r.get(0).value())
        .containsExactly("a", "a", "b", "a");
    assertThat(Movement.between(t, plan.table()).replicaMovedShare()).isZero();
    // a load above half the split threshold blocks the merge: it would split again next time
    RangeSplits.Plan busy = RangeSplits.of(100, 100, 30)
        .plan(t, figures(7, 10, 10, 15, 5, 5, 1), figures(7, 30, 30, 1, 1, 1, 1),
            keys("b", "d", "g", "k", "n", "r"));
    assertThat(busy.table().partitionCount()).isEqualTo(4);
    assertThat(busy.table().scheme()).isEqualTo(KeyRanges.of(k("c"), k("j"), k("q")));
  }

  @Test
  void mergeSizeZeroMergesNothingNotEvenEmptyNeighbours() {
    PartitionAssignment t = table(3, List.of("f", "m"), "a", "a", "a");
    RangeSplits.Plan plan = RangeSplits.of(100, INF, 0)
        .plan(t, figures(3, 0, 0, 0), keys(null, null, null));
    assertThat(plan.changed()).isFalse();
    assertThat(plan.merges()).isZero();
    assertThat(plan.table().partitionCount()).isEqualTo(3);
  }

  @Test
  void badInputIsRejectedSayingWhatWasExpected() {
    PartitionAssignment t = table(3, List.of("m"), "a", "b");
    RangeSplits r = RangeSplits.of(10, 10, 1);
    assertThatThrownBy(() -> r.plan(t, figures(2, 1, 1), keys("a", "z")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sizes were measured under epoch 2")
        .hasMessageContaining("the table is epoch 3");
    assertThatThrownBy(() -> r.plan(t, figures(3, 1, 1), keys("a")))
        .hasMessageContaining("1 split keys for a table of 2 partitions");
    PartitionAssignment slots = PartitionAssignment.of("fixed", 1, 1, HashSlots.of(1),
        List.of(List.of(NodeId.of("a"))));
    assertThatThrownBy(() -> r.plan(slots, figures(1, 1), keys("a")))
        .hasMessageContaining("expected key ranges");
    assertThatThrownBy(() -> RangeSplits.of(10, 10, 10))
        .hasMessageContaining("mergeSize must be in [0, splitSize=10.0): 10.0");
    assertThatThrownBy(() -> RangeSplits.of(0, 10, 0)).hasMessageContaining("splitSize must be");
    assertThatThrownBy(() -> RangeSplits.of(1, Double.NaN, 0))
        .hasMessageContaining("splitLoad must be");
  }

  /**
   * Random tables and figures: every key keeps its replicas (splits and merges are metadata),
   * every range over a threshold with a key inside it splits, and no merge exceeds its bounds.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 2024})
  void plansAreMetadataOnlyAndFollowTheThresholds(long seed) {
    Random random = new Random(seed);
    TreeSet<byte[]> set = new TreeSet<>(Arrays::compareUnsigned);
    int count = 1 + random.nextInt(30);
    while (set.size() < count - 1) {
      set.add(randomKey(random));
    }
    List<List<NodeId>> rows = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      rows.add(List.of(NodeId.of(random.nextInt(3) == 0 ? "a" : "b")));
    }
    KeyRanges ranges = KeyRanges.of(new ArrayList<>(set));
    PartitionAssignment t = PartitionAssignment.of("range", 9, 1, ranges, rows);
    double[] sizes = new double[count];
    List<byte[]> medians = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      sizes[p] = random.nextInt(200);
      medians.add(random.nextInt(5) == 0 ? null : randomKey(random));
    }
    RangeSplits.Plan plan = RangeSplits.of(150, INF, 60)
        .plan(t, PartitionLoads.of(9, sizes), medians);
    String context = "seed " + seed;
    PartitionAssignment s = plan.table();
    for (int i = 0; i < 2_000; i++) {
      byte[] key = randomKey(random);
      assertThat(s.replicas(s.partitionOf(key))).as(context)
          .isEqualTo(t.replicas(t.partitionOf(key)));
    }
    int expectedSplits = 0;
    for (int p = 0; p < count; p++) {
      byte[] m = medians.get(p);
      boolean inside = m != null && Arrays.compareUnsigned(ranges.lowerBound(p), m) < 0
          && (ranges.upperBound(p) == null || Arrays.compareUnsigned(m, ranges.upperBound(p)) < 0);
      if (sizes[p] > 150 && inside) {
        expectedSplits++;
      }
    }
    assertThat(plan.splits()).as(context).isEqualTo(expectedSplits);
    assertThat(s.partitionCount()).as(context).isEqualTo(count + plan.splits() - plan.merges());
  }

  private static byte[] randomKey(Random random) {
    byte[] key = new byte[1 + random.nextInt(4)];
    for (int i = 0; i < key.length; i++) {
      key[i] = (byte) ('a' + random.nextInt(26));
    }
    return key;
  }
}
