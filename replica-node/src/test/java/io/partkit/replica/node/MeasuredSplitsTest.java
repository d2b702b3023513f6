package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.node.load.PartitionSizes;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code ReplicaCoordinatorMain --split-size}'s strategy: the previous table re-cut by measured
 * sizes before {@code range} places it, a range over the size cut at its median and announced;
 * nothing re-cut when the sizes cannot be read; the option's bad values named.
 */
class MeasuredSplitsTest {

  final Partitioner range = Partitioners.load().create("range",
      PartitionerConfig.of("partitions", 2, "replicas", 1));
  final MembershipView view = MembershipView.ofEqualNodes("n", 3);
  final List<String> planned = new ArrayList<>();
  final List<String> log = new ArrayList<>();

  static PartitionSizes sizes(PartitionAssignment t, double[] keys, byte[]... splitKeys) {
    return new PartitionSizes(t, PartitionLoads.of(t.epoch(), keys), Arrays.asList(splitKeys));
  }

  @Test
  void aRangeOverTheSizeIsCutAtItsMedianAndAHalfMayMove() {
    PartitionAssignment first = range.place(view, Optional.empty(), 1).withEpoch(1);
    byte[] median = "k01500".getBytes(UTF_8);
    MeasuredSplits s = new MeasuredSplits(range, 2_000,
        t -> sizes(t, new double[] {3_000, 0}, median, null), planned::add, log::add);
    PartitionAssignment next = s.place(view, Optional.of(first), 1);
    assertThat(((KeyRanges) next.scheme()).splits()).hasSize(2);
    assertThat(((KeyRanges) next.scheme()).lowerBound(1)).isEqualTo(median);
    assertThat(planned).containsExactly("REPLICA SPLITS PLANNED 1 AT "
        + HexFormat.of().formatHex(median));
    assertThat(next.primaryPartitionsOf(next.primary(0)).length).as("three ranges, three"
        + " nodes: a half moved off the node that held both").isEqualTo(1);

    planned.clear();
    MeasuredSplits under = new MeasuredSplits(range, 2_000,
        t -> sizes(t, new double[] {2_000, 0}, median, null), planned::add, log::add);
    assertThat(under.place(view, Optional.of(first), 1).scheme()).as("at the size: no cut")
        .isEqualTo(first.scheme());
    assertThat(planned).isEmpty();
  }

  @Test
  void sizesThatCannotBeReadReCutNothingAndSaySo() {
    PartitionAssignment first = range.place(view, Optional.empty(), 1).withEpoch(1);
    MeasuredSplits s = new MeasuredSplits(range, 10, t -> {
      throw new IOException("no load view from node 1: refused");
    }, planned::add, log::add);
    assertThat(s.place(view, Optional.of(first), 1).scheme()).isEqualTo(first.scheme());
    assertThat(planned).isEmpty();
    assertThat(log).singleElement().asString().contains("epoch 1")
        .contains("no load view from node 1");
    MeasuredSplits busy = new MeasuredSplits(range, 10, t -> {
      throw new IllegalStateException("a change under way");
    }, planned::add, log::add);
    assertThat(busy.place(view, Optional.of(first), 1).scheme()).isEqualTo(first.scheme());
    assertThat(log).hasSize(2);
  }

  @Test
  void theSplitSizeOptionIsACountOfKeysForRangeAlone() {
    assertThat(ReplicaCoordinatorMain.splitSize("range", null)).isZero();
    assertThat(ReplicaCoordinatorMain.splitSize("range", "2000")).isEqualTo(2_000);
    assertThatThrownBy(() -> ReplicaCoordinatorMain.splitSize("fixed", "2000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs --strategy range, not fixed");
    for (String bad : List.of("0", "-3", "2k", "")) {
      assertThatThrownBy(() -> ReplicaCoordinatorMain.splitSize("range", bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--split-size is a count of keys, at least 1, not '" + bad
              + "'");
    }
  }
}
