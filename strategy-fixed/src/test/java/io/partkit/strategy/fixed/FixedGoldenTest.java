package io.partkit.strategy.fixed;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Golden values pinning the persisted format of the fixed strategy: key -> partition (HashSlots
 * over MURMUR3_128) and partition -> members (the table rules of {@link FixedTable}).
 *
 * <p>How they were obtained: the key -> partition values were computed once by this
 * implementation and written in here; the first-table values follow from the documented
 * round-robin rule by hand (partition p on member p mod n); the rebalance values were computed
 * once by this implementation. If any changes, existing clusters would route keys elsewhere: a
 * format break. Do not update them; add a new option value or strategy instead.
 */
class FixedGoldenTest {

  private static final MembershipView FIVE = MembershipView.ofEqualNodes("node-", 5);

  @Test
  void keyToPartitionIsPinned() {
    PartitionAssignment a = FixedPartitioner.create(PartitionerConfig.empty()).assign(FIVE);
    assertThat(a.partitionOf("key")).isEqualTo(GOLDEN_271_KEY);
    assertThat(a.partitionOf("user-42")).isEqualTo(GOLDEN_271_USER42);
    assertThat(a.partitionOf(12345L)).isEqualTo(GOLDEN_271_LONG_12345);
    PartitionAssignment b = FixedPartitioner.create(PartitionerConfig.of("partitions", 1024))
        .assign(FIVE);
    assertThat(b.partitionOf("key")).isEqualTo(GOLDEN_1024_KEY);
  }

  @Test
  void firstTableIsRoundRobin() {
    PartitionAssignment a = FixedPartitioner.create(PartitionerConfig.empty()).assign(FIVE);
    assertThat(a.primary(0)).isEqualTo(NodeId.of("node-0"));
    assertThat(a.primary(7)).isEqualTo(NodeId.of("node-2"));
    assertThat(a.primary(270)).isEqualTo(NodeId.of("node-0"));
  }

  @Test
  void rebalanceAfterAJoinIsPinned() {
    var fixed = FixedPartitioner.create(PartitionerConfig.of("partitions", 16, "replicas", 2));
    PartitionAssignment first = fixed.assign(FIVE);
    PartitionAssignment next = fixed.assign(FIVE.with(Member.of("node-5")), Optional.of(first));
    StringBuilder sb = new StringBuilder();
    for (int p = 0; p < 16; p++) {
      sb.append(next.replica(p, 0).value().charAt(5)).append(next.replica(p, 1).value().charAt(5))
          .append(' ');
    }
    assertThat(sb.toString().trim()).isEqualTo(GOLDEN_JOIN_TABLE);
  }

  // ---- the pinned values (see the class comment: never edit) ----
  private static final int GOLDEN_271_KEY = 34;
  private static final int GOLDEN_271_USER42 = 217;
  private static final int GOLDEN_271_LONG_12345 = 190;
  private static final int GOLDEN_1024_KEY = 131;
  /**
   * "primary backup" digits per partition after node-5 joins; the first table was
   * "01 10 23 34 40 01 12 23 34 40 01 12 23 34 40 02", so node-5 took two primaries (14, 15) and
   * three backups (9, 13, 14 moved from the old primary's slot), nothing moved elsewhere.
   */
  private static final String GOLDEN_JOIN_TABLE =
      "01 10 23 34 40 01 12 23 34 45 01 12 23 35 50 52";
}
