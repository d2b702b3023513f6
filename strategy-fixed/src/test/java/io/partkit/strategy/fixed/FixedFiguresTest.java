package io.partkit.strategy.fixed;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.util.ArrayList;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The figures quoted in docs/strategy-fixed.md, printed and checked against the issue's
 * done-when bounds. Reproduce with: {@code ./mvnw -q -pl strategy-fixed -am verify
 * -Dtest=FixedFiguresTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class FixedFiguresTest {

  private static void print(String format, Object... args) {
    System.out.println(String.format(Locale.ROOT, format, args));
  }

  @Test
  void balanceOn100Nodes() {
    MembershipView view = MembershipView.ofEqualNodes("node-", 100);
    PartitionAssignment a = FixedPartitioner.create(PartitionerConfig.of("partitions", 1024))
        .assign(view);
    PlacementStatistics stats = PlacementStatistics.of(a, view);
    double best = PlacementStatistics.bestMaxOverAvg(1024, 100);
    print("fixed 1024 partitions / 100 nodes: partitions max/avg = %.4f (optimum %.4f), "
            + "min %d, max %d", stats.primaryPartitionsMaxOverAvg(), best,
        stats.minPrimaryPartitions(), stats.maxPrimaryPartitions());
    assertThat(stats.primaryPartitionsMaxOverAvg()).isEqualTo(best);
  }

  @Test
  void movementOnOneJoin() {
    for (int replicas : new int[] {1, 2}) {
      for (int n : new int[] {10, 100}) {
        Partitioner p = FixedPartitioner.create(
            PartitionerConfig.of("partitions", 1024, "replicas", replicas));
        MembershipView before = MembershipView.ofEqualNodes("node-", n);
        MembershipView after = before.with(Member.of("joiner"));
        PartitionAssignment a = p.assign(before);
        Movement m = Movement.between(a, before, p.assign(after, Optional.of(a)), after);
        print("fixed replicas %d, join %d -> %d: moved %.4f of keys, optimum %.4f, ratio %.3f, "
                + "primaries between staying %.4f, new copies on staying %.4f", replicas, n,
            n + 1, m.primaryMovedShare(), m.optimalShare(), m.primaryMovedOverOptimal(),
            m.primaryMovedBetweenStayingShare(), m.replicaCopiesToStayingShare());
        assertThat(m.primaryMovedOverOptimal()).isLessThanOrEqualTo(1.10);
        assertThat(m.primaryMovedBetweenStayingShare()).isZero();
      }
    }
  }

  /**
   * The unequal-zone figure: zones of 3, 5 and 4 equal members (the rebalanced cluster of
   * {@code FixedZonesTest}), 3 replicas, 512 partitions. Each zone holds one copy of every
   * partition; its members share them floor/ceil (512/3, 512/5, 512/4).
   */
  @Test
  void copiesInsideUnequalZones() {
    List<Member> members = new ArrayList<>();
    int[] sizes = {3, 5, 4};
    for (int z = 0; z < sizes.length; z++) {
      for (int i = 0; i < sizes[z]; i++) {
        members.add(Member.located("z" + z + "n" + i, "z" + z, "r" + (i % 2)));
      }
    }
    MembershipView view = MembershipView.of(0, members);
    Partitioner p = FixedPartitioner.create(PartitionerConfig.of("partitions", 512, "replicas", 3));
    PartitionAssignment a = p.assign(view);
    int[] copies = new int[view.size()];
    for (int part = 0; part < 512; part++) {
      for (NodeId id : a.replicas(part)) {
        copies[view.indexOf(id)]++;
      }
    }
    for (int z = 0; z < sizes.length; z++) {
      String zone = "z" + z;
      IntSummaryStatistics inZone = IntStream.range(0, view.size())
          .filter(i -> view.member(i).zone().equals(zone)).map(i -> copies[i])
          .summaryStatistics();
      print("fixed 512 partitions, 3 replicas, zones of 3/5/4 members: zone %s (%d members) "
              + "copies min %d max %d (share %.1f)", zone, inZone.getCount(), inZone.getMin(),
          inZone.getMax(), 512.0 / inZone.getCount());
      assertThat(inZone.getMax() - inZone.getMin()).as("spread in zone %s", zone)
          .isLessThanOrEqualTo(1);
      assertThat(inZone.getSum()).as("copies in zone %s", zone).isEqualTo(512);
    }
    PartitionAssignment again = p.assign(view, Optional.of(a));
    assertThat(again.samePlacementAs(a)).isTrue();
  }

  /**
   * A join into a zone when zones bind (4/4/4 equal members, 3 replicas, 1024 partitions, a
   * fifth member joins zone z0): primaries move only to the joiner; each zone still holds one
   * copy of every partition, so the joiner's zone gives it copies, and the partitions whose
   * primary moved into z0 need their zone-z0 copy elsewhere: some copies move between staying
   * members, which no zone-respecting table can avoid.
   */
  @Test
  void joinIntoAZoneWhenZonesBind() {
    List<Member> members = new ArrayList<>();
    for (int z = 0; z < 3; z++) {
      for (int i = 0; i < 4; i++) {
        members.add(Member.located("z" + z + "n" + i, "z" + z, "r" + (i % 2)));
      }
    }
    MembershipView before = MembershipView.of(0, members);
    MembershipView after = before.with(Member.located("z0n9", "z0", "r0"));
    Partitioner p = FixedPartitioner.create(
        PartitionerConfig.of("partitions", 1024, "replicas", 3));
    PartitionAssignment a = p.assign(before);
    PartitionAssignment b = p.assign(after, Optional.of(a));
    Movement m = Movement.between(a, before, b, after);
    print("fixed 1024 partitions, 3 replicas, zones 4/4/4 -> 5/4/4: primaries moved %.4f "
            + "(optimum %.4f), primaries between staying %.4f, new copies on staying %.4f",
        m.primaryMovedShare(), m.optimalShare(), m.primaryMovedBetweenStayingShare(),
        m.replicaCopiesToStayingShare());
    assertThat(m.primaryMovedBetweenStayingShare()).isZero();
    assertThat(m.primaryMovedOverOptimal()).isLessThanOrEqualTo(1.10);
  }
}
