package io.partkit.strategy.range;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.InvalidConfigurationException;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.stats.Movement;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RangePartitionerTest {

  private static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Partitioner range(Object... options) {
    return Partitioners.load().create("range", PartitionerConfig.of(options));
  }

  @Test
  void splitPointsCutTheFirstTableInUtf8OrHex() {
    PartitionAssignment a = range("split-points", "g, n,0x7400").assign(
        MembershipView.ofEqualNodes("n", 3));
    assertThat(a.scheme()).isEqualTo(KeyRanges.of(k("g"), k("n"), new byte[] {'t', 0}));
    assertThat(a.partitionOf("apple")).isZero();
    assertThat(a.partitionOf("t")).isEqualTo(2); // "t" < "t\0"
    assertThat(a.partitionOf("zebra")).isEqualTo(3);
    assertThat(range().assign(MembershipView.ofEqualNodes("n", 3)).scheme())
        .isEqualTo(KeyRanges.even(RangePartitioner.DEFAULT_PARTITIONS));
  }

  @Test
  void badSplitPointsNameTheOptionAndTheKey() {
    assertThatThrownBy(() -> range("split-points", "t,g"))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("split-points: key ranges: split keys must be strictly increasing")
        .hasMessageContaining("split 0 = 0x74 >= split 1 = 0x67");
    assertThatThrownBy(() -> range("split-points", "a,,c"))
        .hasMessageContaining("split-points: key 1 of 'a,,c' is empty");
    assertThatThrownBy(() -> range("split-points", "0x7"))
        .hasMessageContaining("key 0 '0x7' is not 0x and an even number of hex digits");
    assertThatThrownBy(() -> range("split-points", "g", "partitions", 4))
        .hasMessageContaining("either partitions or split-points");
  }

  @Test
  void joinsAndLeavesKeepTheSplitKeysAndMoveWholeRanges() {
    Partitioner p = range("split-points", "d,h,m,q,u", "replicas", 2);
    MembershipView three = MembershipView.ofEqualNodes("n", 3);
    PartitionAssignment first = p.assign(three);
    // split range 2 [h, m) at "k": both halves stay, then a fourth node joins
    PartitionAssignment split = RangeSplits.of(10, Double.POSITIVE_INFINITY, 0).plan(first,
        PartitionLoads.of(first.epoch(), new double[] {1, 1, 50, 1, 1, 1}),
        Arrays.asList(null, null, k("k"), null, null, null)).table().withEpoch(2);
    MembershipView four = MembershipView.ofEqualNodes("n", 4);
    PartitionAssignment joined = p.assign(four, Optional.of(split));
    assertThat(joined.scheme()).isEqualTo(split.scheme());
    assertThat(joined.primaryPartitionsOf(NodeId.of("n3"))).hasSizeBetween(1, 2);
    Movement m = Movement.between(split, three, joined, four);
    assertThat(m.primaryMovedBetweenStayingShare()).as("%s", m).isZero();
    // the same view again changes nothing; a leave keeps the split keys too
    assertThat(p.assign(four, Optional.of(joined)).samePlacementAs(joined)).isTrue();
    MembershipView back = four.without(NodeId.of("n0"));
    PartitionAssignment left = p.assign(back, Optional.of(joined));
    assertThat(left.scheme()).isEqualTo(split.scheme());
    assertThat(left.nodes()).doesNotContain(NodeId.of("n0"));
  }

  @Test
  void aTableOfAnotherStrategyIsNotBuiltOn() {
    PartitionAssignment fixed = Partitioners.load().create("fixed", PartitionerConfig.of(
        "partitions", 8)).assign(MembershipView.ofEqualNodes("n", 2));
    PartitionAssignment a = range("partitions", 4).assign(MembershipView.ofEqualNodes("n", 2),
        Optional.of(fixed));
    assertThat(a.scheme()).isEqualTo(KeyRanges.even(4));
    assertThat(a.epoch()).isEqualTo(fixed.epoch() + 1);
  }

  /**
   * Sequential keys (0, 1, 2, ... as 8-byte big-endian longs) start in one range, so one node
   * holds them all; splitting at the median by size, then placing, spreads them. (Starting from
   * even ranges instead, the keys would all fall in the first one and the others would stay
   * empty: placement counts ranges, so empty ones would skew it; the bench report measures that.)
   */
  @Test
  void sequentialKeysLandInOneRangeUntilItSplits() {
    Partitioner p = range("partitions", 1);
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    PartitionAssignment table = p.assign(view);
    long keys = 100_000;
    assertThat(perNode(table, keys)).containsValue(keys); // one node has everything
    RangeSplits splits = RangeSplits.of(keys / 8.0, Double.POSITIVE_INFINITY, keys / 64.0);
    int rounds = 0;
    int totalSplits = 0;
    while (true) {
      long[] sizes = new long[table.partitionCount()];
      long[] firstKey = new long[table.partitionCount()];
      Arrays.fill(firstKey, -1);
      for (long key = 0; key < keys; key++) {
        int part = table.partitionOf(key);
        if (sizes[part]++ == 0) {
          firstKey[part] = key;
        }
      }
      double[] size = new double[sizes.length];
      List<byte[]> medians = new ArrayList<>();
      for (int q = 0; q < sizes.length; q++) {
        size[q] = sizes[q];
        // keys in a range are consecutive here, so the median is first + size / 2
        medians.add(sizes[q] < 2 ? null : bytes(firstKey[q] + sizes[q] / 2));
      }
      RangeSplits.Plan plan = splits.plan(table, PartitionLoads.of(table.epoch(), size), medians);
      if (!plan.changed()) {
        break;
      }
      totalSplits += plan.splits();
      table = p.assign(view, Optional.of(plan.table().withEpoch(table.epoch())));
      rounds++;
    }
    Map<NodeId, Long> balance = perNode(table, keys);
    long max = balance.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat(rounds).isBetween(3, 10);
    assertThat(totalSplits).isGreaterThanOrEqualTo(7);
    assertThat(balance).hasSize(4);
    assertThat(max).as("keys per node %s after %d splits", balance, totalSplits)
        .isLessThanOrEqualTo((long) (keys / 4 * 1.25));
  }

  private static byte[] bytes(long key) {
    return ByteBuffer.allocate(8).putLong(key).array();
  }

  private static Map<NodeId, Long> perNode(PartitionAssignment table, long keys) {
    Map<NodeId, Long> count = new TreeMap<>();
    for (long key = 0; key < keys; key++) {
      count.merge(table.primaryOf(key), 1L, Long::sum);
    }
    return count;
  }
}
