package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs of real Hazelcast 5.7 members (child JVMs, -Xmx256m, started in parallel).
 */
class HazelcastVerifyTest {

  static VerifySpec.Builder hazelcast(long seed, String... nemeses) {
    return VerifySpec.builder("hazelcast").nodes(3).nemeses(List.of(nemeses))
        .time(Duration.ofSeconds(20)).concurrency(8).rate(150).seed(seed).opsPerKey(150)
        .store(KvVerifyTest.STORE);
  }

  /**
   * Kills and graceful leaves/joins (Hazelcast migrates partitions each time) with partkit's
   * partitioning strategy on members and clients: linearizable, nothing lost, and after the run
   * every stored key sits in the partition partkit predicts.
   */
  @Test
  void partkitPartitioningSurvivesKillsAndMembershipChangesAndKeepsItsPlacement()
      throws Exception {
    // 30 s: a graceful leave and a join that waits for a safe cluster take seconds each
    RunResult r = KvVerifyTest.run(hazelcast(31, "kill", "membership").time(Duration.ofSeconds(30))
        .options(Map.of("partitioning", "partkit")).build());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.placement()).as("the placement check ran").isPresent();
    PlacementCheck placement = r.placement().orElseThrow();
    assertThat(placement.keys()).as("keys found in the cluster").isGreaterThan(10);
    assertThat(placement.misplaced()).as(placement.rule()).isEmpty();
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("results.edn"))).contains(":placement {:valid? true");
    assertThat(Files.readString(r.dir().resolve("h1.log"))).contains("HAZELCAST MEMBER READY");
  }
}
