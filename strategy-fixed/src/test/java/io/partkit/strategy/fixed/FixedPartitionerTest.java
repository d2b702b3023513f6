package io.partkit.strategy.fixed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.InvalidConfigurationException;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FixedPartitionerTest {

  private static Partitioner fixed(Object... options) {
    return Partitioners.load().create("fixed", PartitionerConfig.of(options));
  }

  @Test
  void isFoundByNameWithHazelcastDefaults() {
    Partitioner p = Partitioners.load().create("fixed");
    assertThat(p.name()).isEqualTo("fixed");
    assertThat(p.fixedPartitionCount()).hasValue(271);
    assertThat(p.replicationFactor()).isEqualTo(1);
    PartitionAssignment a = p.assign(MembershipView.ofEqualNodes("n", 3));
    assertThat(a.scheme()).isEqualTo(HashSlots.of(271));
    assertThat(a.strategy()).isEqualTo("fixed");
    assertThat(a.epoch()).isEqualTo(1);
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(() -> fixed("partitions", 0, "replicas", 9, "zone-aware", "maybe"))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e ->
            assertThat(e.problems()).containsExactlyInAnyOrder(
                "partitions must be in 1..1048576: 0",
                "replicas must be in 1..7: 9",
                "zone-aware must be true or false: 'maybe'"));
  }

  @Test
  void rejectsUnknownOptionListingKnownOnes() {
    assertThatThrownBy(() -> fixed("vnodes", 8))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("unknown option 'vnodes'")
        .hasMessageContaining("[partitions, replicas, zone-aware]");
  }

  @Test
  void firstTableDealsPrimariesRoundRobinInIdOrder() {
    MembershipView view = MembershipView.of(Member.of("c"), Member.of("a"), Member.of("b"));
    PartitionAssignment a = fixed("partitions", 10, "replicas", 2).assign(view);
    for (int p = 0; p < 10; p++) {
      assertThat(a.primary(p)).as("partition %d", p).isEqualTo(view.member(p % 3).id());
    }
    // backups start at the next member; the last one cannot (it would be over target) and the
    // table swaps to keep every member at floor/ceil of backups too
    assertThat(a.replicas(0)).containsExactly(view.member(0).id(), view.member(1).id());
    int[] backups = FixedBalanceTest.rankCounts(a, view, 1);
    assertThat(backups).containsExactlyInAnyOrder(4, 3, 3);
  }

  @Test
  void replicasAreCappedByMemberCount() {
    PartitionAssignment a = fixed("partitions", 16, "replicas", 3)
        .assign(MembershipView.ofEqualNodes("n", 2));
    assertThat(a.replicationFactor()).isEqualTo(2);
  }

  @Test
  void epochFollowsPreviousAndForeignTablesAreIgnored() {
    Partitioner p = fixed("partitions", 64);
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    PartitionAssignment first = p.assign(view).withEpoch(41);
    PartitionAssignment next = p.assign(view, Optional.of(first));
    assertThat(next.epoch()).isEqualTo(42);
    assertThat(next.samePlacementAs(first)).isTrue();
    // another partition count cannot be built on: treated as absent (but the epoch still grows)
    PartitionAssignment other = fixed("partitions", 32).assign(view);
    PartitionAssignment fresh = p.assign(view, Optional.of(other));
    assertThat(fresh.samePlacementAs(p.assign(view))).isTrue();
    assertThat(fresh.epoch()).isEqualTo(2);
  }

  @Test
  void rejectsEmptyView() {
    assertThatThrownBy(() -> fixed().assign(MembershipView.of(0, List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be empty");
  }

  @Test
  void outputDoesNotDependOnListingOrder() {
    List<Member> members = List.of(Member.weighted("x", 2), Member.located("a", "z1", "r1"),
        Member.located("m", "z2", "r1"), Member.of("b"));
    Partitioner p = fixed("partitions", 100, "replicas", 3);
    PartitionAssignment one = p.assign(MembershipView.of(0, members));
    PartitionAssignment two = p.assign(MembershipView.of(0, List.of(members.get(3),
        members.get(1), members.get(0), members.get(2))));
    assertThat(one.samePlacementAs(two)).isTrue();
  }
}
