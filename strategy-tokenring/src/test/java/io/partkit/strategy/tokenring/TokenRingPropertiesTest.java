package io.partkit.strategy.tokenring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.spi.TokenRanges;
import io.partkit.stats.Movement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Seeded properties of the ring, for both token choosers, and golden values. */
class TokenRingPropertiesTest {

  private static final long[] SEEDS = {1, 2, 3, 42, 2024};

  static Stream<Arguments> choosersAndSeeds() {
    List<Arguments> list = new ArrayList<>();
    for (String chooser : List.of("allocator", "random")) {
      for (long seed : SEEDS) {
        list.add(Arguments.of(chooser, seed));
      }
    }
    return list.stream();
  }

  private static Partitioner ring(String chooser, int vnodes, int replicas) {
    return Partitioners.load().create("tokenring", PartitionerConfig.of("tokens", chooser,
        "vnodes", vnodes, "replicas", replicas, "seed", 11));
  }

  private static List<Member> members(Random random, int n, String prefix) {
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(Member.of(prefix + Long.toHexString(random.nextLong())));
    }
    return list;
  }

  /** Each node's tokens: the token of partition i belongs to its primary. */
  private static Map<NodeId, Set<Long>> tokensByNode(PartitionAssignment a) {
    TokenRanges ranges = (TokenRanges) a.scheme();
    Map<NodeId, Set<Long>> map = new TreeMap<>();
    for (int p = 0; p < a.partitionCount(); p++) {
      map.computeIfAbsent(a.primary(p), k -> new TreeSet<>()).add(ranges.token(p));
    }
    return map;
  }

  /** Checks on sampled hashes that every key whose primary changed moved to an allowed node. */
  private static void assertPrimariesMoveOnlyTo(PartitionAssignment before,
      PartitionAssignment after, Set<NodeId> allowedTargets, Set<NodeId> allowedSources,
      Random random, String context) {
    for (int i = 0; i < 20_000; i++) {
      long hash = random.nextLong();
      NodeId was = before.primary(before.partitionOfHash(hash));
      NodeId is = after.primary(after.partitionOfHash(hash));
      if (!was.equals(is)) {
        assertThat(allowedTargets.contains(is) || allowedSources.contains(was))
            .as("%s: hash %d moved %s -> %s", context, hash, was, is).isTrue();
      }
    }
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void aJoinMovesDataOnlyToTheJoinerAndKeepsEveryToken(String chooser, long seed) {
    Random random = new Random(seed);
    for (int replicas : new int[] {1, 3}) {
      Partitioner p = ring(chooser, 16, replicas);
      MembershipView before = MembershipView.of(0, members(random, 2 + random.nextInt(40), "n-"));
      PartitionAssignment a = p.assign(before);
      Member joiner = Member.weighted("joiner", 1 + random.nextInt(3));
      MembershipView after = before.with(joiner);
      PartitionAssignment b = p.assign(after, Optional.of(a));
      String context = "seed " + seed + ", " + chooser + ", rf " + replicas;

      Map<NodeId, Set<Long>> tokensBefore = tokensByNode(a);
      Map<NodeId, Set<Long>> tokensAfter = tokensByNode(b);
      tokensBefore.forEach((node, tokens) ->
          assertThat(tokensAfter.get(node)).as("%s: tokens of %s", context, node)
              .isEqualTo(tokens));
      assertThat(tokensAfter.get(joiner.id())).as(context)
          .hasSize(joiner.weight() * 16);

      Movement m = Movement.between(a, before, b, after);
      assertThat(m.primaryMovedBetweenStayingShare()).as("%s: %s", context, m).isZero();
      // without labels the ring walk only ever copies data to the joiner
      assertThat(m.replicaCopiesToStayingShare()).as("%s: %s", context, m).isZero();
      assertPrimariesMoveOnlyTo(a, b, Set.of(joiner.id()), Set.of(), random, context);
    }
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void aLeaveMovesOnlyTheLeaversDataAndKeepsEveryOtherToken(String chooser, long seed) {
    Random random = new Random(seed);
    Partitioner p = ring(chooser, 16, 2);
    MembershipView before = MembershipView.of(0, members(random, 3 + random.nextInt(40), "n-"));
    PartitionAssignment a = p.assign(before);
    NodeId leaver = before.member(random.nextInt(before.size())).id();
    MembershipView after = before.without(leaver);
    PartitionAssignment b = p.assign(after, Optional.of(a));
    String context = "seed " + seed + ", " + chooser;

    Map<NodeId, Set<Long>> tokensBefore = tokensByNode(a);
    tokensBefore.remove(leaver);
    assertThat(tokensByNode(b)).as(context).isEqualTo(tokensBefore);
    Movement m = Movement.between(a, before, b, after);
    assertThat(m.primaryMovedBetweenStayingShare()).as("%s: %s", context, m).isZero();
    assertThat(m.primaryMovedShare()).as("%s: %s", context, m)
        .isCloseTo(a.primaryPartitionsOf(leaver).length == 0 ? 0
            : shareOf(a, leaver), org.assertj.core.data.Offset.offset(1e-9));
    assertPrimariesMoveOnlyTo(a, b, Set.of(), Set.of(leaver), random, context);
  }

  private static double shareOf(PartitionAssignment a, NodeId node) {
    double share = 0;
    for (int p : a.primaryPartitionsOf(node)) {
      share += a.scheme().share(p);
    }
    return share;
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void randomJoinsAndLeavesNeverChangeTheTokensOfMembersThatStay(String chooser, long seed) {
    Random random = new Random(seed);
    Partitioner p = ring(chooser, 8, 1);
    MembershipView view = MembershipView.of(0, members(random, 1 + random.nextInt(5), "n-"));
    PartitionAssignment current = p.assign(view);
    for (int step = 0; step < 40; step++) {
      MembershipView next;
      if (view.size() > 1 && random.nextInt(3) == 0) {
        next = view.without(view.member(random.nextInt(view.size())).id());
      } else {
        Member m = Member.of("j" + step + "-" + Long.toHexString(random.nextLong()));
        next = view.with(random.nextBoolean() ? m : m.withWeight(1 + random.nextInt(4)));
      }
      PartitionAssignment updated = p.assign(next, Optional.of(current));
      String context = "seed " + seed + ", " + chooser + ", step " + step;
      Map<NodeId, Set<Long>> before = tokensByNode(current);
      Map<NodeId, Set<Long>> after = tokensByNode(updated);
      for (Member member : next.members()) {
        assertThat(after.get(member.id())).as("%s: %s", context, member.id())
            .hasSize(member.weight() * 8);
        if (before.containsKey(member.id())) {
          assertThat(after.get(member.id())).as("%s: %s", context, member.id())
              .isEqualTo(before.get(member.id()));
        }
      }
      view = next;
      current = updated;
    }
    if (chooser.equals("random")) {
      // random tokens are a function of the membership alone: history does not matter
      assertThat(current.samePlacementAs(p.assign(view))).as("seed %d", seed).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void aWeightChangeMovesTokensOnlyOfThatMember(String chooser, long seed) {
    Random random = new Random(seed);
    Partitioner p = ring(chooser, 16, 1);
    MembershipView before = MembershipView.of(0, members(random, 5 + random.nextInt(10), "n-"));
    PartitionAssignment a = p.assign(before);
    Member changed = before.member(random.nextInt(before.size()));
    for (int weight : new int[] {3, 1}) {
      MembershipView after = before.with(changed.withWeight(weight));
      PartitionAssignment b = p.assign(after, Optional.of(a));
      Map<NodeId, Set<Long>> tokensBefore = tokensByNode(a);
      Map<NodeId, Set<Long>> tokensAfter = tokensByNode(b);
      assertThat(tokensAfter.get(changed.id())).as("seed %d", seed).hasSize(16 * weight);
      for (Member m : before.members()) {
        if (!m.id().equals(changed.id())) {
          assertThat(tokensAfter.get(m.id())).as("seed %d", seed)
              .isEqualTo(tokensBefore.get(m.id()));
        }
      }
      a = b;
      before = after;
    }
  }

  // ---- replica walk ---------------------------------------------------------------------

  /** The reference walks, written independently of ReplicaWalk. */
  private static List<NodeId> plainWalk(PartitionAssignment a, int partition, int rf) {
    LinkedHashSet<NodeId> found = new LinkedHashSet<>();
    for (int i = 0; found.size() < rf; i++) {
      found.add(a.primary((partition + i) % a.partitionCount()));
    }
    return List.copyOf(found);
  }

  /** Cassandra's NetworkTopologyStrategy rack rule for one data center, as its docs state it. */
  private static List<NodeId> ntsWalk(PartitionAssignment a, int partition, int rf,
      Map<NodeId, String> rackOf) {
    int racks = new HashSet<>(rackOf.values()).size();
    List<NodeId> replicas = new ArrayList<>();
    Set<String> seenRacks = new HashSet<>();
    List<NodeId> skipped = new ArrayList<>();
    for (int i = 0; replicas.size() < rf; i++) {
      NodeId node = a.primary((partition + i) % a.partitionCount());
      if (replicas.contains(node) || skipped.contains(node)) {
        continue;
      }
      if (seenRacks.size() == racks) {
        replicas.add(node);
      } else if (seenRacks.add(rackOf.get(node))) {
        replicas.add(node);
        if (seenRacks.size() == racks) {
          for (NodeId s : skipped) {
            if (replicas.size() < rf) {
              replicas.add(s);
            }
          }
        }
      } else {
        skipped.add(node);
      }
    }
    return replicas;
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void withoutLabelsReplicasAreTheFirstDistinctNodesClockwise(String chooser, long seed) {
    Random random = new Random(seed);
    int rf = 1 + random.nextInt(7);
    MembershipView view = MembershipView.of(0, members(random, 3 + random.nextInt(20), "n-"));
    PartitionAssignment a = ring(chooser, 4, rf).assign(view);
    int expectedRf = Math.min(rf, view.size());
    for (int p = 0; p < a.partitionCount(); p++) {
      assertThat(a.replicas(p)).as("seed %d, partition %d", seed, p)
          .isEqualTo(plainWalk(a, p, expectedRf));
    }
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void inOneZoneReplicasFollowNetworkTopologyStrategysRackRule(String chooser, long seed) {
    Random random = new Random(seed);
    int racks = 2 + random.nextInt(4);
    List<Member> list = new ArrayList<>();
    Map<NodeId, String> rackOf = new HashMap<>();
    for (int i = 0; i < 6 + random.nextInt(20); i++) {
      String rack = "r" + random.nextInt(racks);
      Member m = Member.located("n-" + Long.toHexString(random.nextLong()), "dc1", rack);
      list.add(m);
      rackOf.put(m.id(), rack);
    }
    int rf = 3;
    PartitionAssignment a = ring(chooser, 8, rf).assign(MembershipView.of(0, list));
    for (int p = 0; p < a.partitionCount(); p++) {
      assertThat(a.replicas(p)).as("seed %d, partition %d", seed, p)
          .isEqualTo(ntsWalk(a, p, rf, rackOf));
    }
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("choosersAndSeeds")
  void replicasUseAsManyZonesThenRacksAsThereAre(String chooser, long seed) {
    Random random = new Random(seed);
    int zones = 1 + random.nextInt(4);
    List<Member> list = new ArrayList<>();
    for (int i = 0; i < 8 + random.nextInt(20); i++) {
      list.add(Member.located("n-" + Long.toHexString(random.nextLong()),
          "z" + random.nextInt(zones), "r" + random.nextInt(3)));
    }
    MembershipView view = MembershipView.of(0, list);
    Map<NodeId, Member> byId = new HashMap<>();
    list.forEach(m -> byId.put(m.id(), m));
    int zoneCount = (int) list.stream().map(Member::zone).distinct().count();
    int rackCount = (int) list.stream().map(m -> m.zone() + "/" + m.rack()).distinct().count();
    for (int rf = 1; rf <= 5; rf++) {
      PartitionAssignment a = ring(chooser, 8, rf).assign(view);
      for (int p = 0; p < a.partitionCount(); p++) {
        List<NodeId> r = a.replicas(p);
        assertThat(new HashSet<>(r)).as("seed %d", seed).hasSize(rf);
        Set<String> z = new HashSet<>();
        Set<String> zr = new HashSet<>();
        r.forEach(n -> {
          z.add(byId.get(n).zone());
          zr.add(byId.get(n).zone() + "/" + byId.get(n).rack());
        });
        assertThat(z).as("seed %d, rf %d, partition %d: %s", seed, rf, p, r)
            .hasSize(Math.min(rf, zoneCount));
        assertThat(zr).as("seed %d, rf %d, partition %d: %s", seed, rf, p, r)
            .hasSize(Math.min(rf, rackCount));
      }
      // zone-aware=false ignores the labels: the plain walk
      PartitionAssignment plain = Partitioners.load().create("tokenring", PartitionerConfig.of(
          "tokens", chooser, "vnodes", 8, "replicas", rf, "seed", 11, "zone-aware", false))
          .assign(view);
      for (int p = 0; p < plain.partitionCount(); p++) {
        assertThat(plain.replicas(p)).as("seed %d", seed).isEqualTo(plainWalk(plain, p, rf));
      }
    }
  }

  // ---- golden values: the persisted formats ---------------------------------------------

  /**
   * Pins the seeded random token formula (see {@link SeededRandomTokens}). These values were
   * computed once; a change here is a format break (every random ring would move): add a new
   * chooser name instead of editing the old one.
   */
  @Test
  void seededRandomTokenFormulaIsPinned() {
    assertThat(SeededRandomTokens.token(0, NodeId.of("node-0"), 0))
        .isEqualTo(-8194370050891876325L);
    assertThat(SeededRandomTokens.token(0, NodeId.of("node-0"), 1)).isEqualTo(2398922731978437244L);
    assertThat(SeededRandomTokens.token(42, NodeId.of("a"), 0)).isEqualTo(3277358815939700271L);
    assertThat(SeededRandomTokens.token(-1, NodeId.of("zone-ü/node 7"), 3))
        .isEqualTo(5647846909559357997L);
    // and the ring uses exactly these tokens
    PartitionAssignment a = ring("random", 2, 1).assign(MembershipView.of(Member.of("node-0")));
    assertThat(((TokenRanges) a.scheme()).tokens()).containsExactly(
        sorted(SeededRandomTokens.token(11, NodeId.of("node-0"), 0),
            SeededRandomTokens.token(11, NodeId.of("node-0"), 1)));
  }

  private static long[] sorted(long x, long y) {
    return x < y ? new long[] {x, y} : new long[] {y, x};
  }

  /**
   * Pins the allocator's first assignment (first node evenly spaced, then each token taking the
   * joiner's remaining need from the most loaded node's largest range). Computed once; a change
   * is a format break for rings built from scratch.
   */
  @Test
  void allocatorFirstAssignmentIsPinned() {
    PartitionAssignment a = ring("allocator", 2, 1).assign(MembershipView.ofEqualNodes("n", 3));
    assertThat(((TokenRanges) a.scheme()).tokens()).containsExactly(
        -6148914691236517377L, -4611686018427387905L, -1537228672809129473L, -1L,
        4611686018427387903L, Long.MAX_VALUE);
    List<NodeId> primaries = new ArrayList<>();
    for (int p = 0; p < a.partitionCount(); p++) {
      primaries.add(a.primary(p));
    }
    assertThat(primaries).extracting(NodeId::value)
        .containsExactly("n2", "n1", "n2", "n0", "n1", "n0");
  }

  @Test
  void theEmptyKeyAndTheGoldenKeyLandWhereCassandraPutsThem() {
    // a ring with one token at Cassandra's token of int 1: that key is in partition 0's range
    // (token[last], token[0]], and one more hash is in the next range (Cassandra's (a, b]).
    long golden = -4069959284402364209L;
    PartitionAssignment a =
        PartitionAssignment.of(
            "test",
            1,
            0,
            TokenRanges.of(golden, golden + 1),
            List.of(List.of(NodeId.of("x")), List.of(NodeId.of("y"))));
    assertThat(a.partitionOf(java.nio.ByteBuffer.allocate(4).putInt(1).array())).isEqualTo(0);
    assertThat(a.partitionOfHash(golden + 1)).isEqualTo(1);
    assertThat(a.partitionOf(new byte[0])).isEqualTo(0); // the minimum token wraps to the first
  }

  // ---- errors ---------------------------------------------------------------------------

  @Test
  void tooManyTokensIsAClearError() {
    Partitioner p = ring("random", 1024, 1);
    MembershipView heavy = MembershipView.of(0, List.of(Member.weighted("a", 1000),
        Member.weighted("b", 1000), Member.weighted("c", 1000), Member.weighted("d", 1000),
        Member.weighted("e", 1000), Member.weighted("f", 1000), Member.weighted("g", 1000),
        Member.weighted("h", 1000), Member.weighted("i", 1000), Member.weighted("j", 1000),
        Member.weighted("k", 1000), Member.weighted("l", 1000), Member.weighted("m", 1000),
        Member.weighted("n", 1000), Member.weighted("o", 1000), Member.weighted("p", 1000),
        Member.weighted("q", 1000)));
    assertThatThrownBy(() -> p.assign(heavy)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("17408000 tokens").hasMessageContaining("vnodes");
  }

  @Test
  void aPreviousAssignmentOfAnotherSchemeIsTreatedAsAbsent() {
    Partitioner p = ring("allocator", 16, 1);
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    PartitionAssignment hashSlots =
        PartitionAssignment.of(
            "fixed",
            5,
            0,
            io.partkit.spi.HashSlots.of(2),
            List.of(List.of(NodeId.of("n0")), List.of(NodeId.of("n1"))));
    PartitionAssignment built = p.assign(view, Optional.of(hashSlots));
    assertThat(built.samePlacementAs(p.assign(view))).isTrue();
    assertThat(built.epoch()).isEqualTo(6);
  }
}
