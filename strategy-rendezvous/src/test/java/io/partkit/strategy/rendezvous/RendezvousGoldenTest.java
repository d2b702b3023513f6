package io.partkit.strategy.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import org.junit.jupiter.api.Test;

/**
 * Golden values pinning the persisted format of rendezvous placement (the score formula in
 * {@link RendezvousHashing}, HashSlots key -> partition, the top-k rule, bounded-load caps).
 *
 * <p>How they were obtained: computed once by this implementation (commit introducing this
 * test), after checking the formula by hand against its documentation, and written in here.
 * If any of them changes, placement changed for existing clusters: that is a format break.
 * Do not update the values; add a new option value or strategy instead.
 */
class RendezvousGoldenTest {

  private static final MembershipView FIVE = MembershipView.ofEqualNodes("node-", 5);

  @Test
  void scoreInputsArePinned() {
    // SplitMix64 seeded with 0 returns mix64(0x9e3779b97f4a7c15) first: 0xe220a8397b1dcdaf is
    // that generator's published first output (an independent check of the mixer)
    assertThat(HrwNodes.mix64(0x9e3779b97f4a7c15L)).isEqualTo(0xe220a8397b1dcdafL);
    assertThat(HrwNodes.u(NodeId.of("node-0"), 0, 0)).isEqualTo(GOLDEN_U_NODE0_ITEM0);
    assertThat(HrwNodes.u(NodeId.of("node-0"), 0, 42)).isEqualTo(GOLDEN_U_NODE0_ITEM0_SEED42);
    assertThat(HrwNodes.score(3, GOLDEN_U_NODE0_ITEM0)).isEqualTo(GOLDEN_SCORE_W3);
    // the documented formula, written out: h = ((u >>> 11) + 0.5) / 2^53, score = w / -ln(h)
    double h = ((GOLDEN_U_NODE0_ITEM0 >>> 11) + 0.5) / 9007199254740992.0;
    assertThat(3 / -StrictMath.log(h)).isEqualTo(GOLDEN_SCORE_W3);
  }

  @Test
  void perKeyOwnersArePinned() {
    RendezvousHashing hrw = RendezvousHashing.of(FIVE);
    long[] keys = {0, 1, 42, -7, Long.MAX_VALUE};
    String[] owners = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      owners[i] = hrw.primary(keys[i]).value();
    }
    assertThat(owners).containsExactly(GOLDEN_KEY_OWNERS);
    NodeId[] out = new NodeId[3];
    hrw.topK(42, 3, out);
    assertThat(out).extracting(NodeId::value).containsExactly(GOLDEN_TOP3_OF_42);
  }

  @Test
  void partitionTablesArePinned() {
    PartitionAssignment plain = RendezvousPartitioner.create(PartitionerConfig.of(
        "partitions", 1024, "replicas", 2)).assign(FIVE);
    assertThat(plain.partitionOf("key")).isEqualTo(GOLDEN_PARTITION_OF_KEY);
    assertThat(plain.partitionOf("user-42")).isEqualTo(GOLDEN_PARTITION_OF_USER42);
    assertThat(plain.replicas(0)).extracting(NodeId::value).containsExactly(GOLDEN_P0);
    assertThat(plain.replicas(1023)).extracting(NodeId::value).containsExactly(GOLDEN_P1023);
    MembershipView weighted = MembershipView.of(Member.weighted("a", 1),
        Member.weighted("b", 3), Member.located("c", "z1", "r1"));
    PartitionAssignment bounded = RendezvousPartitioner.create(PartitionerConfig.of(
        "partitions", 64, "load-bound", 1.1)).assign(weighted);
    StringBuilder sb = new StringBuilder();
    for (int p = 0; p < 16; p++) {
      sb.append(bounded.primary(p).value());
    }
    assertThat(sb.toString()).isEqualTo(GOLDEN_BOUNDED_FIRST16);
  }

  // ---- the pinned values (see the class comment: never edit) ----
  private static final long GOLDEN_U_NODE0_ITEM0 = -1453136066156210681L;
  private static final long GOLDEN_U_NODE0_ITEM0_SEED42 = -4787368884415174628L;
  /** h = 0.9212...; 3 / -ln(h) = 36.56. */
  private static final double GOLDEN_SCORE_W3 = 36.562800297140434;
  private static final String[] GOLDEN_KEY_OWNERS = {
      "node-0", "node-4", "node-1", "node-4", "node-2"};
  private static final String[] GOLDEN_TOP3_OF_42 = {"node-1", "node-4", "node-0"};
  private static final int GOLDEN_PARTITION_OF_KEY = 131;
  private static final int GOLDEN_PARTITION_OF_USER42 = 820;
  private static final String[] GOLDEN_P0 = {"node-0", "node-1"};
  private static final String[] GOLDEN_P1023 = {"node-0", "node-3"};
  /** Caps a: 14, b: 42, c: 14 of 64; b (weight 3) wins most. */
  private static final String GOLDEN_BOUNDED_FIRST16 = "ababcbbbbbbcabbc";
}
