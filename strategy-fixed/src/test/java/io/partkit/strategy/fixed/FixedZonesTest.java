package io.partkit.strategy.fixed;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Zone, then rack, spreading of the fixed table's replicas, on first tables and rebalances. */
class FixedZonesTest {

  private static Partitioner fixed(int replicas, boolean zoneAware) {
    return FixedPartitioner.create(PartitionerConfig.of("partitions", 512, "replicas", replicas,
        "zone-aware", zoneAware));
  }

  private static List<Member> cluster(int zones, int racksPerZone, int nodesPerRack) {
    List<Member> list = new ArrayList<>();
    for (int z = 0; z < zones; z++) {
      for (int r = 0; r < racksPerZone; r++) {
        for (int i = 0; i < nodesPerRack; i++) {
          list.add(Member.located("z" + z + "r" + r + "n" + i, "z" + z, "r" + r));
        }
      }
    }
    return list;
  }

  private static void assertSpread(PartitionAssignment a, MembershipView view, int zones,
      int racks, String context) {
    for (int p = 0; p < a.partitionCount(); p++) {
      Set<String> z = new HashSet<>();
      Set<String> r = new HashSet<>();
      for (NodeId id : a.replicas(p)) {
        Member m = view.find(id).orElseThrow();
        z.add(m.zone());
        r.add(m.zone() + "/" + m.rack());
      }
      assertThat(z).as("%s: zones of partition %d", context, p).hasSize(zones);
      assertThat(r).as("%s: racks of partition %d", context, p).hasSize(racks);
    }
  }

  @Test
  void threeReplicasOnThreeZonesStayOnThreeZonesThroughJoinsAndLeaves() {
    MembershipView view = MembershipView.of(0, cluster(3, 2, 2));
    Partitioner p = fixed(3, true);
    PartitionAssignment a = p.assign(view);
    assertSpread(a, view, 3, 3, "first table");
    MembershipView joined = view.with(Member.located("z1r0n9", "z1", "r0"));
    PartitionAssignment b = p.assign(joined, Optional.of(a));
    assertSpread(b, joined, 3, 3, "after a join");
    MembershipView left = joined.without(NodeId.of("z0r1n0"));
    PartitionAssignment c = p.assign(left, Optional.of(b));
    assertSpread(c, left, 3, 3, "after a leave");
    // Zones now hold 3, 5 and 4 members and every zone holds one copy of each partition: per-rank
    // floor/ceil over the whole cluster is infeasible, zones take precedence, and inside each
    // zone the members share its 512 copies floor/ceil (per-zone targets).
    int[] total = new int[left.size()];
    for (int r = 0; r < 3; r++) {
      int[] counts = FixedBalanceTest.rankCounts(c, left, r);
      for (int i = 0; i < total.length; i++) {
        total[i] += counts[i];
      }
    }
    for (String zone : left.zones()) {
      int sum = 0;
      int min = Integer.MAX_VALUE;
      int max = 0;
      for (int i = 0; i < total.length; i++) {
        if (left.member(i).zone().equals(zone)) {
          sum += total[i];
          min = Math.min(min, total[i]);
          max = Math.max(max, total[i]);
        }
      }
      assertThat(sum).as("copies in zone %s", zone).isEqualTo(512);
      assertThat(max - min).as("spread of copies inside zone %s", zone).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void withTwoZonesTheThirdReplicaTakesANewRack() {
    MembershipView view = MembershipView.of(0, cluster(2, 2, 3));
    assertSpread(fixed(3, true).assign(view), view, 2, 3, "2 zones x 2 racks");
  }

  @Test
  void zoneAwarenessCanBeTurnedOff() {
    // one node per zone-less id order: round-robin puts neighbours together regardless of zones
    List<Member> list = List.of(Member.located("a", "z0", "r"), Member.located("b", "z0", "r"),
        Member.located("c", "z1", "r"), Member.located("d", "z1", "r"));
    MembershipView view = MembershipView.of(0, list);
    PartitionAssignment off = fixed(2, false).assign(view);
    assertThat(off.replicas(0)).containsExactly(NodeId.of("a"), NodeId.of("b"));
    PartitionAssignment on = fixed(2, true).assign(view);
    assertThat(on.replicas(0)).containsExactly(NodeId.of("a"), NodeId.of("c"));
  }
}
