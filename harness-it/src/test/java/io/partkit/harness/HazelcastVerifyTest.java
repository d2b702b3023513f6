package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NetnsPrerequisite;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.OpType;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Short seeded runs of real Hazelcast 5.7 members (child JVMs, -Xmx256m, started in parallel):
 * kills and membership changes with partkit's partitioning pass and keep partkit's placement;
 * network partitions reproduce Jepsen's Hazelcast finding (lost acknowledged updates when the
 * split clusters merge).
 */
class HazelcastVerifyTest {

  static VerifySpec.Builder hazelcast(long seed, String... nemeses) {
    return KvVerifyTest.ciRun("hazelcast", 3, seed, nemeses);
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
    assertThat(placement.checked()).as("keys found in the cluster").isGreaterThan(10);
    assertThat(placement.misplaced()).as(placement.rule()).isEmpty();
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("results.edn")))
        .contains(":placement {:valid? true");
    assertThat(Files.readString(r.dir().resolve("h1.log"))).contains("HAZELCAST MEMBER READY");
  }

  /**
   * Jepsen's analysis of Hazelcast 3.8.3 (https://jepsen.io/analyses/hazelcast-3-8-3): an IMap
   * loses acknowledged updates when a network partition heals and the split clusters merge.
   * Hazelcast 5.7 still does, with its default merge policy ({@code PutIfAbsentMergePolicy}): the
   * members stop hearing each other after 2 s, each side serves the keys on its own, and after
   * the heal the smaller side's entries are merged into the larger only where the larger has none.
   * Each client talks to one member, as in Jepsen's test, so both sides take writes. The timings
   * are shortened so that a 2-5 s cut splits the cluster: heartbeat 1 s, no heartbeat for 2 s
   * means dead (Hazelcast's default 60 s), first merge check after 5 s (300 s), then every 2 s
   * (120 s).
   */
  @Test
  void aPartitionedHazelcastLosesAcknowledgedUpdatesWhenTheSplitClustersMerge() throws Exception {
    NetnsPrerequisite.require();
    RunResult r = KvVerifyTest.run(hazelcast(41, "partition").time(Duration.ofSeconds(30))
        .concurrency(10).options(SPLIT_BRAIN).runtime("netns").build());
    assertSplitBrainLosses(r);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.stats().total(OpType.OK)).as("it served through the faults").isGreaterThan(1000);
  }

  /** What the reproduction shows on any runtime: the split, the merge and what it cost. */
  static void assertSplitBrainLosses(RunResult r) throws IOException {
    assertThat(r.faults()).as("partitions injected").isGreaterThanOrEqualTo(3);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
    assertThat(!r.lostWrites().lost().isEmpty()
        || r.linearizability().verdict() == Verdict.INVALID)
        .as("lost acknowledged writes or a non-linearizable key: " + r.summary()).isTrue();
    String logs = Files.readString(r.dir().resolve("h1.log"))
        + Files.readString(r.dir().resolve("h2.log")) + Files.readString(r.dir().resolve("h3.log"));
    assertThat(logs).as("the cluster split and merged back").contains("is MERGED");
  }

  /** The options of the reproduction; see its test. */
  static final Map<String, String> SPLIT_BRAIN = Map.of("routing", "member",
      "heartbeat-seconds", "1", "no-heartbeat-seconds", "2", "merge-first-seconds", "5",
      "merge-next-seconds", "2");
}
