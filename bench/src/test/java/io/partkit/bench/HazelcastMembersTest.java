package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.bench.BenchResult.PlacementRow;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Real embedded Hazelcast members (three, then four, then two) against Hazelcast's generator
 * driven without members: both are Hazelcast's own partition table, so they must agree on what
 * any table of this size gives.
 */
class HazelcastMembersTest {

  @Test
  void embeddedMembersAndTheGeneratorGiveHazelcastsBalanceAndMoves() {
    BenchOptions options = BenchOptions.defaults()
        .withSubjects(List.of("hazelcast-members", "hazelcast")).withSizes(List.of(3))
        .withWeights(List.of(Weights.EQUAL)).withReplicas(List.of(1, 2)).withPartitions(60)
        .withSampleKeys(30_000).withLookupMillis(10).withHazelcastMembersMax(3).withSeed(5);
    BenchResult result = Bench.run(options, Progress.silent());
    assertThat(result.problems()).isEmpty();
    for (String subject : List.of("hazelcast-members", "hazelcast")) {
      for (int rf : new int[] {1, 2}) {
        PlacementRow row = result.placements().stream()
            .filter(p -> p.subject().equals(subject) && p.replicas() == rf).findFirst()
            .orElseThrow();
        // 60 partitions on 3 members: Hazelcast balances partition counts exactly
        assertThat(row.partitionsMaxAvg()).as(subject + " RF " + rf).isEqualTo(1.0);
        // a join gives the newcomer its 15 of 60 partitions, and takes them from the others only
        assertThat(row.joinMoved()).as(subject + " RF " + rf).isBetween(0.2, 0.3);
        assertThat(row.joinMovedBetweenStaying()).as(subject + " RF " + rf).isLessThan(0.05);
        assertThat(row.leaveMoved()).as(subject + " RF " + rf).isGreaterThanOrEqualTo(0.3);
      }
    }
    assertThat(result.lookups()).anySatisfy(l -> assertThat(l.subject())
        .isEqualTo("hazelcast-members"));
  }
}
