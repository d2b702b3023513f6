package io.partkit.harness.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.RunResult;
import io.partkit.harness.VerifyRun;
import io.partkit.harness.VerifySpec;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code partkit verify --system replica --time 10s --nemesis kill} on the processes runtime: five
 * node processes and a control, nodes killed with {@code kill -9} and restarted from their logs,
 * and the history is linearizable with every acknowledged write read back.
 */
class ReplicaVerifyTest {

  @Test
  void replicaCoresOnRealProcessesPassKills() throws Exception {
    VerifySpec spec = VerifySpec.builder("replica").nemeses(List.of("kill"))
        .time(Duration.ofSeconds(10)).seed(31).runtime("processes")
        .store(Path.of("target", "store")).build();
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(1);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    String history = Files.readString(r.dir().resolve("history.edn"));
    assertThat(history).contains(":process :nemesis", "kill");
    assertThat(r.dir().resolve("control.log")).isNotEmptyFile();
  }

  @Test
  void replicaCoresOnRealProcessesPassKillsAndPauses() {
    VerifySpec spec = VerifySpec.builder("replica").nemeses(List.of("kill", "pause"))
        .time(Duration.ofSeconds(10)).seed(32).runtime("processes")
        .store(Path.of("target", "store")).build();
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    assertThat(r.faults()).as("faults injected").isGreaterThanOrEqualTo(1);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }
}
