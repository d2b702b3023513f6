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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded properties of the fixed table: exact floor/ceil balance of the weighted share, the
 * fewest moves (checked against an independent formula), moves only to a joining / off a leaving
 * member, per-rank backup balance.
 */
class FixedBalanceTest {

  private static Partitioner fixed(int partitions, int replicas) {
    return FixedPartitioner.create(
        PartitionerConfig.of("partitions", partitions, "replicas", replicas));
  }

  @ParameterizedTest
  @ValueSource(ints = {10, 100, 1000})
  void equalNodesGetFloorOrCeil(int nodes) {
    MembershipView view = MembershipView.ofEqualNodes("node-", nodes);
    PartitionAssignment a = fixed(1024, 2).assign(view);
    for (int r = 0; r < 2; r++) {
      int[] counts = rankCounts(a, view, r);
      for (int c : counts) {
        assertThat(c).as("rank %d", r).isBetween(1024 / nodes, (1024 + nodes - 1) / nodes);
      }
    }
    assertThat(PlacementStatistics.of(a, view).primaryPartitionsMaxOverAvg())
        .isEqualTo(PlacementStatistics.bestMaxOverAvg(1024, nodes));
  }

  static Stream<Arguments> sequences() {
    return LongStream.range(0, 24).mapToObj(seed -> Arguments.of(seed, seed % 3 == 0));
  }

  /**
   * Random joins and leaves; every table is exactly balanced (by weight) at every rank the
   * weights allow, and the primaries move exactly as little as the optimum.
   */
  @ParameterizedTest(name = "seed {0}, weighted {1}")
  @MethodSource("sequences")
  void randomMembershipChangesStayBalancedWithFewestMoves(long seed, boolean weighted) {
    Random random = new Random(seed);
    int partitions = random.nextBoolean() ? 1024 : 271;
    int replicas = 1 + random.nextInt(3);
    Partitioner fixed = fixed(partitions, replicas);
    List<Member> members = new ArrayList<>();
    int nextId = 0;
    for (int i = 3 + random.nextInt(20); i > 0; i--) {
      members.add(Member.weighted("m" + nextId++, weighted ? 1 + random.nextInt(4) : 1));
    }
    MembershipView view = MembershipView.of(0, members);
    PartitionAssignment table = fixed.assign(view);
    checkBalanced(seed, table, view, weighted);
    for (int step = 0; step < 15; step++) {
      MembershipView next;
      boolean join = view.size() <= replicas + 1 || random.nextInt(3) > 0;
      if (join) {
        next = view.with(Member.weighted("m" + nextId++, weighted ? 1 + random.nextInt(4) : 1));
      } else {
        next = view.without(view.member(random.nextInt(view.size())).id());
      }
      PartitionAssignment after = fixed.assign(next, Optional.of(table));
      checkBalanced(seed, after, next, weighted);
      assertThat(primaryMoves(table, after)).as("seed %d step %d: primary moves", seed, step)
          .isEqualTo(optimalPrimaryMoves(table, next));
      Movement m = Movement.between(table, view, after, next);
      if (!weighted) {
        // with unequal weights, exact floor/ceil can require a few moves between staying
        // members (they are counted in the optimum above); with equal weights it never does
        assertThat(m.primaryMovedBetweenStayingShare())
            .as("seed %d step %d: primaries moved between staying members", seed, step)
            .isZero();
      }
      if (join && !weighted) {
        // Backups are balanced per rank. When an over-target member's backups are nearly all of
        // partitions the new member already holds at a lower rank, one swap through a staying
        // member is needed (seed 7: 7 of 3072 copies); bounded here, documented in
        // docs/strategy-fixed.md.
        assertThat(m.replicaCopiesToStayingShare())
            .as("seed %d step %d: new copies on staying members after a join", seed, step)
            .isLessThanOrEqualTo(0.005);
      }
      table = after;
      view = next;
    }
  }

  private static void checkBalanced(long seed, PartitionAssignment a, MembershipView view,
      boolean weighted) {
    long total = view.totalWeight();
    int ranks = weighted ? 1 : a.replicationFactor();
    for (int r = 0; r < ranks; r++) {
      int[] counts = rankCounts(a, view, r);
      for (int i = 0; i < view.size(); i++) {
        long share = (long) a.partitionCount() * view.member(i).weight();
        assertThat(counts[i]).as("seed %d: rank %d count of %s", seed, r, view.member(i))
            .isBetween((int) (share / total), (int) ((share + total - 1) / total));
      }
    }
  }

  static int[] rankCounts(PartitionAssignment a, MembershipView view, int rank) {
    int[] counts = new int[view.size()];
    for (int p = 0; p < a.partitionCount(); p++) {
      counts[view.indexOf(a.replica(p, rank))]++;
    }
    return counts;
  }

  static int primaryMoves(PartitionAssignment before, PartitionAssignment after) {
    int moves = 0;
    for (int p = 0; p < before.partitionCount(); p++) {
      moves += before.primary(p).equals(after.primary(p)) ? 0 : 1;
    }
    return moves;
  }

  /**
   * The fewest primary moves any floor/ceil table of {@code next} needs from {@code before},
   * derived independently of the implementation: orphaned partitions must move; each member
   * sheds what it holds above its floor, except that each of the {@code R} leftover ceil units,
   * given to a member holding above its floor (with a fractional share), saves one move.
   */
  static int optimalPrimaryMoves(PartitionAssignment before, MembershipView next) {
    Map<NodeId, Integer> held = new HashMap<>();
    int orphans = 0;
    for (int p = 0; p < before.partitionCount(); p++) {
      NodeId owner = before.primary(p);
      if (next.contains(owner)) {
        held.merge(owner, 1, Integer::sum);
      } else {
        orphans++;
      }
    }
    long total = next.totalWeight();
    int partitions = before.partitionCount();
    int floors = 0;
    int excess = 0;
    int savers = 0;
    for (Member m : next.members()) {
      long share = (long) partitions * m.weight();
      int floor = (int) (share / total);
      int h = held.getOrDefault(m.id(), 0);
      floors += floor;
      excess += Math.max(0, h - floor);
      if (share % total != 0 && h > floor) {
        savers++;
      }
    }
    return orphans + excess - Math.min(partitions - floors, savers);
  }
}
