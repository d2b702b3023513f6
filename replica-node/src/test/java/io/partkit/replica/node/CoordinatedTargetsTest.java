package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Message.Configure;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.hash.KeyHash;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CoordinatedTargetsTest {

  static final NodeId A = NodeId.of("a");
  static final NodeId B = NodeId.of("b");
  static final NodeId C = NodeId.of("c");

  static final CoordinatedTargets NONE = CoordinatedTargets.over(Map.of(A, 0, B, 1, C, 2));

  static PartitionAssignment table(long epoch, List<List<NodeId>> rows) {
    return PartitionAssignment.of("fixed", epoch, 0, HashSlots.of(rows.size()), rows);
  }

  static final PartitionAssignment FIRST = table(1, List.of(List.of(A, B), List.of(B, C)));

  @Test
  void theCommittedRowsAreTheTargetsAndAnAskedMigrationJoinsItsNodesToItsRow() {
    CoordinatedTargets t = NONE.commit(FIRST);
    assertThat(t.targets()).isEqualTo(Map.of(0, List.of(0, 1), 1, List.of(1, 2)));
    Migration m = new Migration(1, List.of(B, C), List.of(C, A), 2);
    // the row's primary stays first: the control levels A and hands nothing over
    assertThat(t.ask(m).targets()).isEqualTo(Map.of(0, List.of(0, 1), 1, List.of(1, 2, 0)));
    assertThat(t.ask(m).isAsked(m)).isTrue();
    assertThat(t.ask(m).withdraw(m).targets()).isEqualTo(t.targets());
    assertThat(t.ask(m).withdraw(m).isAsked(m)).isFalse();
    Migration swap = new Migration(0, List.of(A, B), List.of(B, A), 2);
    assertThat(t.ask(swap).targets().get(0)).as("a primary swap joins nobody")
        .containsExactly(0, 1);
  }

  @Test
  void joinedLevelMeansEveryTargetNodeALevelMemberWhoeverLeads() {
    Configure c = new Configure(0, 4, 1, List.of(2, 0));
    assertThat(CoordinatedTargets.joinedLevel(List.of(0, 2), c, List.of(0, 1, 2), false))
        .isTrue();
    assertThat(CoordinatedTargets.joinedLevel(List.of(0, 2), c, List.of(1, 2), false))
        .as("0 not level yet").isFalse();
    assertThat(CoordinatedTargets.joinedLevel(List.of(0, 3), c, List.of(0, 1, 2, 3), false))
        .as("3 not a member").isFalse();
    assertThat(CoordinatedTargets.joinedLevel(List.of(0, 2), c, List.of(0, 1, 2), true))
        .as("a move under way").isFalse();
  }

  @Test
  void aTableAtOrPastTheTargetEpochDecidesAMigrationWhetherItCarriesItOrAbandonsIt() {
    Migration m = new Migration(1, List.of(B, C), List.of(C, A), 2);
    CoordinatedTargets asked = NONE.commit(FIRST).ask(m);
    PartitionAssignment older = table(1, List.of(List.of(A, B), List.of(B, C)));
    assertThat(asked.commit(older).asked()).containsExactly(m);
    PartitionAssignment carries = table(2, List.of(List.of(A, B), List.of(C, A)));
    assertThat(CoordinatedTargets.carries(carries, m)).isTrue();
    assertThat(asked.commit(carries).asked()).isEmpty();
    assertThat(asked.targets().get(1)).as("asked: joined").containsExactly(1, 2, 0);
    assertThat(asked.commit(carries).targets().get(1)).as("carried: the row, handed over")
        .containsExactly(2, 0);
    PartitionAssignment abandons = table(3, List.of(List.of(A, B), List.of(B, C)));
    assertThat(CoordinatedTargets.carries(abandons, m)).isFalse();
    assertThat(asked.commit(abandons).asked()).isEmpty();
    assertThat(asked.commit(abandons).targets().get(1)).as("rolled back").containsExactly(1, 2);
    assertThat(asked.commit(older, List.of(m)).asked())
        .as("ready before an older table: abandoned by it").isEmpty();
    assertThat(asked.commit(older, List.of(m)).targets().get(1)).containsExactly(1, 2);
  }

  /**
   * Tables the core numbers (hash slots over MURMUR3_128, key ranges, token rings) are carried
   * out; hash slots of another hash are refused, naming both.
   */
  @Test
  void aTableOfAnotherSchemeThanTheCoresNumberingsIsRefusedNamingBoth() {
    CoordinatedTargets.checkNumbering(FIRST);
    List<List<NodeId>> rows = List.of(List.of(A), List.of(B));
    PartitionAssignment otherHash = PartitionAssignment.of("fixed", 1, 0,
        new HashSlots(2, KeyHash.CASSANDRA_MURMUR3), rows);
    assertThatThrownBy(() -> CoordinatedTargets.checkNumbering(otherHash))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyHash=CASSANDRA_MURMUR3")
        .hasMessageContaining("hash slots over MURMUR3_128");
    assertThatThrownBy(() -> CoordinatedTargets.checkNumbering(otherHash))
        .hasMessageContaining("(fixed) cuts keys by")
        .hasMessageContaining("key ranges (range) or a token ring");
    CoordinatedTargets.checkNumbering(PartitionAssignment.of("range", 1, 0,
        KeyRanges.of(List.of(new byte[] {0x40})), rows));
    CoordinatedTargets.checkNumbering(PartitionAssignment.of("tokenring", 1, 0,
        TokenRanges.of(-5, 5), rows));
  }

  @Test
  void aReplicaThatIsNoNodeIsRefusedNamingItAndTheNodesKnown() {
    NodeId stranger = NodeId.of("z");
    assertThatThrownBy(() -> NONE.commit(table(1, List.of(List.of(A, stranger)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition 0 of the table at epoch 1 names z")
        .hasMessageContaining("[a, b, c]");
    assertThatThrownBy(() -> NONE.ask(new Migration(0, List.of(A), List.of(stranger), 2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names z");
  }

  @Test
  void carriedOutMeansTheTargetLeadingInOrderAllLevelAndNoMove() {
    Configure c = new Configure(0, 4, 2, List.of(0));
    assertThat(CoordinatedTargets.carriedOut(List.of(2, 0), c, List.of(0, 2), false)).isTrue();
    assertThat(CoordinatedTargets.carriedOut(List.of(2, 0), c, List.of(2), false))
        .as("a member not level").isFalse();
    assertThat(CoordinatedTargets.carriedOut(List.of(2, 0), c, List.of(0, 2), true))
        .as("a move under way").isFalse();
    assertThat(CoordinatedTargets.carriedOut(List.of(0, 2), c, List.of(0, 2), false))
        .as("another primary").isFalse();
    assertThat(CoordinatedTargets.carriedOut(List.of(2), c, List.of(0, 2), false))
        .as("a shorter row, the control's extra copy after it").isTrue();
    assertThat(CoordinatedTargets.carriedOut(List.of(2, 0, 1), c, List.of(0, 2), false))
        .as("a copy missing").isFalse();
  }
}
