package io.partkit.replica.node.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Turning the nodes' views into {@link PartitionLoads} for a table. */
class ClusterLoadTest {

  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final long SECOND = 1_000_000_000L;

  /** Partitions 0 and 2 on a, 1 and 3 on b, at epoch 5. */
  private static PartitionAssignment table(long epoch) {
    return PartitionAssignment.of("test", epoch, 0, HashSlots.of(4),
        List.of(List.of(A), List.of(B), List.of(A), List.of(B)));
  }

  /** A partition served for {@code seconds} with {@code ops} puts of {@code bytes} bytes. */
  private static PartitionLoad load(int partition, long epoch, long seconds, long ops,
      long bytes, long keys) {
    return new PartitionLoad(partition, "OWNED", epoch, keys, seconds * SECOND, 0,
        ops, 0, bytes, 0, 0, 0);
  }

  private static NodeLoad node(NodeId id, PartitionLoad... partitions) {
    return new NodeLoad(id, List.of(partitions), 0, 0, List.of());
  }

  @Test
  void eachPartitionIsMeasuredByItsPrimaryInTheUnitAsked() {
    ClusterLoad load = new ClusterLoad(table(5), List.of(
        node(A, load(0, 5, 10, 1000, 5000, 7), load(2, 3, 10, 0, 0, 0)),
        // b also reports a partition it serves that the table gives to a: not b's to count
        node(B, load(1, 5, 2, 40, 800, 3), load(0, 4, 10, 99_999, 0, 0))));
    PartitionLoads ops = load.partitionLoads(LoadMeasure.OPS_PER_SECOND);
    assertThat(ops.describes(table(5))).isTrue();
    assertThat(ops.load(0)).isCloseTo(100, within(1e-9));
    assertThat(ops.load(1)).isCloseTo(20, within(1e-9));
    assertThat(ops.load(2)).isZero();
    assertThat(ops.load(3)).as("never served since b took it: no load").isZero();
    PartitionLoads bytes = load.partitionLoads(LoadMeasure.BYTES_PER_SECOND);
    assertThat(bytes.load(0)).isCloseTo(500, within(1e-9));
    assertThat(bytes.load(1)).isCloseTo(400, within(1e-9));
    PartitionLoads keys = load.partitionLoads(LoadMeasure.KEYS);
    assertThat(keys.load(0)).isEqualTo(7);
    assertThat(keys.load(1)).isEqualTo(3);
  }

  @Test
  void splitKeysAreThePrimariesOnePerPartitionNullWhereUnknown() {
    byte[] m = {'m'};
    ClusterLoad load = new ClusterLoad(table(5), List.of(
        node(A, load(0, 5, 1, 0, 0, 9).withSplitKey(m), load(2, 5, 1, 0, 0, 0)),
        // b reports a split key for partition 0, which the table gives to a: not b's
        node(B, load(1, 5, 1, 0, 0, 1).withSplitKey(new byte[] {'b'}),
            load(0, 4, 1, 0, 0, 3).withSplitKey(new byte[] {'z'}))));
    List<byte[]> keys = load.splitKeys();
    assertThat(keys).hasSize(4);
    assertThat(keys.get(0)).isEqualTo(m);
    assertThat(keys.get(1)).isEqualTo(new byte[] {'b'});
    assertThat(keys.get(2)).as("an empty partition has none").isNull();
    assertThat(keys.get(3)).as("not in b's view: none known").isNull();
    assertThatThrownBy(() -> keys.set(0, m)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void theRateBetweenTwoReadingsCountsOnlyWhatWasServedInBetween() {
    ClusterLoad before = new ClusterLoad(table(5), List.of(
        node(A, load(0, 5, 100, 100_000, 0, 1)), node(B, load(1, 5, 100, 10, 0, 1))));
    ClusterLoad after = new ClusterLoad(table(5), List.of(
        node(A, load(0, 5, 110, 100_050, 0, 1)),
        // b restarted in between: its counts started again 4 s ago
        node(B, load(1, 5, 4, 400, 0, 1))));
    PartitionLoads recent = after.partitionLoadsSince(before, LoadMeasure.OPS_PER_SECOND);
    assertThat(recent.load(0)).as("50 ops in 10 s, not the 909/s of the whole count")
        .isCloseTo(5, within(1e-9));
    assertThat(recent.load(1)).isCloseTo(100, within(1e-9));
    assertThatThrownBy(() -> new ClusterLoad(table(6), after.nodes())
        .partitionLoadsSince(before, LoadMeasure.OPS_PER_SECOND))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("table epochs 5 and 6 cannot be compared");
  }

  @Test
  void aViewNewerThanTheTableOrAMissingPrimaryIsAnErrorNotAZero() {
    ClusterLoad stale = new ClusterLoad(table(5), List.of(node(A, load(0, 6, 1, 1, 0, 0)),
        node(B)));
    assertThatThrownBy(() -> stale.partitionLoads(LoadMeasure.OPS_PER_SECOND))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a holds partition 0 at epoch 6, newer than the table's 5");
    ClusterLoad missing = new ClusterLoad(table(5), List.of(node(A)));
    assertThatThrownBy(() -> missing.partitionLoads(LoadMeasure.KEYS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no load view of b, the primary of partition 1 at epoch 5");
  }
}
