package io.partkit.strategy.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The figures quoted in docs/strategy-rendezvous.md, printed to standard output and
 * checked against the done-when bounds. Reproduce with:
 * {@code ./mvnw -q -pl strategy-rendezvous -am verify -Dtest=RendezvousFiguresTest
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RendezvousFiguresTest {

  private static Partitioner rendezvous(Object... options) {
    return RendezvousPartitioner.create(PartitionerConfig.of(options));
  }

  private static void print(String format, Object... args) {
    System.out.println(String.format(Locale.ROOT, format, args));
  }

  @Test
  void balanceOn120Nodes() {
    MembershipView view = MembershipView.ofEqualNodes("node-", 120);
    double plain = PlacementStatistics.of(rendezvous("partitions", 1024).assign(view), view)
        .primaryPartitionsMaxOverAvg();
    double bounded = PlacementStatistics.of(
        rendezvous("partitions", 1024, "load-bound", 1.10).assign(view), view)
        .primaryPartitionsMaxOverAvg();
    print("rendezvous 1024 partitions / 120 nodes: plain HRW max/avg = %.4f, "
        + "load-bound 1.10 max/avg = %.4f", plain, bounded);
    assertThat(bounded).isLessThanOrEqualTo(1.10);
    assertThat(plain).isGreaterThan(1.5);
  }

  @Test
  void movementOnOneJoin() {
    for (String bound : new String[] {null, "1.10"}) {
      for (int n : new int[] {10, 100}) {
        Partitioner p = bound == null ? rendezvous("partitions", 1024)
            : rendezvous("partitions", 1024, "load-bound", bound);
        MembershipView before = MembershipView.ofEqualNodes("node-", n);
        MembershipView after = before.with(Member.of("joiner"));
        PartitionAssignment a = p.assign(before);
        PartitionAssignment b = p.assign(after, Optional.of(a));
        Movement m = Movement.between(a, before, b, after);
        print("rendezvous%s join %d -> %d: moved %.4f of keys, optimum %.4f, ratio %.3f, "
                + "between staying %.4f; max/avg after %.4f",
            bound == null ? "" : " load-bound " + bound, n, n + 1, m.primaryMovedShare(),
            m.optimalShare(), m.primaryMovedOverOptimal(), m.primaryMovedBetweenStayingShare(),
            PlacementStatistics.of(b, after).primaryPartitionsMaxOverAvg());
        if (bound == null) {
          assertThat(m.primaryMovedBetweenStayingShare()).isZero();
        }
      }
    }
  }
}
