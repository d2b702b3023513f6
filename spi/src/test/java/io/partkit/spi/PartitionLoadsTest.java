package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionLoadsTest {

  @Test
  void keepsItsOwnCopyAndSumsTheLoads() {
    double[] measured = {1.5, 0, 2.5};
    PartitionLoads loads = PartitionLoads.of(7, measured);
    measured[0] = 100;

    assertThat(loads.load(0)).isEqualTo(1.5);
    assertThat(loads.total()).isEqualTo(4.0);
    assertThat(loads.partitionCount()).isEqualTo(3);
    assertThat(loads.epoch()).isEqualTo(7);
  }

  @Test
  void aNegativeOrNonFiniteLoadIsRejectedNamingItsPartition() {
    for (double bad : new double[] {-1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> PartitionLoads.of(1, new double[] {1, bad}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("partition 1 has load " + bad);
    }
    assertThatThrownBy(() -> PartitionLoads.of(1, new double[0]))
        .hasMessageContaining("at least one partition");
    assertThatThrownBy(() -> PartitionLoads.of(1, new double[] {1}).load(1))
        .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("0..0: 1");
  }

  @Test
  void describesOnlyATableOfItsEpochAndPartitionCount() {
    NodeId a = NodeId.of("a");
    PartitionAssignment table = PartitionAssignment.of("fixed", 4, 1, HashSlots.of(2),
        List.of(List.of(a), List.of(a)));

    assertThat(PartitionLoads.uniform(4, 2).describes(table)).isTrue();
    assertThat(PartitionLoads.uniform(5, 2).describes(table)).isFalse();
    assertThat(PartitionLoads.uniform(4, 3).describes(table)).isFalse();
    assertThat(PartitionLoads.uniform(4, 2)).isEqualTo(PartitionLoads.of(4, new double[] {1, 1}));
  }
}
