package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.checker.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A short seeded run of real Ignite 2.18 server nodes (separate processes on loopback) with
 * partkit's {@code fixed} affinity, while nodes are killed and leave and join the cluster: the
 * registers stay linearizable, no acknowledged write is lost, and afterwards every partition's
 * owners are exactly partkit's prediction for the final topology (replayed through the
 * topologies Ignite went through).
 */
class IgniteVerifyTest {

  static VerifySpec.Builder ignite(long seed, String... nemeses) {
    return KvVerifyTest.ciRun("ignite", 4, seed, nemeses);
  }

  @Test
  void partkitAffinitySurvivesKillsAndMembershipChanges() throws Exception {
    RunResult r = KvVerifyTest.run(ignite(31, "membership", "kill")
        .options(Map.of("affinity", "partkit-fixed")).build());
    assertValidWithPartkitPlacement(r);
    assertThat(Files.readString(r.dir().resolve("results.edn")))
        .contains(":placement {:valid? true");
  }

  /** A valid run of kills and membership changes whose placement is partkit's prediction. */
  static void assertValidWithPartkitPlacement(RunResult r) throws IOException {
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.placement()).as("placement after the run").hasValueSatisfying(p -> {
      assertThat(p.misplaced()).as(p.rule()).isEmpty();
      assertThat(p.checked()).as("partitions checked").isEqualTo(64);
    });
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("history.edn")))
        .contains(":f :start-membership", ":f :start-kill");
  }
}
