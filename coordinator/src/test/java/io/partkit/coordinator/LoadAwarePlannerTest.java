package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.stats.LoadStatistics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The planner's load-aware step, pure: skewed loads from fixed seeds (each assertion names its
 * seed), the bound the greedy guarantees, no move when balanced, minimal moves, the invariants,
 * and loads that must not be applied.
 */
class LoadAwarePlannerTest {

  private static final long EPOCH = 5;

  private static RebalancePlanner planner(Partitioner strategy, LoadSource source, int maxMoves,
      double threshold) {
    return new RebalancePlanner(strategy, 2, true, false, source, maxMoves, threshold);
  }

  private static PartitionAssignment current(Partitioner strategy, MembershipView view) {
    return strategy.place(view, Optional.empty(), strategy.replicationFactor()).withEpoch(EPOCH);
  }

  private static MembershipView randomView(Random random, boolean zones) {
    int n = 3 + random.nextInt(6);
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String zone = zones ? "z" + random.nextInt(3) : "";
      String rack = zones ? "r" + random.nextInt(2) : "";
      members.add(new Member(NodeId.of("n" + i), "", 1 + random.nextInt(3), zone, rack));
    }
    return MembershipView.of(1, members);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 42, 2026})
  void skewedLoadIsBalancedToWithinOnePartitionOfTheMean(long seed) {
    Random random = new Random(seed);
    MembershipView view = randomView(random, false);
    int partitions = 32 + random.nextInt(200);
    int rf = 1 + random.nextInt(Math.min(3, view.size()));
    Partitioner strategy = TestStrategies.sticky(partitions, rf);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = PartitionLoads.of(EPOCH,
        TestStrategies.zipf(seed, partitions, 0.6 + random.nextDouble() * 0.6));

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), partitions, 1.0)
        .plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    String at = "seed " + seed + ": " + load.reason();
    assertThat(load.applied()).as(at).isTrue();
    double before = load.countOnly().orElseThrow().maxOverMean();
    double after = load.after().orElseThrow().maxOverMean();
    // The class comment's guarantee without binding constraints: max <= mean + maxLoad/minWeight
    double maxLoad = 0;
    for (int p = 0; p < partitions; p++) {
      maxLoad = Math.max(maxLoad, loads.load(p));
    }
    int minWeight = view.members().stream().mapToInt(Member::weight).min().orElseThrow();
    long totalWeight = view.members().stream().mapToInt(Member::weight).sum();
    double mean = loads.total() / totalWeight;
    assertThat(after).as(at).isLessThanOrEqualTo(1 + maxLoad / (mean * minWeight) + 1e-9);
    assertThat(after).as(at).isLessThan(before);
    assertThat(load.moves()).as(at).isPositive().isLessThanOrEqualTo(partitions);
    assertInvariants(at, current, plan, loads, view);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void movesKeepEveryReplicaListsZoneAndRackSpread(long seed) {
    Random random = new Random(seed);
    MembershipView view = randomView(random, true);
    int partitions = 64 + random.nextInt(64);
    int rf = Math.min(3, view.size());
    Partitioner strategy = TestStrategies.sticky(partitions, rf);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = PartitionLoads.of(EPOCH, TestStrategies.zipf(seed, partitions, 0.9));

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 16, 1.05)
        .plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    String at = "seed " + seed + ": " + load.reason();
    Map<NodeId, Member> byId = view.members().stream()
        .collect(Collectors.toMap(Member::id, Function.identity()));
    for (int p = 0; p < partitions; p++) {
      assertThat(spread(plan.proposed().replicas(p), byId)).as(at + ", partition " + p)
          .isEqualTo(spread(current.replicas(p), byId));
    }
    assertThat(load.after().orElseThrow().maxOverMean()).as(at)
        .isLessThanOrEqualTo(load.countOnly().orElseThrow().maxOverMean());
    assertThat(load.moves()).as(at).isLessThanOrEqualTo(16);
    assertInvariants(at, current, plan, loads, view);
  }

  /** Per rank: 0 a new zone, 1 a new rack of a used zone, 2 neither. */
  private static List<Integer> spread(List<NodeId> row, Map<NodeId, Member> byId) {
    List<Integer> tiers = new ArrayList<>();
    for (int r = 1; r < row.size(); r++) {
      Member m = byId.get(row.get(r));
      boolean zoneUsed = false;
      boolean rackUsed = false;
      for (int s = 0; s < r; s++) {
        Member o = byId.get(row.get(s));
        zoneUsed |= o.zone().equals(m.zone());
        rackUsed |= o.zone().equals(m.zone()) && o.rack().equals(m.rack());
      }
      tiers.add(rackUsed ? 2 : zoneUsed ? 1 : 0);
    }
    return tiers;
  }

  private static void assertInvariants(String at, PartitionAssignment current, RebalancePlan plan,
      PartitionLoads loads, MembershipView view) {
    PartitionAssignment proposed = plan.proposed();
    LoadPlan load = plan.load().orElseThrow();
    assertThat(proposed.replicationFactor()).as(at).isEqualTo(current.replicationFactor());
    for (int p = 0; p < proposed.partitionCount(); p++) {
      List<NodeId> row = proposed.replicas(p);
      assertThat(new HashSet<>(row)).as(at + ", partition " + p).hasSize(row.size());
      assertThat(view.ids()).as(at).containsAll(row);
    }
    // the figures are those of the tables, and the moves are what changed
    assertThat(load.after().orElseThrow().maxOverMean()).as(at)
        .isEqualTo(LoadStatistics.of(proposed, loads, view).maxOverMean());
    int changed = 0;
    double movedLoad = 0;
    Set<Integer> primaryMoves = new HashSet<>();
    for (int p = 0; p < proposed.partitionCount(); p++) {
      changed += current.replicas(p).equals(proposed.replicas(p)) ? 0 : 1;
      if (!current.primary(p).equals(proposed.primary(p))) {
        movedLoad += loads.load(p);
        primaryMoves.add(p);
      }
    }
    assertThat(load.moves()).as(at).isEqualTo(changed);
    assertThat(load.movedLoad()).as(at).isCloseTo(movedLoad, org.assertj.core.data.Offset
        .offset(1e-9 * loads.total()));
    // throttling applies as usual: the primary moves, in waves of at most K = 2
    assertThat(plan.migrations()).as(at).extracting(Migration::partition)
        .containsExactlyInAnyOrderElementsOf(primaryMoves);
    for (List<Migration> wave : RebalancePlanner.waves(plan.migrations())) {
      assertThat(wave).as(at).hasSizeLessThanOrEqualTo(2);
    }
    assertThat(proposed.epoch()).as(at)
        .isEqualTo(EPOCH + (plan.migrations().size() + 1) / 2);
  }

  @Test
  void anExecutorThatMovesWholeReplicaListsGetsEveryChangedListInWaves() {
    MembershipView view = MembershipView.ofEqualNodes("n", 5);
    Partitioner strategy = TestStrategies.sticky(100, 3);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = PartitionLoads.of(EPOCH, TestStrategies.zipf(5, 100, 1.0));

    RebalancePlan plan = new RebalancePlanner(strategy, 3, true, true,
        t -> Optional.of(loads), 32, 1.0).plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    assertThat(load.moves()).as(load.reason()).isPositive();
    assertThat(plan.migrations()).hasSize(load.moves());
    for (Migration m : plan.migrations()) {
      assertThat(m.sourceReplicas()).isEqualTo(current.replicas(m.partition()));
      assertThat(m.targetReplicas()).isEqualTo(plan.proposed().replicas(m.partition()));
    }
    for (List<Migration> wave : RebalancePlanner.waves(plan.migrations())) {
      assertThat(wave).hasSizeLessThanOrEqualTo(3);
    }
  }

  @Test
  void noMoveWhenLoadIsAlreadyBalanced() {
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    Partitioner strategy = TestStrategies.sticky(64, 2);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = TestStrategies.uniform(current, 3.0);

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 32, 1.10)
        .plan(Optional.of(current), view);

    assertThat(plan.isNoOp()).isTrue();
    assertThat(plan.migrations()).isEmpty();
    LoadPlan load = plan.load().orElseThrow();
    assertThat(load.moves()).isZero();
    assertThat(load.after().orElseThrow().maxOverMean()).isEqualTo(1.0);
    assertThat(load.reason()).startsWith("balanced: max/mean 1.000 within threshold 1.100");
  }

  @Test
  void noMoveWhileTheImbalanceIsWithinTheThreshold() {
    MembershipView view = MembershipView.ofEqualNodes("n", 2);
    Partitioner strategy = TestStrategies.sticky(4, 1);
    PartitionAssignment current = current(strategy, view); // n0: 0, 2; n1: 1, 3
    PartitionLoads loads = PartitionLoads.of(EPOCH, new double[] {1.05, 1, 1, 0.95});

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 32, 1.10)
        .plan(Optional.of(current), view);

    assertThat(plan.isNoOp()).isTrue();
    assertThat(plan.load().orElseThrow().reason()).contains("within threshold 1.100");
  }

  @Test
  void oneHotPartitionTakesOneMoveToTheColdestNode() {
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    Partitioner strategy = TestStrategies.sticky(8, 1);
    PartitionAssignment current = current(strategy, view); // n0: 0, 4; n1: 1, 5; ...
    // n0 carries 2 + 2, n3 carries 0 + 0: moving partition 0 (or 4) to n3 balances everything
    PartitionLoads loads = PartitionLoads.of(EPOCH, new double[] {2, 1, 1, 0, 2, 1, 1, 0});

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 32, 1.0)
        .plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    assertThat(load.moves()).as(load.reason()).isEqualTo(1);
    assertThat(load.movedLoad()).isEqualTo(2.0);
    assertThat(plan.migrations()).singleElement().satisfies(m -> {
      assertThat(m.source()).isEqualTo(NodeId.of("n0"));
      assertThat(m.target()).isEqualTo(NodeId.of("n3"));
    });
    assertThat(load.after().orElseThrow().maxOverMean()).isEqualTo(1.0);
    assertThat(load.before().orElseThrow().maxOverMean()).isEqualTo(2.0);
  }

  @Test
  void theMoveBoundIsRespected() {
    MembershipView view = MembershipView.ofEqualNodes("n", 5);
    Partitioner strategy = TestStrategies.sticky(200, 2);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = PartitionLoads.of(EPOCH, TestStrategies.zipf(7, 200, 1.0));

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 3, 1.0)
        .plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    assertThat(load.moves()).isBetween(1, 3);
    assertThat(load.reason()).contains("move bound 3 reached");
  }

  @Test
  void aStrategyThatKeepsOnlyItsCountsGetsSwapsThatKeepThem() {
    // test-table keeps a primary only within its exact quota per node (floor/ceil by id order)
    Partitioner strategy = new TestTablePartitionerProvider()
        .create(PartitionerConfig.of("partitions", 30, "replicas", 1));
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = PartitionLoads.of(EPOCH, TestStrategies.zipf(3, 30, 1.0));

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 32, 1.05)
        .plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    assertThat(load.moves()).as(load.reason()).isPositive();
    assertThat(load.reason()).contains("the strategy's counts (swaps only)");
    assertThat(load.after().orElseThrow().maxOverMean())
        .isLessThan(load.countOnly().orElseThrow().maxOverMean());
    for (NodeId n : view.ids()) {
      assertThat(plan.proposed().primaryPartitionsOf(n)).as("%s", n)
          .hasSameSizeAs(current.primaryPartitionsOf(n));
    }
    // the strategy keeps the adjusted table: the next plan changes nothing
    PartitionAssignment committed = plan.proposed();
    assertThat(strategy.place(view, Optional.of(committed), 1).samePlacementAs(committed))
        .isTrue();
  }

  @Test
  void aStrategyThatRecomputesEveryPlacementGetsNoLoadMoveAndSaysWhy() {
    Partitioner strategy = TestStrategies.recomputing(64, 2);
    MembershipView view = MembershipView.ofEqualNodes("n", 4);
    PartitionAssignment current = current(strategy, view);
    PartitionLoads loads = PartitionLoads.of(EPOCH, TestStrategies.zipf(11, 64, 1.0));

    RebalancePlan plan = planner(strategy, t -> Optional.of(loads), 32, 1.05)
        .plan(Optional.of(current), view);

    LoadPlan load = plan.load().orElseThrow();
    assertThat(load.applied()).isFalse();
    assertThat(load.reason()).contains("strategy 'recompute' does not keep a load-driven"
        + " placement").contains("count-only plan");
    assertThat(load.moves()).isZero();
    assertThat(plan.isNoOp()).isTrue();
    assertThat(load.countOnly().orElseThrow().maxOverMean()).isGreaterThan(1.05);
  }

  @Test
  void loadsOfAnotherEpochOrPartitionCountAreIgnoredWithTheReason() {
    Partitioner strategy = TestStrategies.sticky(16, 1);
    MembershipView view = MembershipView.ofEqualNodes("n", 2);
    PartitionAssignment current = current(strategy, view);
    double[] skew = TestStrategies.zipf(1, 16, 1.5);

    LoadPlan stale = planner(strategy, t -> Optional.of(PartitionLoads.of(EPOCH - 1, skew)), 32,
        1.0).plan(Optional.of(current), view).load().orElseThrow();
    LoadPlan otherCount = planner(strategy,
        t -> Optional.of(PartitionLoads.of(EPOCH, new double[] {1, 9})), 32, 1.0)
        .plan(Optional.of(current), view).load().orElseThrow();

    assertThat(stale.applied()).isFalse();
    assertThat(stale.reason()).isEqualTo("loads ignored: measured under epoch 4 with 16"
        + " partitions, but the table in force is epoch 5 with 16 partitions; count-only plan");
    assertThat(otherCount.applied()).isFalse();
    assertThat(otherCount.reason()).contains("with 2 partitions, but the table in force is"
        + " epoch 5 with 16 partitions");
    assertThat(stale.moves()).isZero();
    assertThat(stale.after()).isEmpty();
  }

  @Test
  void noLoadsAFailingSourceOrNoTableFallBackToCountsWithTheReason() {
    Partitioner strategy = TestStrategies.sticky(16, 1);
    MembershipView view = MembershipView.ofEqualNodes("n", 2);
    PartitionAssignment current = current(strategy, view);

    RebalancePlan none = planner(strategy, t -> Optional.empty(), 32, 1.0)
        .plan(Optional.of(current), view);
    RebalancePlan failing = planner(strategy, t -> {
      throw new IllegalStateException("metrics endpoint down");
    }, 32, 1.0).plan(Optional.of(current), view);
    RebalancePlan first = planner(strategy, t -> {
      throw new AssertionError("not asked without a table");
    }, 32, 1.0).plan(Optional.empty(), view);

    assertThat(none.load().orElseThrow().reason())
        .isEqualTo("no loads measured under epoch 5 yet; count-only plan");
    assertThat(failing.load().orElseThrow().reason()).contains("the load source failed")
        .contains("metrics endpoint down");
    assertThat(first.load().orElseThrow().reason()).startsWith("no table in force yet");
    assertThat(none.isNoOp()).isTrue();
    assertThat(failing.isNoOp()).isTrue();
    assertThat(first.proposed().epoch()).isEqualTo(1);
  }

  @Test
  void withoutALoadSourceThePlanHasNoLoadFigures() {
    Partitioner strategy = TestStrategies.sticky(16, 1);
    MembershipView view = MembershipView.ofEqualNodes("n", 2);
    RebalancePlan plan = new RebalancePlanner(strategy, 2, true)
        .plan(Optional.of(current(strategy, view)), view);
    assertThat(plan.load()).isEmpty();
  }
}
