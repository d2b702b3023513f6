package io.partkit.maven;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.junit.jupiter.api.Test;

/**
 * partkit's exit codes as the build's outcome: a verdict other than valid is a failure carrying
 * the verdict line (for verify, with the run's directory), a usage error a build error.
 */
class VerdictsTest {

  private static final String INVALID = "invalid: 6017 ops (199 ops/s under faults), 4 faults,"
      + " linearizable invalid, 1377 of 3197 acknowledged writes lost, 0 keys unread, check"
      + " 0.671 s; options durable=false; /p/target/partkit-store/register/20261128T171000.000";

  @Test
  void aValidRunPasses() {
    assertThatCode(() -> Verdicts.verifyOutcome(new PartkitFork.Result(0,
        List.of("valid: ..."), List.of()), "/p/store")).doesNotThrowAnyException();
    assertThatCode(() -> Verdicts.checkOutcome(new PartkitFork.Result(0,
        List.of("h.edn: valid (register, ...)"), List.of()))).doesNotThrowAnyException();
  }

  @Test
  void invalidLostWritesAndUnknownFailTheBuildWithTheVerdictLineAndTheRun() {
    for (int code : new int[] {1, 2}) {
      assertThatThrownBy(() -> Verdicts.verifyOutcome(new PartkitFork.Result(code,
          List.of("progress", INVALID), List.of("[ 20 s] check")), "/p/target/partkit-store"))
          .isInstanceOf(MojoFailureException.class)
          .hasMessageStartingWith("partkit verify: " + INVALID)
          .hasMessageContaining("The run is stored there");
    }
  }

  @Test
  void aClusterThatCouldNotBeSetUpFailsTheBuildWithTheErrorAndTheStore() {
    assertThatThrownBy(() -> Verdicts.verifyOutcome(new PartkitFork.Result(4, List.of(),
        List.of("", "partkit verify: setup failed: cannot start register node r1: no port")),
        "/p/target/partkit-store"))
        .isInstanceOf(MojoFailureException.class)
        .hasMessage("partkit verify: setup failed: cannot start register node r1: no port"
            + "\nstore: /p/target/partkit-store");
  }

  @Test
  void aUsageErrorIsABuildErrorNamingIt() {
    assertThatThrownBy(() -> Verdicts.verifyOutcome(new PartkitFork.Result(64, List.of(),
        List.of("partkit verify: unknown register option 'durabel'")), "/p/store"))
        .isInstanceOf(MojoExecutionException.class)
        .hasMessageContaining("exited 64 (a usage error: check the goal's parameters)")
        .hasMessageContaining("unknown register option 'durabel'");
  }

  @Test
  void checkFailsOnInvalidUnknownAndBadInputWithItsLines() {
    for (int code : new int[] {1, 2, 3}) {
      assertThatThrownBy(() -> Verdicts.checkOutcome(new PartkitFork.Result(code,
          List.of("h.edn: invalid (register, 4 events)", "because: read 2"), List.of())))
          .isInstanceOf(MojoFailureException.class)
          .hasMessage("partkit check: h.edn: invalid (register, 4 events)\nbecause: read 2");
    }
  }
}
