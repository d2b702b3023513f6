package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Short seeded runs of the real kvstore on processes on loopback. */
class KvVerifyTest {

  private static final Path STORE = Path.of("target", "store");

  static VerifySpec kv(long seed, String... nemeses) {
    return VerifySpec.defaults("kv").withNodes(4).withNemeses(List.of(nemeses))
        .withTime(Duration.ofSeconds(20)).withConcurrency(8).withRate(150).withSeed(seed)
        .withOpsPerKey(150).withStore(STORE);
  }

  @Test
  void correctKvPassesKillPauseMembershipAndMidMigrationFaults() throws Exception {
    RunResult r = Verifier.run(kv(11, "kill", "pause", "membership", "migration"), System.out);
    System.out.println(r.summary());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(3);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(100);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("history.edn"))).contains(":process :nemesis");
  }

  @Test
  void ackBeforeLogIsCaughtByKills() {
    RunResult r = Verifier.run(kv(12, "kill").withOptions(Map.of("fault", "ack-before-log")),
        System.out);
    System.out.println(r.summary());
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }
}
