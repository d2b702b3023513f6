package io.partkit.kvstore.migration;

import static io.partkit.kvstore.PartitionState.BACKUP;
import static io.partkit.kvstore.PartitionState.MIGRATING_OUT;
import static io.partkit.kvstore.PartitionState.OWNED;
import static io.partkit.kvstore.PartitionState.RECEIVED;
import static io.partkit.kvstore.PartitionState.RECEIVING;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.migration.ReconcilePlan.Action;
import io.partkit.kvstore.migration.ReconcilePlan.Kind;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reconcile's decisions, from a table, the nodes' listings and the moves in flight, with no
 * node behind them: which copy is activated or aborted, which source is unfenced or dropped,
 * which left-behind replica is dropped, and in which order.
 */
class ReconcilePlanTest {

  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");

  /** Partition 0 on {@code row0} (the primary first), partition 1 on n3 (then n1, ...). */
  private static PartitionAssignment table(long epoch, NodeId... row0) {
    List<NodeId> row1 = new ArrayList<>(List.of(N3));
    row1.addAll(List.of(N1, N2).subList(0, row0.length - 1));
    return PartitionAssignment.of("test", epoch, 0, HashSlots.of(2),
        List.of(List.of(row0), row1));
  }

  private static PartitionStatus at(int partition, PartitionState state, long epoch) {
    return new PartitionStatus(partition, state, epoch, 0);
  }

  private static Map<NodeId, List<PartitionStatus>> held(Object... nodeThenStatuses) {
    Map<NodeId, List<PartitionStatus>> held = new LinkedHashMap<>();
    NodeId node = null;
    for (Object o : nodeThenStatuses) {
      if (o instanceof NodeId n) {
        node = n;
        held.put(n, new ArrayList<>());
      } else {
        held.get(node).add((PartitionStatus) o);
      }
    }
    return held;
  }

  @Test
  void aCommittedMoveActivatesItsTargetAndThenDropsItsSource() {
    ReconcilePlan plan = ReconcilePlan.of(table(5, N2),
        held(N1, at(0, MIGRATING_OUT, 5), N2, at(0, RECEIVED, 5)), true, Set.of());
    assertThat(plan.actions()).containsExactly(
        new Action(Kind.ACTIVATE, N2, 0, 5, N1),
        new Action(Kind.DROP_SOURCE, N1, 0, 5, N2));
    assertThat(plan.problems()).isEmpty();
  }

  @Test
  void aMoveTheTableDoesNotCommitIsAbortedAndItsSourceUnfenced() {
    ReconcilePlan plan = ReconcilePlan.of(table(4, N1),
        held(N1, at(0, MIGRATING_OUT, 5), N2, at(0, RECEIVED, 5)), true, Set.of());
    assertThat(plan.actions()).containsExactly(
        new Action(Kind.ABORT, N2, 0, 5, null),
        new Action(Kind.UNFENCE, N1, 0, 5, null));
  }

  @Test
  void aMoveCommittedWithoutItUnfencesTheSourceThatStillOwns() {
    // the table at or past the move's epoch names the source as the owner
    ReconcilePlan plan = ReconcilePlan.of(table(6, N1),
        held(N1, at(0, MIGRATING_OUT, 5), N2, at(0, RECEIVING, 5)), true, Set.of());
    assertThat(plan.actions()).containsExactly(
        new Action(Kind.ABORT, N2, 0, 5, null),
        new Action(Kind.UNFENCE, N1, 0, 5, null));
  }

  @Test
  void aSourceIsNotUnfencedWhenSomeNodeDidNotAnswer() {
    ReconcilePlan plan = ReconcilePlan.of(table(4, N1),
        held(N1, at(0, MIGRATING_OUT, 5)), false, Set.of());
    assertThat(plan.actions()).isEmpty();
  }

  @Test
  void aCommittedOwnerStillReceivingIsLeftAloneAndItsSourceStaysFenced() {
    // the listing is older than the commit: the copy was acknowledged in between
    ReconcilePlan plan = ReconcilePlan.of(table(5, N2),
        held(N1, at(0, MIGRATING_OUT, 5), N2, at(0, RECEIVING, 5)), true, Set.of());
    assertThat(plan.actions()).containsExactly(new Action(Kind.DROP_SOURCE, N1, 0, 5, N2));
    assertThat(plan.problems()).containsExactly("n2 still receives partition 0");
  }

  @Test
  void movesInFlightHereAreLeftAlone() {
    ReconcilePlan plan = ReconcilePlan.of(table(4, N1),
        held(N1, at(0, MIGRATING_OUT, 5), N2, at(0, RECEIVED, 5)), true, Set.of("0@5"));
    assertThat(plan.actions()).isEmpty();
  }

