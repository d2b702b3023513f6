package io.partkit.harness.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.RunResult;
import io.partkit.harness.VerifyRun;
import io.partkit.harness.VerifySpec;
import io.partkit.harness.runtime.SetupException;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Whole runs of examples/exec-register (Python) through the exec system on the processes
 * runtime, under the kill nemesis: the correct store is valid, the one that acknowledges writes
 * before logging them is caught. And bad input: a node command that exits at once and clients
 * that break the protocol are set-up failures naming the command and what it printed.
 */
class ExecVerifyTest {

  static final Path STORE = Path.of("target", "store");
  /** The example, found from the build's root (surefire sets PARTKIT_ROOT) or from here. */
  static final Path EXAMPLE = Path.of(System.getenv().getOrDefault("PARTKIT_ROOT", ".."),
      "examples", "exec-register").toAbsolutePath().normalize();

  /** The example's commands, its files copied into the run directory (so containers see them). */
  static Map<String, String> example(String ack) {
    Map<String, String> o = new HashMap<>();
    o.put("files", EXAMPLE.toString());
    o.put("node-command", "python3 {files}/register_server.py --id {id} --host {host}"
        + " --port {port} --data {data} --ack " + ack);
    o.put("client-command", "python3 {files}/register_client.py");
    return o;
  }

  /** Short: 10 s of kills on 3 nodes, 6 workers at 100 ops/s. */
  static VerifySpec.Builder run(long seed, Map<String, String> options) {
    return VerifySpec.builder("exec").nodes(3).nemeses(List.of("kill"))
        .time(Duration.ofSeconds(10)).concurrency(6).rate(100).seed(seed).opsPerKey(100)
        .store(STORE).options(options);
  }

  static RunResult verify(VerifySpec spec) {
    RunResult r = VerifyRun.run(spec, System.out);
    System.out.println("seed " + spec.seed() + ": " + r.summary());
    return r;
  }

  @Test
  void theCorrectStoreIsValidUnderKills() throws Exception {
    RunResult r = verify(run(5, example("after-log")).build());
    assertThat(r.faults()).as("kills").isGreaterThanOrEqualTo(1);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
    assertThat(Files.readString(r.dir().resolve("history.edn"))).contains(":f :start-kill");
    assertThat(r.dir().resolve("n1.log")).content().contains("READY n1 127.0.0.1:");
  }

  @Test
  void acknowledgingBeforeTheLogIsCaughtUnderKills() {
    RunResult r = verify(run(5, example("before-log")).build());
    assertThat(r.faults()).as("kills").isGreaterThanOrEqualTo(1);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.INVALID);
  }

  @Test
  void aNodeCommandThatExitsAtOnceIsASetUpFailureNamingTheCommandAndItsLastWords() {
    Map<String, String> o = example("after-log");
    o.put("node-command", "python3 -c 'import sys; print(\"cannot bind\", sys.argv[1]);"
        + " sys.exit(3)' {port}");
    assertThatThrownBy(() -> verify(run(1, o).nemeses(List.of()).build()))
        .isInstanceOf(SetupException.class)
        .hasMessageContaining("exec node n1 (`python3 -c import sys; print(\"cannot bind\"")
        .hasMessageContaining("did not print its ready line 'READY'")
        .hasMessageContaining("(it exited)")
        .hasMessageContaining("cannot bind ");
  }

  @Test
  void aClientThatPrintsGarbageIsASetUpFailureNamingTheCommandAndTheLine() {
    Map<String, String> o = example("after-log");
    o.put("client-command", "sh -c 'while read op; do echo \"hello from my client\"; done'");
    assertThatThrownBy(() -> verify(run(1, o).nemeses(List.of()).build()))
        .isInstanceOf(SetupException.class)
        .hasMessageContaining("exec client at set-up: client `sh -c while read op; do echo")
        .hasMessageContaining("with the line 'hello from my client': not JSON");
  }

  @Test
  void aClientThatExitsOrKeepsSilentIsASetUpFailure() {
    Map<String, String> o = example("after-log");
    o.put("client-command", "python3 -c 'import sys; sys.exit(2)'");
    assertThatThrownBy(() -> verify(run(1, o).nemeses(List.of()).build()))
        .isInstanceOf(SetupException.class)
        .hasMessageContaining("client `python3 -c import sys; sys.exit(2)` exited with status 2"
            + " before answering {\"id\":1,\"f\":\"read\"");
    o.put("client-command", "sleep 30");
    o.put("start-timeout-ms", "3000");
    assertThatThrownBy(() -> verify(run(1, o).nemeses(List.of()).build()))
        .isInstanceOf(SetupException.class)
        .hasMessageContaining("client `sleep 30` gave no answer to").hasMessageContaining(
            "within 3000 ms");
  }

  @Test
  void missingCommandsAreRefusedSayingWhatToGive() {
    assertThatThrownBy(() -> verify(run(1, Map.of()).nemeses(List.of()).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("give both --option node-command=... and --option"
            + " client-command=...");
  }
}
