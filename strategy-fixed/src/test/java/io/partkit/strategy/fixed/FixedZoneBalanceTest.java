package io.partkit.strategy.fixed;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Balance inside unequal zones when zones bind (at least as many replicas as zones, so every
 * zone holds one copy of each partition in the first {@code zones} ranks): each member holds
 * floor or ceil of its weighted share of its zone's copies, primaries stay floor/ceil of the
 * cluster-wide share. Checked on first tables and after every step of seeded join/leave
 * sequences.
 */
class FixedZoneBalanceTest {

  static LongStream seeds() {
    return LongStream.range(0, 48);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void membersShareTheirZonesCopiesByWeight(long seed) {
    Random random = new Random(seed);
    int zones = 2 + random.nextInt(3);
    int replicas = zones + random.nextInt(2);
    boolean weighted = seed % 2 == 1;
    int partitions = random.nextBoolean() ? 512 : 271;
    Partitioner fixed = FixedPartitioner.create(
        PartitionerConfig.of("partitions", partitions, "replicas", replicas));
    List<Member> members = new ArrayList<>();
    int nextId = 0;
    for (int z = 0; z < zones; z++) {
      for (int i = 1 + random.nextInt(5); i > 0; i--) {
        members.add(member(random, nextId++, z, weighted));
      }
    }
    MembershipView view = MembershipView.of(0, members);
    PartitionAssignment table = fixed.assign(view);
    check(seed, -1, table, view, zones);
    for (int step = 0; step < 10; step++) {
      MembershipView next = view;
      int z = random.nextInt(zones);
      List<Member> inZone = view.members().stream().filter(m -> m.zone().equals("z" + z))
          .toList();
      if (inZone.size() > 1 && random.nextBoolean()) {
        next = view.without(inZone.get(random.nextInt(inZone.size())).id());
      } else {
        next = view.with(member(random, nextId++, z, weighted));
      }
      table = fixed.assign(next, Optional.of(table));
      view = next;
      check(seed, step, table, view, zones);
    }
  }

  private static Member member(Random random, int id, int zone, boolean weighted) {
    return new Member(NodeId.of("m" + id), "", weighted ? 1 + random.nextInt(3) : 1, "z" + zone,
        "r" + random.nextInt(2));
  }

  private static void check(long seed, int step, PartitionAssignment a, MembershipView view,
      int zones) {
    int n = view.size();
    int partitions = a.partitionCount();
    int[] primaries = new int[n];
    int[] zoneCopies = new int[n]; // copies at the first `zones` ranks: one per partition per zone
    for (int p = 0; p < partitions; p++) {
      List<NodeId> replicas = a.replicas(p);
      primaries[view.indexOf(replicas.get(0))]++;
      for (int r = 0; r < zones; r++) {
        zoneCopies[view.indexOf(replicas.get(r))]++;
      }
    }
    long total = view.totalWeight();
    for (int i = 0; i < n; i++) {
      Member m = view.member(i);
      long zoneWeight = view.members().stream().filter(o -> o.zone().equals(m.zone()))
          .mapToLong(Member::weight).sum();
      long share = (long) partitions * m.weight();
      assertThat(primaries[i]).as("seed %d step %d: primaries of %s", seed, step, m)
          .isBetween((int) (share / total), (int) ((share + total - 1) / total));
      assertThat(zoneCopies[i]).as("seed %d step %d: copies of %s in its zone (weight %d of %d)",
              seed, step, m, m.weight(), zoneWeight)
          .isBetween((int) (share / zoneWeight), (int) ((share + zoneWeight - 1) / zoneWeight));
    }
  }
}
