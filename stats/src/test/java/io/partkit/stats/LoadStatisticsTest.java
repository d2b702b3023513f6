package io.partkit.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Load balance on a hand-built table whose figures can be checked by hand. */
class LoadStatisticsTest {

  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final NodeId C = NodeId.of("c");

  /** Partitions 0, 1 on a (b backs them up), 2 on b; c holds nothing. */
  private static PartitionAssignment table() {
    return PartitionAssignment.of("hand", 3, 0, HashSlots.of(3),
        List.of(List.of(A, B), List.of(A, B), List.of(B, A)));
  }

  @Test
  void loadCountsOnThePrimaryPerUnitOfWeightAndIdleMembersCount() {
    MembershipView view = MembershipView.of(Member.weighted("a", 2), Member.of("b"),
        Member.of("c"));
    LoadStatistics s = LoadStatistics.of(table(), PartitionLoads.of(9, new double[] {6, 2, 4}),
        view);

    assertThat(s.loads()).containsExactly(java.util.Map.entry(A, 8.0),
        java.util.Map.entry(B, 4.0), java.util.Map.entry(C, 0.0));
    assertThat(s.total()).isEqualTo(12);
    assertThat(s.meanPerWeight()).isEqualTo(3.0); // 12 over weight 4
    assertThat(s.maxPerWeight()).isEqualTo(4.0); // a: 8 / 2, b: 4 / 1
    assertThat(s.maxOverMean()).isCloseTo(4.0 / 3, offset(1e-12));
    // per weight 4, 4, 0 around 3: sqrt((1 + 1 + 9) / 3) / 3
    assertThat(s.relativeStdDev()).isCloseTo(Math.sqrt(11.0 / 3) / 3, offset(1e-12));
    assertThat(s).isEqualTo(LoadStatistics.of(table(),
        PartitionLoads.of(1, new double[] {6, 2, 4}), view));
  }

  @Test
  void loadsOfAnotherPartitionCountAreRejected() {
    assertThatThrownBy(() -> LoadStatistics.of(table(), PartitionLoads.uniform(3, 4),
        MembershipView.ofEqualNodes("n", 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("loads of 4 partitions cannot describe a table of 3");
  }

  @Test
  void withoutLoadTheRatiosAreZero() {
    LoadStatistics s = LoadStatistics.of(table(), PartitionLoads.of(3, new double[3]),
        MembershipView.of(Member.of("a"), Member.of("b")));
    assertThat(s.maxOverMean()).isZero();
    assertThat(s.relativeStdDev()).isZero();
  }
}
