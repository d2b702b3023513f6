package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Request;
import io.partkit.replica.ReplicaTest.Cluster;
import io.partkit.spi.KeyRanges;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Splits of key ranges on the nodes: a copy divides at the numbering's cuts, and a node that
 * missed splits carries them out in order, each at its own cut, from whichever descendant's
 * configuration reaches it first.
 */
class ReplicaSpanSplitTest {

  static final int KEYS = 16;
  /** One partition of every key: the first table of key ranges with no split key. */
  static final Numbering WHOLE = Numbering.of(KeyRanges.of(List.of()), 0);
  /** Partition 0 split at key 8: partition 1 takes keys 8 and up. */
  static final Numbering AT_8 = WHOLE.split(0, Bytes.ofLong(8));
  /** Then partition 1 split at key 12: partition 3 takes keys 12 and up. */
  static final Numbering AT_8_12 = AT_8.split(1, Bytes.ofLong(12));

  /** Node 0 primary, 1 and 2 backups of the whole key range at epoch 1, with keys 0..15. */
  private static Cluster filled() {
    return ReplicaTest.numbered(WHOLE);
  }

  private static int owner(long key) {
    return key < 8 ? 0 : key < 12 ? 1 : 3;
  }

  @Test
  void theNumberingsNameTheRangesTheirCutsMake() {
    assertThat(AT_8.describe(0)).isEqualTo("[, " + Bytes.ofLong(8) + ")");
    assertThat(AT_8_12.describe(1)).isEqualTo("[" + Bytes.ofLong(8) + ", " + Bytes.ofLong(12)
        + ")");
    assertThat(AT_8_12.describe(3)).isEqualTo("[" + Bytes.ofLong(12) + ", end)");
    for (long k = 0; k < KEYS; k++) {
      int o = owner(k);
      Bytes key = Bytes.ofLong(k);
      assertThat(List.of(0, 1, 3)).as("key %d", k)
          .allMatch(p -> (p == o) == (p == 0 ? AT_8 : AT_8_12).holds(p, key));
    }
  }

  @Test
  void aNodeThatMissedTwoSplitsDividesItsCopyAtBothCutsFromTheLastConfigurationAlone() {
    Cluster s = filled();
    // nodes 0 and 1 hear of both splits in order; node 2 only of partition 3's configuration
    s.configure(0, 2, 0, List.of(1, 2), AT_8, Set.of(0, 1));
    s.configure(1, 2, 0, List.of(1, 2), AT_8, Set.of(0, 1));
    s.configure(1, 3, 0, List.of(1, 2), AT_8_12, Set.of(0, 1));
    s.configure(3, 3, 0, List.of(1, 2), AT_8_12, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      Replica r = s.nodes.get(n);
      for (long k = 0; k < KEYS; k++) {
        Bytes key = Bytes.ofLong(k);
        for (int p : List.of(0, 1, 3)) {
          if (p == owner(k)) {
            assertThat(r.localValue(p, key)).as("node %d, partition %d, key %d", n, p, k)
                .contains(Bytes.ofLong(100 + k));
          } else {
            assertThat(r.localValue(p, key)).as("node %d, partition %d, key %d", n, p, k)
                .isEmpty();
          }
        }
      }
    }
    // the divided copy of node 2 numbers partition 1 as the control does
    assertThat(s.nodes.get(2).numbering(1)).isEqualTo(AT_8_12.upTo(4));
    assertThat(s.nodes.get(2).numbering(3)).isEqualTo(AT_8_12);
    // partition 3 serves its keys, and its backup on node 2 takes the write
    s.request(0, new Request(200, 3, Kind.PUT, Bytes.ofLong(13), null, Bytes.ofLong(7)));
    s.flush();
    assertThat(s.replies).singleElement().extracting(Message.Reply::outcome)
        .isEqualTo(Outcome.OK);
    assertThat(s.nodes.get(2).localValue(3, Bytes.ofLong(13))).contains(Bytes.ofLong(7));
  }

  @Test
  void aPrimaryRefusesAKeyItsRangeNoLongerHoldsAndSaysWhichRangeItHolds() {
    Cluster s = filled();
    s.configure(0, 2, 0, List.of(1, 2), AT_8, Set.of(0, 1, 2));
    s.configure(1, 2, 0, List.of(1, 2), AT_8, Set.of(0, 1, 2));
    s.flush();
    s.request(0, new Request(300, 0, Kind.GET, Bytes.ofLong(9), null, null));
    s.flush();
    assertThat(s.replies).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(r.why()).contains("no longer holds key").contains(AT_8.describe(0));
    });
  }
}
