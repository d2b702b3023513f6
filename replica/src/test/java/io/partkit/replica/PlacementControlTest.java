package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.strategy.StrategyPlacement;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A control given a {@link Placement} (a partkit strategy's): through joins, leaves, nodes going
 * down and coming back and splits, its table settles to exactly the strategy's placement over
 * the nodes that may hold copies, a join changes only the partitions the strategy moves, and no
 * configuration it sends promotes a member that was not level or drops a copy while a graceful
 * move is under way.
 */
class PlacementControlTest {

  private static final int PARTITIONS = 8;
  private static final int REPLICAS = 3;
  /** Ten-millisecond steps a cluster gets to settle after each event: a minute. */
  private static final int SETTLE_STEPS = 6_000;

  private static Placement strategy(String name) {
    return StrategyPlacement.of(Partitioners.load().provider(name).orElseThrow());
  }

  /**
   * The nodes as the test plays them: each holds the epochs it was configured at and answers
   * heartbeats with them while up; a primary reports every new epoch level at once. Every
   * configuration the control sends is checked against the table before the step that sent it.
   */
  private static final class Cluster extends FakeNodes {
    final Control control;
    final Placement placement;
    final TreeSet<Integer> leaving = new TreeSet<>();
    final String name;
    long now;
    int configures;

    Cluster(String name, List<Integer> members) {
      this(name, strategy(name), members, placement -> new Control(Timing.DEFAULT, PARTITIONS,
          REPLICAS, members, placement));
    }

    Cluster(String name, Placement placement, List<Integer> members,
        Function<Placement, Control> control) {
      this.name = name;
      this.placement = placement;
      this.control = control.apply(placement);
      for (int n : members) {
        held.put(n, new TreeMap<>());
      }
      drain(Map.of());
    }

    /** What each partition was before a step: to check the configurations the step sends. */
    record Before(Configure configure, List<Integer> level) {}

    Map<Integer, Before> before() {
      Map<Integer, Before> b = new HashMap<>();
      for (int p : control.partitionIds()) {
        b.put(p, new Before(control.configuration(p), control.levelMembers(p)));
      }
      return b;
    }

    void drain(Map<Integer, Before> before) {
      Ready r = control.ready();
      for (Envelope e : r.messages()) {
        if (!(e.message() instanceof Configure cf)) {
          continue;
        }
        check(before.get(cf.partition()), cf);
        configure(e.to(), cf, () -> true);
      }
    }

    /**
     * A new primary was level; a copy is dropped only when it was down or leaving, or when the
     * partition keeps every copy the eligible nodes allow.
     */
    private void check(Before b, Configure cf) {
      if (b == null || cf.epoch() <= b.configure().epoch()) {
        return; // a split's new partition, or a configuration sent again
      }
      configures++;
      Configure old = b.configure();
      if (cf.primary() != old.primary()) {
        assertThat(b.level()).as("%s: %s promotes a member not level in %s", name, cf, old)
            .contains(cf.primary());
      }
      List<Integer> dropped = new ArrayList<>(old.members());
      dropped.removeAll(cf.members());
      long eligible = held.keySet().stream()
          .filter(n -> control.up(n) && !leaving.contains(n)).count();
      boolean graceful = dropped.stream().allMatch(n -> control.up(n) && !leaving.contains(n));
      if (!dropped.isEmpty() && graceful) {
        assertThat(cf.members().size()).as("%s: %s drops %s from %s", name, cf, dropped, old)
            .isGreaterThanOrEqualTo((int) Math.min(REPLICAS, eligible));
      }
    }

    /** Ten milliseconds: what nodes sent, heartbeats from the up nodes, a tick. */
    void step() {
      now += 10;
      deliver(control);
      Map<Integer, Before> before = before();
      control.tick(now);
      drain(before);
    }

    /** Steps until settled, at least a down-time: a node gone silent counts down only then. */
    void settle(String after) {
      for (int i = 0; i < Timing.DEFAULT.downMillis() / 10 + 2; i++) {
        step();
      }
      for (int i = 0; i < SETTLE_STEPS && !control.settled(); i++) {
        step();
      }
      assertThat(control.unsettled()).as("%s after %s", name, after).isEmpty();
    }

    /** The nodes that may hold copies, as the test knows them. */
    List<Integer> eligible() {
      return held.keySet().stream().filter(n -> !down.contains(n) && !leaving.contains(n))
          .toList();
    }

    SortedMap<Integer, List<Integer>> table() {
      TreeMap<Integer, List<Integer>> t = new TreeMap<>();
      for (int p : control.partitionIds()) {
        t.put(p, control.configuration(p).members());
      }
      return t;
    }

    /**
     * The strategy's placement over the eligible nodes, built on {@code from}: the table the
     * control asks the placement with, as it stands when the eligible nodes change.
     */
    SortedMap<Integer, List<Integer>> wanted(SortedMap<Integer, List<Integer>> from) {
      return placement.place(from, eligible(), REPLICAS);
    }

    void isPlaced(String after, SortedMap<Integer, List<Integer>> from) {
      SortedMap<Integer, List<Integer>> wanted = wanted(from);
      for (int p : control.partitionIds()) {
        // the backups' order means nothing to the protocol: a change for it alone would cost a
        // new epoch, and with it a levelling of every backup
        Configure c = control.configuration(p);
        assertThat(c.primary()).as("%s after %s: primary of %s", name, after, c)
            .isEqualTo(wanted.get(p).get(0));
        assertThat(c.members()).as("%s after %s: %s", name, after, c)
            .containsExactlyInAnyOrderElementsOf(wanted.get(p));
      }
    }
  }

  @Test
  void theTableSettlesToTheStrategysPlacementThroughJoinsLeavesDownsAndSplits() {
    for (String name : List.of("rendezvous", "fixed")) {
      for (long seed = 1; seed <= 4; seed++) {
        Random random = new Random(seed);
        Cluster c = new Cluster(name, List.of(0, 1, 2, 3, 4));
        int next = 5;
        String at = "seed " + seed + " the start";
        TreeMap<Integer, List<Integer>> roundRobin = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
          roundRobin.put(p, List.of(p % 5, (p + 1) % 5, (p + 2) % 5));
        }
        c.settle(at);
        c.isPlaced(at, roundRobin);
        for (int event = 0; event < 12; event++) {
          List<Integer> live = c.eligible();
          int roll = random.nextInt(5);
          int n = live.get(random.nextInt(live.size()));
          if (roll == 0 && c.held.size() < 9) {
            c.held.put(next, new TreeMap<>());
            c.control.join(next);
            at = "seed " + seed + " event " + event + ": " + next++ + " joins";
          } else if (roll == 1 && live.size() > REPLICAS + 1) {
            c.leaving.add(n);
            c.control.leave(n);
            at = "seed " + seed + " event " + event + ": " + n + " leaves";
          } else if (roll == 2 && c.down.isEmpty() && live.size() > REPLICAS) {
            c.down.add(n);
            at = "seed " + seed + " event " + event + ": " + n + " goes down";
          } else if (roll == 3 && !c.down.isEmpty()) {
            at = "seed " + seed + " event " + event + ": " + c.down.first() + " is back";
            c.down.clear();
          } else if (c.control.partitions() < 2 * PARTITIONS) {
            int p = c.control.partitionIds().get(random.nextInt(c.control.partitions()));
            c.control.split(p);
            at = "seed " + seed + " event " + event + ": " + p + " splits";
          }
          SortedMap<Integer, List<Integer>> from = c.table();
          c.settle(at);
          c.isPlaced(at, from);
          for (int gone : List.copyOf(c.leaving)) {
            c.control.forget(gone); // it holds nothing any more: it goes for good
            c.held.remove(gone);
          }
          c.leaving.clear();
        }
        assertThat(c.configures).as("%s seed %d: configurations checked", name, seed)
            .isGreaterThan(20);
      }
    }
  }

  @Test
  void aJoinChangesOnlyThePartitionsTheStrategyMoves() {
    for (String name : List.of("rendezvous", "fixed")) {
      Cluster c = new Cluster(name, List.of(0, 1, 2, 3));
      c.settle("the start");
      SortedMap<Integer, List<Integer>> before = c.table();
      Map<Integer, Long> epochs = new HashMap<>();
      for (int p : c.control.partitionIds()) {
        epochs.put(p, c.control.configuration(p).epoch());
      }
      c.held.put(4, new TreeMap<>());
      c.control.join(4);
      SortedMap<Integer, List<Integer>> wanted = c.wanted(before);
      c.settle("4 joins");
      c.isPlaced("4 joins", before);
      int moved = 0;
      for (int p : c.control.partitionIds()) {
        boolean strategyMoves = !wanted.get(p).get(0).equals(before.get(p).get(0))
            || !new TreeSet<>(wanted.get(p)).equals(new TreeSet<>(before.get(p)));
        if (strategyMoves) {
          moved++;
          assertThat(wanted.get(p)).as("%s: partition %d moves to the new node", name, p)
              .contains(4);
        } else {
          assertThat(c.control.configuration(p).epoch()).as("%s: partition %d", name, p)
              .isEqualTo(epochs.get(p));
        }
      }
      assertThat(moved).as("%s: partitions the join moved", name).isBetween(1, PARTITIONS - 1);
    }
  }

  @Test
  void aDownPrimaryWhoseLevelBackupsAreAllLeavingIsReplacedByOneOfThem() {
    Placement firstEligible = (members, eligible, replicas) -> {
      TreeMap<Integer, List<Integer>> targets = new TreeMap<>();
      members.keySet().forEach(p ->
          targets.put(p, eligible.subList(0, Math.min(replicas, eligible.size()))));
      return targets;
    };
    List<Integer> nodes = List.of(0, 1, 2);
    Cluster c = new Cluster("first eligible", firstEligible, nodes,
        placement -> new Control(Timing.DEFAULT, 1, REPLICAS, nodes, placement));
    c.settle("the start");
    assertThat(c.control.configuration(0).members()).containsExactly(0, 1, 2);
    long lastHeard = c.now - 10; // the control's clock when it took the last heartbeat
    c.down.add(0);
    while (c.now + 10 - lastHeard < Timing.DEFAULT.downMillis()) {
      c.step();
    }
    // both backups start leaving in the tick that finds the primary down: nobody is eligible
    c.control.leave(1);
    c.control.leave(2);
    c.leaving.addAll(List.of(1, 2));
    c.step();
    assertThat(c.control.up(0)).isFalse();
    assertThat(c.control.configuration(0).primary()).isIn(1, 2);
  }

  @Test
  void aControlRestoredWithItsPlacementSettlesToItAgain() {
    Cluster c = new Cluster("rendezvous", List.of(0, 1, 2, 3, 4));
    c.settle("the start");
    c.control.join(5);
    c.held.put(5, new TreeMap<>());
    SortedMap<Integer, List<Integer>> from = c.table();
    c.step(); // the join is decided on: the table is on its way to the new placement
    Cluster restarted = new Cluster("rendezvous", c.placement, List.copyOf(c.held.keySet()),
        placement -> Control.restore(Timing.DEFAULT, REPLICAS, placement,
            List.of(c.control.durableState())));
    restarted.held.putAll(c.held);
    restarted.now = c.now;
    assertThat(restarted.control.settled()).as("no targets before its grace is over").isFalse();
    restarted.settle("a restart during a join");
    if (c.placement.place(restarted.table(), restarted.eligible(), REPLICAS)
        .equals(c.placement.place(from, restarted.eligible(), REPLICAS))) {
      restarted.isPlaced("a restart during a join", from);
    }
  }

  /** Targets over five nodes: partition {@code p} on {@code shift * (p + i) mod 5}, i < 3. */
  private static Map<Integer, List<Integer>> shifted(int shift, List<Integer> nodes) {
    TreeMap<Integer, List<Integer>> t = new TreeMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<Integer> row = new ArrayList<>();
      for (int i = 0; i < REPLICAS; i++) {
        row.add(nodes.get(shift * (p + i) % nodes.size())); // shift is prime to 5: distinct
      }
      t.put(p, row);
    }
    return t;
  }

  /** A cluster of {@code nodes} whose control places by {@code targets}, settled. */
  private static Cluster onTargets(Map<Integer, List<Integer>> targets, List<Integer> nodes) {
    Cluster c = new Cluster("targets", TargetPlacement.of(targets), nodes,
        placement -> new Control(Timing.DEFAULT, PARTITIONS, REPLICAS, nodes, placement));
    c.settle("the start");
    return c;
  }

  @Test
  void aPlacementReplacedWhileRunningIsCarriedOutBySafeStepsAndSettlesToItsTargetsExactly() {
    List<Integer> nodes = List.of(0, 1, 2, 3, 4);
    Map<Integer, List<Integer>> first = shifted(1, nodes);
    Cluster c = onTargets(first, nodes);
    assertThat(c.table()).isEqualTo(first);
    int checked = c.configures;
    for (int shift = 2; shift <= 4; shift++) {
      Map<Integer, List<Integer>> next = shifted(shift, nodes);
      c.control.place(TargetPlacement.of(next));
      assertThat(c.control.settled()).as("replaced, not yet asked").isFalse();
      c.settle("targets shifted by " + shift);
      assertThat(c.table()).as("targets shifted by %d", shift).isEqualTo(next);
    }
    assertThat(c.configures - checked).as("configurations checked").isGreaterThan(PARTITIONS);
  }

  /**
   * Steps {@code steps} times, adding every partition's members after each step to {@code seen}
   * (partition to the configurations it had, in order, each once).
   */
  private static void run(Cluster c, int steps, Map<Integer, List<List<Integer>>> seen) {
    for (int i = 0; i < steps; i++) {
      c.step();
      for (int p : c.control.partitionIds()) {
        List<List<Integer>> had = seen.computeIfAbsent(p, x -> new ArrayList<>());
        List<Integer> members = c.control.configuration(p).members();
        if (had.isEmpty() || !had.get(had.size() - 1).equals(members)) {
          had.add(members);
        }
      }
    }
  }

  @Test
  void aTargetOnADownNodeKeepsItsPlaceFromSparesUntilItsOwnerReplacesItOrItIsBack() {
    List<Integer> nodes = List.of(0, 1, 2, 3, 4);
    Map<Integer, List<Integer>> first = shifted(1, nodes);
    Cluster c = onTargets(first, nodes);
    c.down.add(4);
    Map<Integer, List<List<Integer>>> seen = new TreeMap<>();
    run(c, (int) (Timing.DEFAULT.downMillis() / 10) + 200, seen);
    Map<Integer, List<Integer>> next = new TreeMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<Integer> without = new ArrayList<>(first.get(p));
      without.remove(Integer.valueOf(4));
      assertThat(c.control.configuration(p).members()).as("partition %d while 4 is down", p)
          .containsExactlyInAnyOrderElementsOf(without);
      List<Integer> row = new ArrayList<>(first.get(p));
      if (row.contains(4)) {
        // the targets' owner replaces 4 by the highest node the row lacks: no stand-in the
        // control could have chosen (the lowest eligible) was sent a copy meanwhile
        int spare = nodes.stream().filter(n -> !row.contains(n)).max(Integer::compare)
            .orElseThrow();
        row.set(row.indexOf(4), spare);
      }
      next.put(p, row);
    }
    assertThat(c.control.unsettled()).as("short of copies while 4 is down").isPresent();
    c.control.place(TargetPlacement.of(next));
    run(c, 200, seen);
    c.settle("4 replaced by the targets' owner");
    assertThat(c.table()).isEqualTo(next);
    for (int p = 0; p < PARTITIONS; p++) {
      TreeSet<Integer> joined = new TreeSet<>();
      seen.get(p).forEach(joined::addAll);
      TreeSet<Integer> rows = new TreeSet<>(first.get(p));
      rows.addAll(next.get(p));
      assertThat(joined).as("partition %d's members through %s", p, seen.get(p))
          .isSubsetOf(rows);
    }
    c.down.clear();
    c.control.place(TargetPlacement.of(first));
    c.settle("4 is back");
    assertThat(c.table()).isEqualTo(first);
  }

  @Test
  void aTargetOnAForgottenNodeKeepsItsPlaceFromSparesUntilItsOwnerReplacesIt() {
    List<Integer> nodes = List.of(0, 1, 2, 3, 4);
    Map<Integer, List<Integer>> first = shifted(1, nodes);
    Cluster c = onTargets(first, nodes);
    c.down.add(4);
    c.control.forget(4); // lost for good: the targets' owner replaces it next
    c.held.remove(4);
    Map<Integer, List<List<Integer>>> seen = new TreeMap<>();
    run(c, (int) (Timing.DEFAULT.downMillis() / 10) + 200, seen);
    Map<Integer, List<Integer>> next = new TreeMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<Integer> row = new ArrayList<>(first.get(p));
      List<Integer> without = new ArrayList<>(row);
      without.remove(Integer.valueOf(4));
      assertThat(c.control.configuration(p).members()).as("partition %d once 4 is forgotten", p)
          .containsExactlyInAnyOrderElementsOf(without);
      if (row.contains(4)) {
        row.set(row.indexOf(4), nodes.stream().filter(n -> !row.contains(n))
            .max(Integer::compare).orElseThrow());
      }
      next.put(p, row);
    }
    c.control.place(TargetPlacement.of(next));
    c.settle("4 replaced by the targets' owner");
    assertThat(c.table()).isEqualTo(next);
  }

  @Test
  void aTargetOnALeavingNodeIsStoodInForBySpares() {
    List<Integer> nodes = List.of(0, 1, 2, 3, 4);
    Cluster c = onTargets(shifted(1, nodes), nodes);
    c.leaving.add(4);
    c.control.leave(4);
    c.settle("4 leaves");
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(c.control.configuration(p).members()).as("partition %d once 4 left", p)
          .doesNotContain(4).hasSize(REPLICAS);
    }
  }

  @Test
  void aHandOverTakesTheMembersOutsideTheTargetOutInTheSameChange() {
    List<Integer> nodes = List.of(0, 1, 2, 3);
    Cluster c = new Cluster("targets", TargetPlacement.of(Map.of(0, List.of(0, 1, 2))), nodes,
        placement -> new Control(Timing.DEFAULT, 1, REPLICAS, nodes, placement));
    c.settle("the start");
    c.control.place(TargetPlacement.of(Map.of(0, List.of(3, 1, 2))));
    Map<Integer, List<List<Integer>>> seen = new TreeMap<>();
    run(c, 100, seen);
    c.settle("the primary's target moved to 3");
    // a change right after the handover would reach the backups before the new primary's
    // level, and they would refuse its next one by name and be sent whole copies
    assertThat(seen.get(0)).containsExactly(List.of(0, 3, 1, 2), List.of(3, 1, 2));
  }

  /**
   * A coordinator's move in two steps: a target naming more nodes than replicas (the row and the
   * node it moves to, primary unchanged) has the new node join and level under the same primary,
   * nobody leaving; the target then given hands over, the old member leaving in the same change.
   */
  @Test
  void aTargetLongerThanReplicasJoinsItsNewNodeUnderTheSamePrimaryAndALaterTargetHandsOver() {
    List<Integer> nodes = List.of(0, 1, 2, 3);
    Cluster c = new Cluster("targets", TargetPlacement.of(Map.of(0, List.of(0, 1, 2))), nodes,
        placement -> new Control(Timing.DEFAULT, 1, REPLICAS, nodes, placement));
    c.settle("the start");
    c.control.place(TargetPlacement.of(Map.of(0, List.of(0, 1, 2, 3))));
    Map<Integer, List<List<Integer>>> seen = new TreeMap<>();
    run(c, 200, seen);
    assertThat(seen.get(0)).as("3 joins, 0 stays primary, nobody leaves")
        .containsExactly(List.of(0, 1, 2, 3));
    assertThat(c.control.levelMembers(0)).containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(c.control.moving(0)).isFalse();
    assertThat(c.control.unsettled()).as("four copies where three are asked").isPresent();
    c.control.place(TargetPlacement.of(Map.of(0, List.of(3, 1, 2))));
    run(c, 100, seen);
    c.settle("the target handed over to 3");
    assertThat(seen.get(0)).containsExactly(List.of(0, 1, 2, 3), List.of(3, 1, 2));
  }
}
