package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.partkit.bench.BenchResult.PlacementRow;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One small run of every native subject, checked against what each algorithm must give. */
class BenchTest {

  static final long SEED = 7;
  static BenchResult result;

  @BeforeAll
  static void run() {
    BenchOptions options = BenchOptions.defaults()
        .withSubjects(List.of("ignite-rendezvous", "hazelcast", "cassandra-vnodes-16",
            "guava-jump", "no-such-strategy-yet=nonexistent:partitions=64"))
        .withSizes(List.of(8, 30)).withSampleKeys(200_000).withPartitions(256)
        .withLookupMillis(20).withSeed(SEED);
    result = Bench.run(options, Progress.silent());
  }

  private static PlacementRow row(String subject, int nodes, String weights, int rf) {
    return result.placements().stream().filter(p -> p.subject().equals(subject)
        && p.nodes() == nodes && p.weights().equals(weights) && p.replicas() == rf)
        .findFirst().orElseThrow();
  }

  @Test
  void theMachineTableHasTheLoadAverageAtStartAndEnd() {
    assertThat(result.environment()).containsKeys(Bench.LOAD_AT_START, Bench.LOAD_AT_END);
    // on Linux "0.52 0.61 0.70 (2 cores)"; elsewhere it says it is unknown
    assertThat(result.environment().get(Bench.LOAD_AT_START))
        .matches("\\d+\\.\\d+ \\d+\\.\\d+ \\d+\\.\\d+ \\(\\d+ cores\\)|unknown.*");
    assertThat(result.environment()).containsEntry("run", "full");
  }

  @Test
  void aMissingStrategyIsReportedAndTheRunGoesOn() {
    assertThat(result.problems())
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("no-such-strategy-yet: not measured")
                    .contains("unknown partitioning strategy"));
    assertThat(result.subjects()).containsKeys("ignite-rendezvous", "hazelcast",
        "cassandra-vnodes-16", "guava-jump").doesNotContainKey("no-such-strategy-yet");
  }

  @Test
  void jumpHashMovesOnlyWhatItMustAndIsSkippedWhereItHasNoAnswer() {
    for (int n : new int[] {8, 30}) {
      PlacementRow p = row("guava-jump", n, "equal", 1);
      // jump hash moves exactly 1/(n+1) on a join and 1/n when the last bucket leaves
      assertThat(p.joinMoved()).as("seed %d, n %d", SEED, n)
          .isCloseTo(1.0 / (n + 1), within(0.01));
      assertThat(p.joinOptimal()).isCloseTo(1.0 / (n + 1), within(1e-12));
      assertThat(p.leaveMoved()).as("seed %d, n %d", SEED, n).isCloseTo(1.0 / n, within(0.01));
      assertThat(p.joinMovedBetweenStaying()).isZero();
      assertThat(p.method()).isEqualTo("sampled 200k keys");
    }
    assertThat(row("guava-jump", 8, "mixed", 1).measured()).isFalse();
    assertThat(row("guava-jump", 8, "equal", 3).note()).contains("no replicas");
  }

  @Test
  void vnodesAreExactAndWeighted() {
    PlacementRow eq = row("cassandra-vnodes-16", 30, "equal", 3);
    assertThat(eq.method()).isEqualTo("exact");
    assertThat(eq.partitions()).isEqualTo(30 * 16);
    // random tokens spread loads around 1/sqrt(16) = 25% relative deviation
    assertThat(eq.keysStdDev()).as("seed %d", SEED).isBetween(0.1, 0.5);
    PlacementRow mixed = row("cassandra-vnodes-16", 30, "mixed", 1);
    assertThat(mixed.measured()).isTrue();
    assertThat(mixed.partitions()).isEqualTo(10 * 16 * (1 + 2 + 4));
    // a join only takes ranges: nothing moves between members that stayed
    assertThat(eq.joinMovedBetweenStaying()).isZero();
    assertThat(eq.leaveMovedBetweenStaying()).isZero();
  }

  @Test
  void nativeFixedPartitionsKeepTheirCountAndMoveLittle() {
    for (String s : List.of("ignite-rendezvous", "hazelcast")) {
      PlacementRow p = row(s, 30, "equal", 1);
      assertThat(p.partitions()).isEqualTo(256);
      assertThat(p.method()).isEqualTo("sampled 200k keys");
      assertThat(p.joinMoved() / p.joinOptimal()).as("%s seed %d", s, SEED).isBetween(0.5, 3.0);
      assertThat(p.keysMaxAvg()).as("%s seed %d", s, SEED).isGreaterThanOrEqualTo(1.0);
      assertThat(row(s, 30, "mixed", 1).note()).contains("no ");
    }
    // rendezvous hashing never moves data between members that stay
    assertThat(row("ignite-rendezvous", 30, "equal", 3).joinMovedBetweenStaying()).isZero();
  }

  @Test
  void lookupsAndPlanningAreMeasuredForEverySubjectAndSize() {
    for (String s : result.subjects().keySet()) {
      for (int n : new int[] {8, 30}) {
        assertThat(result.lookups()).as(s + " " + n)
            .anySatisfy(l -> {
              assertThat(l.subject()).isEqualTo(s);
              assertThat(l.nodes()).isEqualTo(n);
              assertThat(l.nanosPerLookup()).isPositive();
              assertThat(l.bareHashNanos()).isPositive();
              assertThat(l.rounds()).isEqualTo(BenchOptions.defaults().lookupRounds());
              assertThat(l.lookupMin()).isLessThanOrEqualTo(l.nanosPerLookup())
                  .isGreaterThan(0);
              assertThat(l.lookupMax()).isGreaterThanOrEqualTo(l.nanosPerLookup());
              assertThat(l.ratioMin()).isLessThanOrEqualTo(l.ratio());
              assertThat(l.ratioMax()).isGreaterThanOrEqualTo(l.ratio());
            });
        assertThat(result.planning()).as(s + " " + n).anySatisfy(p -> {
          assertThat(p.subject()).isEqualTo(s);
          assertThat(p.nodes()).isEqualTo(n);
          assertThat(p.replicas()).isEqualTo(s.equals("guava-jump") ? 1 : 3);
          assertThat(p.allocatedBytes()).isPositive();
        });
      }
    }
  }
}
