package io.partkit.testkit;

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
import io.partkit.spi.UnknownStrategyException;
import io.partkit.stats.Movement;
import io.partkit.stats.NodeLoad;
import io.partkit.stats.PlacementStatistics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract every {@link Partitioner} must meet (see its Javadoc). A strategy module extends
 * this class with a short subclass:
 *
 * <pre>{@code
 * class FixedContractTest extends PartitionerContractKit {
 *   protected String strategyName() { return "fixed"; }
 *   protected PartitionerConfig config() { return PartitionerConfig.of("partitions", 1024); }
 *   protected double balanceBound(int nodes) {
 *     return PlacementStatistics.bestMaxOverAvg(1024, nodes) + 1e-9;
 *   }
 *   protected List<PartitionerConfig> invalidConfigs() {
 *     return List.of(PartitionerConfig.of("partitions", 0));
 *   }
 * }
 * }</pre>
 *
 * <p>Randomized checks run over fixed seeds (see {@link #seeds()}); every assertion names its
 * seed, so a failure can be replayed exactly.
 */
// PER_CLASS so that the seed and size sources can be instance methods a subclass overrides.
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class PartitionerContractKit {

  // ---- what a subclass provides --------------------------------------------------------------

  /** The name the strategy is registered under. */
  protected abstract String strategyName();

  /** The configuration the suite tests (without {@code replicas}; the suite sets that). */
  protected abstract PartitionerConfig config();

  /**
   * The strategy's stated bound on key-space max/avg ({@link
   * PlacementStatistics#primaryShareMaxOverAvg()}) on {@code nodes} equal nodes with
   * {@link #config()}.
   */
  protected abstract double balanceBound(int nodes);

  /** Configurations the strategy must reject; each is expected to name its bad option. */
  protected abstract List<PartitionerConfig> invalidConfigs();

  /**
   * The most a single join or leave may move, as a multiple of the optimum (1/(n+1) on a join,
   * 1/n on a leave). Default 1.10: at most 10% more than the optimum.
   */
  protected double moveBound(int nodes) {
    return 1.10;
  }

  /**
   * The most key space (fraction) a single join or leave may move between nodes that stayed.
   * Default 0: a minimal strategy moves data only to a joining or off a leaving node. A strategy
   * that trades some churn for balance (bounded loads) overrides this and documents why.
   */
  protected double churnBound(int nodes) {
    return 0.0;
  }

  /** Seeds for the randomized checks. */
  protected LongStream seeds() {
    return LongStream.of(1, 2, 3, 42, 2024);
  }

  /** Cluster sizes for the join/leave checks. */
  protected IntStream clusterSizes() {
    return IntStream.of(1, 2, 10, 100);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** A fresh instance through discovery, with {@code replicas} set. */
  protected final Partitioner partitioner(int replicas) {
    return Partitioners.load().create(strategyName(), config().with("replicas", replicas));
  }

  /** Equal members with random-looking but seeded ids (so tests do not depend on tidy names). */
  protected static List<Member> randomMembers(Random random, int n) {
    Set<String> ids = new HashSet<>();
    List<Member> members = new ArrayList<>();
    while (members.size() < n) {
      String id = "node-" + Long.toHexString(random.nextLong());
      if (ids.add(id)) {
        members.add(Member.of(id));
      }
    }
    return members;
  }

  private static Member freshMember(Random random, MembershipView view) {
    while (true) {
      Member m = Member.of("joiner-" + Long.toHexString(random.nextLong()));
      if (!view.contains(m.id())) {
        return m;
      }
    }
  }

  /** {@link #seeds()} boxed, for {@code @MethodSource}. */
  protected final Stream<Long> seedStream() {
    return seeds().boxed();
  }

  // ---- discovery and configuration --------------------------------------------------------

  @Test
  void isDiscoverableByName() {
    Partitioners loaded = Partitioners.load();
    assertThat(loaded.names()).contains(strategyName());
    assertThat(loaded.loadFailures()).as("provider load failures").isEmpty();
    Partitioner p = loaded.create(strategyName(), config());
    assertThat(p.name()).isEqualTo(strategyName());
  }

  @Test
  void unknownNameListsKnownNames() {
    assertThatThrownBy(() -> Partitioners.load().create(strategyName() + "-nope", config()))
        .isInstanceOf(UnknownStrategyException.class)
        .hasMessageContaining(strategyName() + "-nope")
        .hasMessageContaining(strategyName());
  }

  @Test
  void rejectsInvalidConfigurationsNamingTheOption() {
    List<PartitionerConfig> invalid = invalidConfigs();
    assertThat(invalid).as("a strategy must document at least one invalid configuration")
        .isNotEmpty();
    for (PartitionerConfig bad : invalid) {
      assertThatThrownBy(() -> Partitioners.load().create(strategyName(), bad))
          .as("config %s", bad)
          .isInstanceOf(InvalidConfigurationException.class)
          .satisfies(e -> {
            for (String option : bad.asMap().keySet()) {
              assertThat(e.getMessage()).as("message names option '%s'", option)
                  .contains(option);
            }
          });
    }
  }

  @Test
  void rejectsUnknownOptionListingKnownOnes() {
    assertThatThrownBy(() -> Partitioners.load().create(strategyName(),
        config().with("no-such-option", 1)))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("no-such-option")
        .hasMessageContaining("replicas");
  }

  @Test
  void reportsAllProblemsAtOnce() {
    PartitionerConfig twoBad = config().with("replicas", 0).with("no-such-option", 1);
    assertThatThrownBy(() -> Partitioners.load().create(strategyName(), twoBad))
        .isInstanceOfSatisfying(InvalidConfigurationException.class,
            e -> assertThat(e.problems()).hasSizeGreaterThanOrEqualTo(2));
  }

  @Test
  void rejectsEmptyView() {
    assertThatThrownBy(() -> partitioner(1).assign(MembershipView.of(0, List.of())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- determinism ------------------------------------------------------------------------

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seedStream")
  void sameInputsGiveSameAssignmentWhateverTheMemberOrder(long seed) {
    Random random = new Random(seed);
    List<Member> members = randomMembers(random, 2 + random.nextInt(30));
    List<Member> shuffled = new ArrayList<>(members);
    Collections.shuffle(shuffled, random);
    PartitionAssignment a = partitioner(2).assign(MembershipView.of(7, members));
    PartitionAssignment b = partitioner(2).assign(MembershipView.of(7, shuffled));
    assertThat(a.samePlacementAs(b)).as("seed %d", seed).isTrue();
    assertThat(a).as("seed %d", seed).isEqualTo(b);
  }

  @Test
  void oneInstanceIsSafeToShareAcrossThreads() throws Exception {
    Partitioner shared = partitioner(3);
    MembershipView view = MembershipView.of(0, randomMembers(new Random(11), 40));
    PartitionAssignment expected = partitioner(3).assign(view);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<PartitionAssignment>> results = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        results.add(pool.submit(() -> shared.assign(view)));
      }
      for (Future<PartitionAssignment> f : results) {
        assertThat(f.get().samePlacementAs(expected)).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void reassigningTheSameViewMovesNothingAndBumpsTheEpoch() {
    Partitioner p = partitioner(2);
    MembershipView view = MembershipView.of(0, randomMembers(new Random(5), 12));
    PartitionAssignment first = p.assign(view);
    PartitionAssignment again = p.assign(view, Optional.of(first));
    assertThat(again.samePlacementAs(first)).isTrue();
    assertThat(first.epoch()).isEqualTo(1);
    assertThat(again.epoch()).isEqualTo(first.epoch() + 1);
    assertThat(first.strategy()).isEqualTo(strategyName());
  }

  /**
   * The same fixpoint with zone and rack labels on uneven zones and unequal weights, after each
   * step of a join/leave sequence: a strategy that keeps a table (Ignite recalculates with
   * unchanged members on activation or baseline changes; a coordinator may re-plan) must return
   * it unchanged when nothing changed.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seedStream")
  void reassigningTheSameLabelledViewMovesNothing(long seed) {
    Random random = new Random(seed);
    int replicas = 1 + random.nextInt(4);
    int zones = 2 + random.nextInt(3);
    Partitioner p = partitioner(replicas);
    List<Member> members = new ArrayList<>();
    for (int z = 0; z < zones; z++) {
      for (int i = 1 + random.nextInt(4 * (z + 1)); i > 0; i--) { // uneven: zone z has 1..4(z+1)
        members.add(labelledMember(random, "z" + z));
      }
    }
    MembershipView view = MembershipView.of(0, members);
    PartitionAssignment current = p.assign(view);
    for (int step = 0; step < 8; step++) {
      PartitionAssignment again = p.assign(view, Optional.of(current));
      assertThat(again.replicaTable())
          .as("seed %d, step %d: %s re-assigned with its own table", seed, step, view.members())
          .isEqualTo(current.replicaTable());
      MembershipView next;
      if (view.size() > 2 && random.nextBoolean()) {
        next = view.without(view.member(random.nextInt(view.size())).id());
      } else {
        next = view.with(labelledMember(random, "z" + random.nextInt(zones)));
      }
      current = p.assign(next, Optional.of(current));
      view = next;
    }
  }

  private static Member labelledMember(Random random, String zone) {
    return new Member(NodeId.of("node-" + Long.toHexString(random.nextLong())), "",
        1 + random.nextInt(3), zone, "r" + random.nextInt(2));
  }

  // ---- replicas ---------------------------------------------------------------------------

  @ParameterizedTest(name = "{0} replicas")
  @ValueSource(ints = {1, 2, 3, 5})
  void replicasAreDistinctMembersPrimaryFirst(int replicas) {
    MembershipView view = MembershipView.of(0, randomMembers(new Random(replicas), 9));
    PartitionAssignment a = partitioner(replicas).assign(view);
    assertThat(a.replicationFactor()).isEqualTo(replicas);
    for (int p = 0; p < a.partitionCount(); p++) {
      List<NodeId> r = a.replicas(p);
      assertThat(new HashSet<>(r)).as("partition %d", p).hasSize(replicas);
      assertThat(r.get(0)).isEqualTo(a.primary(p));
      assertThat(r).allSatisfy(n -> assertThat(view.contains(n)).isTrue());
    }
  }

  @Test
  void fewerMembersThanReplicasGivesEveryMemberACopy() {
    MembershipView view = MembershipView.of(Member.of("a"), Member.of("b"));
    PartitionAssignment a = partitioner(3).assign(view);
    assertThat(a.replicationFactor()).isEqualTo(2);
    for (int p = 0; p < a.partitionCount(); p++) {
      assertThat(a.replicas(p)).containsExactlyInAnyOrder(NodeId.of("a"), NodeId.of("b"));
    }
  }

  @ParameterizedTest(name = "{0} replicas")
  @ValueSource(ints = {1, 2, 3})
  void replicasGivenPerCallPlaceAsAnInstanceConfiguredWithThem(int replicas) {
    Random random = new Random(31 + replicas);
    MembershipView view = MembershipView.of(0, randomMembers(random, 9));
    Partitioner configured = partitioner(replicas);
    Partitioner other = partitioner(replicas == 1 ? 2 : 1);
    PartitionAssignment first = configured.assign(view);
    assertThat(other.place(view, Optional.empty(), replicas).samePlacementAs(first))
        .as("first table").isTrue();
    MembershipView grown = view.with(freshMember(random, view));
    assertThat(other.place(grown, Optional.of(first), replicas)
        .samePlacementAs(configured.assign(grown, Optional.of(first))))
        .as("table after a join").isTrue();
  }

  @Test
  void rejectsReplicasPerCallOutOfRange() {
    MembershipView view = MembershipView.ofEqualNodes("node-", 3);
    for (int replicas : new int[] {0, Partitioner.MAX_REPLICAS + 1}) {
      assertThatThrownBy(() -> partitioner(1).place(view, Optional.empty(), replicas))
          .as("replicas %d", replicas)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void placeLeavesTheEpochToTheCaller() {
    Partitioner p = partitioner(2);
    MembershipView view = MembershipView.of(0, randomMembers(new Random(6), 5));
    PartitionAssignment first = p.assign(view).withEpoch(41);
    PartitionAssignment placed = p.place(view, Optional.of(first), 2);
    assertThat(placed.epoch()).as("unstamped").isZero();
    assertThat(p.assign(view, Optional.of(first))).isEqualTo(placed.withEpoch(42));
  }

  @Test
  void aFixedSchemeIsKnownBeforeAssigningAndIsEveryAssignmentsScheme() {
    Partitioner p = partitioner(1);
    if (p.fixedScheme().isEmpty()) {
      assertThat(p.fixedPartitionCount()).isEmpty();
      return; // the scheme follows membership: nothing to announce up front
    }
    assertThat(p.fixedPartitionCount()).hasValue(p.fixedScheme().get().partitionCount());
    Random random = new Random(8);
    for (int n : new int[] {1, 4, 13}) {
      PartitionAssignment a = p.assign(MembershipView.of(0, randomMembers(random, n)));
      assertThat(a.scheme()).as("%d members", n).isEqualTo(p.fixedScheme().get());
    }
  }

  @Test
  void replicasSpreadOverZonesWhenLabelsAllow() {
    List<Member> members = new ArrayList<>();
    for (String zone : List.of("z1", "z2", "z3")) {
      for (int i = 0; i < 4; i++) {
        members.add(Member.located(zone + "-n" + i, zone, "r" + (i % 2)));
      }
    }
    PartitionAssignment a = partitioner(3).assign(MembershipView.of(0, members));
    Map<NodeId, String> zoneOf = new java.util.HashMap<>();
    members.forEach(m -> zoneOf.put(m.id(), m.zone()));
    for (int p = 0; p < a.partitionCount(); p++) {
      Set<String> zones = new HashSet<>();
      a.replicas(p).forEach(n -> zones.add(zoneOf.get(n)));
      assertThat(zones).as("zones of partition %d: %s", p, a.replicas(p)).hasSize(3);
    }
  }

  // ---- lookups ----------------------------------------------------------------------------

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seedStream")
  void keyLookupsAgreeWithTheTable(long seed) {
    Random random = new Random(seed);
    PartitionAssignment a = partitioner(2).assign(MembershipView.of(0, randomMembers(random, 17)));
    for (int i = 0; i < 2_000; i++) {
      long key = random.nextLong();
      int p = a.partitionOf(key);
      assertThat(p).as("seed %d", seed).isBetween(0, a.partitionCount() - 1);
      assertThat(a.primaryOf(key)).as("seed %d", seed).isEqualTo(a.primary(p));
      String s = "user-" + key;
      assertThat(a.primaryOf(s)).as("seed %d", seed).isEqualTo(a.primary(a.partitionOf(s)));
      // raw bytes route by the scheme's own key function (the key's bytes for key ranges,
      // its hash otherwise), the same way as the String they encode
      byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      assertThat(a.partitionOf(bytes)).as("seed %d", seed)
          .isEqualTo(a.scheme().partitionOfKey(bytes)).isEqualTo(a.partitionOf(s));
      assertThat(a.primaryOf(bytes)).as("seed %d", seed).isEqualTo(a.primary(a.partitionOf(s)));
    }
  }

  // ---- balance ----------------------------------------------------------------------------

  @Test
  void balanceOnOneHundredEqualNodesIsWithinTheStatedBound() {
    MembershipView view = MembershipView.ofEqualNodes("node-", 100);
    PlacementStatistics stats = PlacementStatistics.of(partitioner(1).assign(view), view);
    assertThat(stats.primaryShareMaxOverAvg()).as(stats.toString())
        .isLessThanOrEqualTo(balanceBound(100));
    assertThat(stats.loads()).allSatisfy(l -> assertThat(l.primaryShare()).isPositive());
  }

  @Test
  void heavierMembersHoldMore() {
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      members.add(Member.weighted("w1-" + i, 1));
    }
    members.add(Member.weighted("w3-heavy", 3));
    MembershipView view = MembershipView.of(0, members);
    PlacementStatistics stats = PlacementStatistics.of(partitioner(1).assign(view), view);
    double light = stats.loads().stream().filter(l -> l.weight() == 1)
        .mapToDouble(NodeLoad::primaryShare).average().orElseThrow();
    double heavy = stats.loads().stream().filter(l -> l.weight() == 3)
        .mapToDouble(NodeLoad::primaryShare).sum();
    assertThat(heavy / light).as(stats.toString()).isBetween(2.0, 4.0);
  }

  // ---- minimal disruption -----------------------------------------------------------------

  /** Each cluster size with the first two seeds, for {@code @MethodSource}. */
  protected final Stream<org.junit.jupiter.params.provider.Arguments> sizesAndSeeds() {
    return clusterSizes().boxed().flatMap(n -> seeds().limit(2).mapToObj(
        s -> org.junit.jupiter.params.provider.Arguments.of(n, s)));
  }

  @ParameterizedTest(name = "{0} nodes, seed {1}")
  @MethodSource("sizesAndSeeds")
  void aJoinMovesDataOnlyToTheNewMemberAndNearTheOptimum(int nodes, long seed) {
    Random random = new Random(seed);
    Partitioner p = partitioner(1);
    MembershipView before = MembershipView.of(0, randomMembers(random, nodes));
    PartitionAssignment a = p.assign(before);
    MembershipView after = before.with(freshMember(random, before));
    PartitionAssignment b = p.assign(after, Optional.of(a));
    Movement m = Movement.between(a, before, b, after);
    assertThat(m.primaryMovedBetweenStayingShare()).as("seed %d: %s", seed, m)
        .isLessThanOrEqualTo(churnBound(nodes) + 1e-12);
    assertThat(m.primaryMovedShare()).as("seed %d: %s", seed, m)
        .isLessThanOrEqualTo(m.optimalShare() * moveBound(nodes) + churnBound(nodes) + 1e-12);
    assertThat(b.epoch()).isEqualTo(a.epoch() + 1);
  }

  @ParameterizedTest(name = "{0} nodes, seed {1}")
  @MethodSource("sizesAndSeeds")
  void aLeaveMovesOnlyTheLeavingMembersData(int nodes, long seed) {
    if (nodes < 2) {
      return;
    }
    Random random = new Random(seed);
    Partitioner p = partitioner(1);
    MembershipView before = MembershipView.of(0, randomMembers(random, nodes));
    PartitionAssignment a = p.assign(before);
    NodeId leaving = before.member(random.nextInt(nodes)).id();
    MembershipView after = before.without(leaving);
    PartitionAssignment b = p.assign(after, Optional.of(a));
    Movement m = Movement.between(a, before, b, after);
    assertThat(b.nodes()).doesNotContain(leaving);
    assertThat(m.primaryMovedBetweenStayingShare()).as("seed %d: %s", seed, m)
        .isLessThanOrEqualTo(churnBound(nodes) + 1e-12);
    assertThat(m.primaryMovedShare()).as("seed %d: %s", seed, m)
        .isLessThanOrEqualTo(m.optimalShare() * moveBound(nodes) + churnBound(nodes) + 1e-12);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seedStream")
  void randomMembershipChangesKeepEveryInvariant(long seed) {
    Random random = new Random(seed);
    Partitioner p = partitioner(3);
    MembershipView view = MembershipView.of(0, randomMembers(random, 3 + random.nextInt(10)));
    PartitionAssignment current = p.assign(view);
    for (int step = 0; step < 25; step++) {
      MembershipView next;
      if (view.size() > 3 && random.nextBoolean()) {
        next = view.without(view.member(random.nextInt(view.size())).id());
      } else {
        Member joiner = freshMember(random, view);
        next = view.with(random.nextInt(4) == 0 ? joiner.withWeight(2) : joiner);
      }
      PartitionAssignment updated = p.assign(next, Optional.of(current));
      String context = "seed " + seed + ", step " + step;
      for (int part = 0; part < updated.partitionCount(); part++) {
        List<NodeId> r = updated.replicas(part);
        assertThat(new HashSet<>(r)).as(context).hasSize(Math.min(3, next.size()));
        assertThat(r).as(context).allSatisfy(n -> assertThat(next.contains(n)).isTrue());
      }
      Movement m = Movement.between(current, view, updated, next);
      assertThat(m.primaryMovedBetweenStayingShare()).as("%s: %s", context, m)
          .isLessThanOrEqualTo(churnBound(view.size()) + 1e-12);
      assertThat(updated.samePlacementAs(p.assign(next, Optional.of(current))))
          .as("%s: deterministic", context).isTrue();
      view = next;
      current = updated;
    }
  }
}