  @Test
  void replicasTheRowNoLongerNamesAreDroppedAtTheTablesEpoch() {
    ReconcilePlan plan = ReconcilePlan.of(table(7, N1, N2),
        held(N1, at(0, OWNED, 7), N2, at(0, BACKUP, 7), N3, at(0, BACKUP, 6), at(1, OWNED, 3)),
        true, Set.of());
    assertThat(plan.actions()).containsExactly(new Action(Kind.DROP_STALE, N3, 0, 7, null));
  }

  @Test
  void partitionsBeyondTheTableAreIgnored() {
    ReconcilePlan plan = ReconcilePlan.of(table(7, N1),
        held(N2, at(2, RECEIVED, 3), at(2, MIGRATING_OUT, 3), at(3, OWNED, 1)), true, Set.of());
    assertThat(plan.actions()).isEmpty();
  }

  static LongStream seeds() {
    return LongStream.rangeClosed(1, 40);
  }

  /**
   * Random listings (seeded): whatever the nodes report, the plan keeps its order, touches no
   * move in flight, activates only the table's owner with the data at a committed epoch, and
   * unfences only when every node answered and no node takes the move in.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void randomListingsKeepTheInvariants(long seed) {
    Random random = new Random(seed);
    List<NodeId> nodes = List.of(N1, N2, N3);
    long epoch = 3 + random.nextInt(4);
    PartitionAssignment table = table(epoch, nodes.get(random.nextInt(3)));
    PartitionState[] states = PartitionState.values();
    Map<NodeId, List<PartitionStatus>> held = new LinkedHashMap<>();
    for (NodeId n : nodes) {
      List<PartitionStatus> list = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        list.add(at(random.nextInt(3), states[random.nextInt(states.length)],
            1 + random.nextInt(8)));
      }
      held.put(n, list);
    }
    boolean everyoneAnswered = random.nextBoolean();
    Set<String> inFlight = random.nextBoolean() ? Set.of() : Set.of("0@" + (epoch + 1), "1@2");
    ReconcilePlan plan = ReconcilePlan.of(table, held, everyoneAnswered, inFlight);
    String context = "seed " + seed + ": table " + table + ", listings " + held + ", in flight "
        + inFlight + ", everyone answered " + everyoneAnswered + " -> " + plan;

    int rank = 0;
    for (Action a : plan.actions()) {
      int r = switch (a.kind()) {
        case ACTIVATE, ABORT -> 0;
        case UNFENCE, DROP_SOURCE -> 1;
        case DROP_STALE -> 2;
      };
      assertThat(r).as(context).isGreaterThanOrEqualTo(rank);
      rank = r;
      assertThat(a.partition()).as(context).isLessThan(table.partitionCount());
      if (a.kind() != Kind.DROP_STALE) {
        assertThat(inFlight).as(context).doesNotContain(a.move());
      }
      List<PartitionStatus> listed = held.get(a.node());
      switch (a.kind()) {
        case ACTIVATE -> {
          assertThat(table.primary(a.partition())).as(context).isEqualTo(a.node());
          assertThat(a.epoch()).as(context).isLessThanOrEqualTo(epoch);
          assertThat(listed).as(context).contains(at(a.partition(), RECEIVED, a.epoch()));
        }
        case UNFENCE -> {
          assertThat(everyoneAnswered).as(context).isTrue();
          assertThat(listed).as(context).contains(at(a.partition(), MIGRATING_OUT, a.epoch()));
          for (Map.Entry<NodeId, List<PartitionStatus>> e : held.entrySet()) {
            boolean ownerReceiving = table.primary(a.partition()).equals(e.getKey())
                && a.epoch() <= epoch;
            if (ownerReceiving) {
              assertThat(e.getValue()).as(context)
                  .doesNotContain(at(a.partition(), RECEIVING, a.epoch()));
            }
          }
        }
        case DROP_SOURCE -> {
          assertThat(a.other()).as(context).isEqualTo(table.primary(a.partition()))
              .isNotEqualTo(a.node());
          assertThat(a.epoch()).as(context).isLessThanOrEqualTo(epoch);
        }
        case DROP_STALE -> {
          assertThat(table.replicas(a.partition())).as(context).doesNotContain(a.node());
          assertThat(a.epoch()).as(context).isEqualTo(epoch);
        }
        case ABORT -> assertThat(listed).as(context).anyMatch(s -> s.partition() == a.partition()
            && s.epoch() == a.epoch() && (s.state() == RECEIVING || s.state() == RECEIVED));
        default -> throw new AssertionError(a);
      }
    }
  }
}
