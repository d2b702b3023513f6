package io.partkit.harness.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.partkit.harness.RunResult;
import io.partkit.harness.runtime.ContainerPrerequisite;
import io.partkit.harness.runtime.SetupException;
import io.partkit.verification.checker.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Python example on the containers runtime: every node a container of partkit's node image,
 * the example's files copied into the run directory (which the containers bind), the clients on
 * this machine. The nodes run the image's {@code python3}, which the image must have: without
 * it this test fails under {@code CI=true} and is skipped elsewhere, saying so.
 */
class ExecContainerTest {

  @BeforeAll
  static void needsEngineAndImage() {
    ContainerPrerequisite.require();
  }

  @Test
  void theCorrectStoreIsValidUnderKillsAndPausesInContainers() {
    // the nodes run the image's python3, the clients this machine's
    Map<String, String> options = ExecVerifyTest.example("python3", "after-log");
    options.put("client-command", ExecVerifyTest.example("after-log").get("client-command"));
    RunResult r;
    try {
      r = ExecVerifyTest.verify(ExecVerifyTest.run(5, options).nemeses(List.of("kill", "pause"))
          .runtime("containers").build());
    } catch (SetupException e) {
      // the entry script's sh says the first, setpriv (a run as a user other than root) the second
      if (!e.getMessage().contains("python3: not found")
          && !e.getMessage().contains("failed to execute python3")) {
        throw e;
      }
      String why = "the node image has no python3, which the exec example's nodes run (tools/"
          + "build-node-image installs a JRE, etcd, nftables, iproute2 and procps): add python3"
          + " to its packages, or give --runtime containers:IMAGE an image with it. " + e;
      if ("true".equals(System.getenv("CI"))) {
        fail(why);
      }
      Assumptions.abort(why);
      return;
    }
    assertThat(r.faults()).as("faults").isGreaterThanOrEqualTo(1);
    assertThat(r.lostWrites().acknowledged()).as("acknowledged writes checked").isGreaterThan(50);
    assertThat(r.verdict()).as(r.summary()).isEqualTo(Verdict.VALID);
  }
}
