package io.partkit.strategy.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.InvalidConfigurationException;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Seeded properties of plain and bounded-load rendezvous, per partition and per key. */
class RendezvousPropertiesTest {

  private static Partitioner rendezvous(Object... options) {
    return Partitioners.load().create("rendezvous", PartitionerConfig.of(options));
  }

  static LongStream seeds() {
    return LongStream.range(0, 12);
  }

  private static List<Member> members(Random random, int n, boolean weighted, int[] nextId) {
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(Member.weighted("m" + nextId[0]++, weighted ? 1 + random.nextInt(4) : 1));
    }
    return list;
  }

  /** Plain HRW: a join moves copies only to the joiner, a leave only off the leaver, exactly. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void plainRendezvousMovesOnlyToJoinerAndOffLeaver(long seed) {
    Random random = new Random(seed);
    int replicas = 1 + random.nextInt(3);
    Partitioner p = rendezvous("partitions", 512, "replicas", replicas, "seed", seed);
    int[] nextId = {0};
    MembershipView view = MembershipView.of(0, members(random, 4 + random.nextInt(30),
        seed % 2 == 0, nextId));
    PartitionAssignment table = p.assign(view);
    for (int step = 0; step < 10; step++) {
      boolean join = view.size() <= 4 || random.nextBoolean();
      MembershipView next = join
          ? view.with(members(random, 1, seed % 2 == 0, nextId).get(0))
          : view.without(view.member(random.nextInt(view.size())).id());
      PartitionAssignment after = p.assign(next, Optional.of(table));
      Set<NodeId> changed = new HashSet<>(join ? next.ids() : view.ids());
      changed.removeAll(join ? view.ids() : next.ids());
      for (int part = 0; part < after.partitionCount(); part++) {
        Set<NodeId> gained = new HashSet<>(after.replicas(part));
        gained.removeAll(table.replicas(part));
        Set<NodeId> lost = new HashSet<>(table.replicas(part));
        lost.removeAll(after.replicas(part));
        String context = "seed " + seed + " step " + step + " partition " + part;
        if (join) {
          assertThat(gained).as(context).isSubsetOf(changed);
        } else {
          // a copy is added only to replace the leaver's
          assertThat(gained.isEmpty() || lost.equals(changed)).as(context).isTrue();
          assertThat(gained).as(context).hasSameSizeAs(lost);
        }
      }
      table = after;
      view = next;
    }
  }

  /** A member of weight w wins about w/W of the keys, per key. */
  @Test
  void weightsGiveProportionalShares() {
    MembershipView view = MembershipView.of(Member.weighted("a", 1), Member.weighted("b", 2),
        Member.weighted("c", 3), Member.weighted("d", 4));
    RendezvousHashing hrw = RendezvousHashing.of(view);
    int[] wins = new int[4];
    Random random = new Random(7);
    int keys = 200_000;
    for (int i = 0; i < keys; i++) {
      wins[view.indexOf(hrw.primary(random.nextLong()))]++;
    }
    for (int i = 0; i < 4; i++) {
      assertThat(wins[i] / (double) keys).as("member %s", view.member(i))
          .isCloseTo((i + 1) / 10.0, org.assertj.core.data.Offset.offset(0.005));
    }
  }

  /** Per-key topK agrees with the partition table when the item is the partition number. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void perKeyTopKMatchesThePartitionTable(long seed) {
    Random random = new Random(seed);
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < 5 + random.nextInt(20); i++) {
      list.add(new Member(NodeId.of("n" + i), "", 1 + random.nextInt(3),
          "z" + random.nextInt(3), "r" + random.nextInt(2)));
    }
    MembershipView view = MembershipView.of(0, list);
    PartitionAssignment table = rendezvous("partitions", 256, "replicas", 3, "seed", seed)
        .assign(view);
    RendezvousHashing hrw = RendezvousHashing.of(view, seed, true);
    NodeId[] out = new NodeId[3];
    for (int part = 0; part < 256; part++) {
      assertThat(hrw.topK(part, 3, out)).isEqualTo(3);
      assertThat(List.of(out)).as("seed %d partition %d", seed, part)
          .isEqualTo(table.replicas(part));
      assertThat(hrw.primary(part)).isEqualTo(out[0]);
    }
  }

  @Test
  void replicasSpreadOverZonesThenRacks() {
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      list.add(Member.located("n" + i, "z" + (i % 2), "r" + (i % 3)));
    }
    MembershipView view = MembershipView.of(0, list);
    RendezvousHashing hrw = RendezvousHashing.of(view);
    NodeId[] out = new NodeId[4];
    Random random = new Random(3);
    for (int i = 0; i < 2_000; i++) {
      hrw.topK(random.nextLong(), 4, out);
      Set<String> zones = new HashSet<>();
      Set<String> racks = new HashSet<>();
      for (NodeId id : out) {
        Member m = view.find(id).orElseThrow();
        zones.add(m.zone());
        racks.add(m.zone() + "/" + m.rack());
      }
      assertThat(zones).hasSize(2);
      assertThat(racks).as("2 zones x 3 racks offer 4 distinct racks").hasSize(4);
      // the first two replicas are on different zones
      assertThat(view.find(out[0]).orElseThrow().zone())
          .isNotEqualTo(view.find(out[1]).orElseThrow().zone());
    }
  }

  @Test
  void topKRejectsBadArguments() {
    RendezvousHashing hrw = RendezvousHashing.of(MembershipView.ofEqualNodes("n", 3));
    assertThatThrownBy(() -> hrw.topK(1, 0, new NodeId[3]))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("k must be >= 1: 0");
    assertThatThrownBy(() -> hrw.topK(1, 3, new NodeId[2]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("out must hold at least 3 members: 2");
    assertThat(hrw.topK(1, 5, new NodeId[3])).isEqualTo(3);
    assertThatThrownBy(() -> RendezvousHashing.of(MembershipView.of(0, List.of())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** Lookups allocate nothing: 200k lookups allocate less than one byte each on this thread. */
  @Test
  void lookupsDoNotAllocate() {
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      list.add(new Member(NodeId.of("n" + i), "", 1 + i % 3, "z" + i % 3, "r" + i % 2));
    }
    RendezvousHashing hrw = RendezvousHashing.of(MembershipView.of(0, list));
    NodeId[] out = new NodeId[3];
    var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    long sink = 0;
    for (int i = 0; i < 20_000; i++) { // warm up (class loading, JIT) outside the measurement
      sink += hrw.primary(i).hashCode() + hrw.topK(i, 3, out);
    }
    long before = bean.getThreadAllocatedBytes(thread);
    for (int i = 0; i < 100_000; i++) {
      sink += hrw.primary(i * 31L).value().length() + hrw.topK(i * 17L, 3, out);
    }
    long allocated = bean.getThreadAllocatedBytes(thread) - before;
    assertThat(sink).isPositive();
    assertThat(allocated).as("bytes allocated by 200k lookups").isLessThan(200_000);
  }

  /** Bounded loads: max/avg within max(c, ceil(avg)/avg) on random clusters, weighted too. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void boundedLoadCapsEveryMember(long seed) {
    Random random = new Random(seed);
    double c = 1.0 + random.nextInt(30) / 100.0;
    int replicas = 1 + random.nextInt(2);
    int partitions = 1024;
    Partitioner p = rendezvous("partitions", partitions, "load-bound", c, "replicas", replicas);
    MembershipView view = MembershipView.of(0, members(random, 5 + random.nextInt(150),
        seed % 3 == 0, new int[] {0}));
    PlacementStatistics stats = PlacementStatistics.of(p.assign(view), view);
    long total = view.totalWeight();
    int[] caps = RendezvousPartitioner.caps(view, partitions, c);
    for (int i = 0; i < view.size(); i++) {
      assertThat(stats.loads().get(i).primaryPartitions()).as("seed %d member %d", seed, i)
          .isLessThanOrEqualTo(caps[i]);
      long share = (long) partitions * view.member(i).weight();
      assertThat((long) caps[i]).as("seed %d cap %d", seed, i)
          .isLessThanOrEqualTo(Math.max((share + total - 1) / total, (long) (c * share / total)));
    }
    if (seed % 3 != 0) {
      assertThat(stats.primaryPartitionsMaxOverAvg()).as("seed %d, c %.2f", seed, c)
          .isLessThanOrEqualTo(Math.max(c,
              PlacementStatistics.bestMaxOverAvg(partitions, view.size())) + 1e-9);
    }
  }

  /**
   * What bounded loads move on a join, measured and printed per seed. The caps depend on the
   * member count, so when a join lowers them (floor(c * P / n) drops by one) partitions cascade
   * between staying members; the worst seen over these seeds is about 3x the optimum in total and
   * 3.8% of the key space between staying members (seed 7, 56 -> 57 members). The bounds below
   * are the ones docs/strategy-rendezvous.md states.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void boundedLoadJoinMovesAreMeasuredAndBounded(long seed) {
    Random random = new Random(seed);
    Partitioner p = rendezvous("partitions", 1024, "load-bound", 1.10);
    MembershipView before = MembershipView.of(0, members(random, 10 + random.nextInt(110),
        false, new int[] {0}));
    MembershipView after = before.with(Member.of("joiner"));
    PartitionAssignment a = p.assign(before);
    Movement m = Movement.between(a, before, p.assign(after, Optional.of(a)), after);
    System.out.printf(java.util.Locale.ROOT,
        "bounded 1.10 seed %d join %d -> %d: moved %.2fx optimum, between staying %.4f%n",
        seed, before.size(), after.size(), m.primaryMovedOverOptimal(),
        m.primaryMovedBetweenStayingShare());
    assertThat(m.primaryMovedShare()).as("seed %d: %s", seed, m)
        .isLessThanOrEqualTo(4.0 * m.optimalShare());
    assertThat(m.primaryMovedBetweenStayingShare()).as("seed %d: %s", seed, m)
        .isLessThanOrEqualTo(0.05);
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(() -> rendezvous("partitions", 0, "replicas", 9, "load-bound", 0.5,
        "vnodes", 3))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e ->
            assertThat(e.problems()).containsExactlyInAnyOrder(
                "partitions must be in 1..1048576: 0",
                "replicas must be in 1..7: 9",
                "load-bound must be in 1.0..100.0: 0.5",
                "unknown option 'vnodes'; known options: "
                    + "[partitions, replicas, seed, zone-aware, load-bound]"));
  }

  @Test
  void defaultsFollowIgnite() {
    Partitioner p = rendezvous();
    assertThat(p.fixedPartitionCount()).hasValue(1024);
    assertThat(p.replicationFactor()).isEqualTo(1);
    assertThat(p.assign(MembershipView.ofEqualNodes("n", 2)).strategy()).isEqualTo("rendezvous");
  }
}
