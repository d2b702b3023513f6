package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ValuesTest {

  private static NodeId n(String id) {
    return NodeId.of(id);
  }

  @Test
  void nodeIdsAreValidated() {
    assertThatThrownBy(() -> NodeId.of(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> NodeId.of("a\nb")).hasMessageContaining("control characters");
    assertThatThrownBy(() -> NodeId.of("x".repeat(257))).hasMessageContaining("at most 256");
  }

  @Test
  void memberWeightIsValidated() {
    assertThatThrownBy(() -> Member.weighted("a", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("weight of a must be in 1..1000: 0");
  }

  @Test
  void viewsSortMembersAndNameEveryDuplicate() {
    MembershipView view = MembershipView.of(Member.of("c"), Member.of("a"), Member.of("b"));
    assertThat(view.ids()).containsExactly(n("a"), n("b"), n("c"));
    assertThat(view.indexOf(n("b"))).isEqualTo(1);
    assertThat(view.indexOf(n("zz"))).isNegative();
    assertThatThrownBy(() -> MembershipView.of(Member.of("a"), Member.of("b"), Member.of("a"),
        Member.of("b"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicated: [a, b]");
  }

  @Test
  void viewChangesBumpTheVersion() {
    MembershipView view = MembershipView.ofEqualNodes("n", 12);
    assertThat(view.ids().get(0)).isEqualTo(n("n00"));
    MembershipView more = view.with(Member.weighted("n05", 3));
    assertThat(more.version()).isEqualTo(1);
    assertThat(more.size()).isEqualTo(12);
    assertThat(more.find(n("n05")).orElseThrow().weight()).isEqualTo(3);
    assertThat(more.totalWeight()).isEqualTo(14);
    MembershipView less = more.without(n("n00"));
    assertThat(less.version()).isEqualTo(2);
    assertThat(less.contains(n("n00"))).isFalse();
    assertThatThrownBy(() -> less.without(n("n00"))).hasMessageContaining("no member n00");
  }

  @Test
  void assignmentsRouteThroughTheirTable() {
    PartitionAssignment a = PartitionAssignment.of("test", 3, 1, HashSlots.of(4), List.of(
        List.of(n("a"), n("b")), List.of(n("b"), n("c")), List.of(n("c"), n("a")),
        List.of(n("a"), n("c"))));
    assertThat(a.nodes()).containsExactly(n("a"), n("b"), n("c"));
    assertThat(a.replicationFactor()).isEqualTo(2);
    assertThat(a.primary(1)).isEqualTo(n("b"));
    assertThat(a.replica(2, 1)).isEqualTo(n("a"));
    assertThat(a.primaryPartitionsOf(n("a"))).containsExactly(0, 3);
    for (long key = 0; key < 1000; key++) {
      assertThat(a.primaryOf(key)).isEqualTo(a.replicas(a.partitionOf(key)).get(0));
    }
    PartitionAssignment later = a.withEpoch(9);
    assertThat(later.epoch()).isEqualTo(9);
    assertThat(later.samePlacementAs(a)).isTrue();
    assertThat(later).isNotEqualTo(a);
  }

  @Test
  void assignmentsRejectMalformedTables() {
    HashSlots two = HashSlots.of(2);
    assertThatThrownBy(() -> PartitionAssignment.of("t", 1, 0, two, List.of(List.of(n("a")))))
        .hasMessage("expected replicas for 2 partitions, got 1");
    assertThatThrownBy(() -> PartitionAssignment.of("t", 1, 0, two,
        List.of(List.of(n("a"), n("b")), List.of(n("a")))))
        .hasMessage("partition 1 has 1 replicas, expected 2 like partition 0");
    assertThatThrownBy(() -> PartitionAssignment.of("t", 1, 0, two,
        List.of(List.of(n("a")), List.of(n("b"), n("b")))))
        .hasMessageContaining("partition 1");
    assertThatThrownBy(() -> PartitionAssignment.of("t", 1, 0, two,
        List.of(List.of(n("a"), n("a")), List.of(n("b"), n("c")))))
        .hasMessage("partition 0 lists node a twice: [a, a]");
    assertThatThrownBy(() -> PartitionAssignment.of("t", -1, 0, two,
        List.of(List.of(n("a")), List.of(n("b"))))).hasMessage("epoch must be >= 0: -1");
  }

  @Test
  void migrationsCannotGoNowhere() {
    assertThatThrownBy(() -> new Migration(3, n("a"), n("a"), 2))
        .hasMessage("partition 3 cannot migrate from a to itself");
    assertThatThrownBy(() -> new Migration(3, List.of(n("a"), n("b")), List.of(n("a"), n("b")), 2))
        .hasMessage("partition 3 cannot migrate from [a, b] to the same replicas");
    assertThatThrownBy(() -> new Migration(3, List.of(n("a")), List.of(n("b"), n("b")), 2))
        .hasMessage("partition 3 names a node twice among its target replicas: [b, b]");
    assertThatThrownBy(() -> new Migration(3, List.of(), List.of(n("b")), 2))
        .hasMessage("partition 3 needs at least one source replica");
  }

  @Test
  void aMigrationOfTheBackupsKeepsItsPrimary() {
    Migration m = new Migration(3, List.of(n("a"), n("b")), List.of(n("a"), n("c")), 2);
    assertThat(m.source()).isEqualTo(n("a"));
    assertThat(m.target()).isEqualTo(n("a"));
    assertThat(m.movesPrimary()).isFalse();
    assertThat(new Migration(3, n("a"), n("b"), 2).movesPrimary()).isTrue();
    assertThat(new Migration(3, n("a"), n("b"), 2))
        .isEqualTo(new Migration(3, List.of(n("a")), List.of(n("b")), 2));
  }
}
