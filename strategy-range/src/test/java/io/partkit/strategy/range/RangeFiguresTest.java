package io.partkit.strategy.range;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The figures quoted in docs/strategy-range.md, printed and checked: shares of the 8-byte-prefix
 * line (keys with uniformly random first bytes), exact. Reproduce with: {@code ./mvnw -q -B -o
 * -pl strategy-range -am test -Dtest=RangeFiguresTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RangeFiguresTest {

  private static void print(String format, Object... args) {
    System.out.println(String.format(Locale.ROOT, format, args));
  }

  private static Partitioner range(int partitions, int replicas) {
    return Partitioners.load().create("range",
        PartitionerConfig.of("partitions", partitions, "replicas", replicas));
  }

  @Test
  void balanceOn100Nodes() {
    MembershipView view = MembershipView.ofEqualNodes("node-", 100);
    PlacementStatistics stats = PlacementStatistics.of(range(1024, 1).assign(view), view);
    double best = PlacementStatistics.bestMaxOverAvg(1024, 100);
    print("range 1024 even ranges / 100 nodes: key space max/avg = %.4f (optimum %.4f)",
        stats.primaryShareMaxOverAvg(), best);
    assertThat(stats.primaryShareMaxOverAvg()).isCloseTo(best, org.assertj.core.data.Offset
        .offset(1e-9));
  }

  @Test
  void movementOnOneJoin() {
    for (int n : new int[] {10, 100}) {
      Partitioner p = range(1024, 1);
      MembershipView before = MembershipView.ofEqualNodes("node-", n);
      MembershipView after = before.with(Member.of("joiner"));
      PartitionAssignment a = p.assign(before);
      Movement m = Movement.between(a, before, p.assign(after, Optional.of(a)), after);
      print("range join %d -> %d: moved %.4f of keys, optimum %.4f, ratio %.3f, between"
              + " staying %.4f", n, n + 1, m.primaryMovedShare(), m.optimalShare(),
          m.primaryMovedOverOptimal(), m.primaryMovedBetweenStayingShare());
      assertThat(m.primaryMovedOverOptimal()).isLessThanOrEqualTo(1.10);
      assertThat(m.primaryMovedBetweenStayingShare()).isZero();
    }
  }
}
