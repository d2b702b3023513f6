package io.partkit.harness.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.fail;

import io.partkit.harness.RunResult;
import io.partkit.harness.VerifyRun;
import io.partkit.harness.VerifySpec;
import io.partkit.harness.runtime.SetupException;
import io.partkit.verification.checker.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
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

  /**
   * The example's commands with {@code python}, its files copied into the run directory (so
   * containers see them).
   */
  static Map<String, String> example(String python, String ack) {
    Map<String, String> o = new HashMap<>();
    o.put("files", EXAMPLE.toString());
    o.put("node-command", python + " {files}/register_server.py --id {id} --host {host}"
        + " --port {port} --data {data} --ack " + ack);
    o.put("client-command", python + " {files}/register_client.py");
    return o;
  }

  /** The example's commands with this machine's Python. */
  static Map<String, String> example(String ack) {
    return example(python(), ack);
  }

  /**
   * This machine's python3 interpreter itself, not a version manager's shim on the PATH: a shim
   * (pyenv's is a shell script) adds a second of start-up to every client on a loaded machine,
   * which a 10 s run cannot spare. Missing, a test fails under {@code CI=true} and is skipped
   * elsewhere.
   */
  static synchronized String python() {
    if (python == null) {
      String found = null;
      try {
        Process p = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)")
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.waitFor() == 0 && !out.isEmpty()) {
          found = out;
        }
      } catch (IOException e) {
        // not installed: said below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (found == null) {
        String why = "the exec example needs python3 on the PATH (apt-get install python3)";
        if ("true".equals(System.getenv("CI"))) {
          fail(why);
        }
        Assumptions.abort(why);
      }
      python = found;
    }
    return python;
  }

  private static String python;

  /**
   * Short: 10 s of kills on 3 nodes, 10 workers at 150 ops/s and 25 ops per key, so that every
   * node has written keys when the run's one kill comes, a second in.
   */
  static VerifySpec.Builder run(long seed, Map<String, String> options) {
    return VerifySpec.builder("exec").nodes(3).nemeses(List.of("kill"))
        .time(Duration.ofSeconds(10)).concurrency(10).rate(150).seed(seed).opsPerKey(25)
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
    o.put("node-command", "sh -c 'echo cannot bind $0; exit 3' {port}");
    assertThatThrownBy(() -> verify(run(1, o).nemeses(List.of()).build()))
        .isInstanceOf(SetupException.class)
        .hasMessageContaining("exec node n1 (`sh -c echo cannot bind $0; exit 3 ")
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
    o.put("client-command", "sh -c 'exit 2'");
    assertThatThrownBy(() -> verify(run(1, o).nemeses(List.of()).build()))
        .isInstanceOf(SetupException.class)
        // it may be gone before the operation is written, or after: either way it is named
        .hasMessageContaining("client `sh -c exit 2` exited with status 2 before ")
        .hasMessageContaining(" {\"id\":1,\"f\":\"read\",\"key\":0");
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
