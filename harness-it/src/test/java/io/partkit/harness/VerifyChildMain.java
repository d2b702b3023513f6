package io.partkit.harness;

import io.partkit.harness.runtime.SetupException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A run of kv on containers in a JVM of its own, for tests that must do to a run what cannot be
 * done inside the test's JVM (kill it with {@code kill -9}, give it another {@code DOCKER_HOST}):
 * {@code VerifyChildMain STORE SEED NEMESIS...}. Exits with the run's code (0, 1, 2), 4 when it
 * could not be set up.
 */
public final class VerifyChildMain {

  private VerifyChildMain() {}

  public static void main(String[] args) {
    VerifySpec spec = VerifySpec.builder("kv").nodes(3)
        .nemeses(List.of(args).subList(2, args.length)).time(Duration.ofSeconds(20))
        .concurrency(4).rate(100).seed(Long.parseLong(args[1])).store(Path.of(args[0]))
        .runtime("containers").build();
    try {
      RunResult r = VerifyRun.run(spec, System.out);
      System.out.println("RESULT " + r.summary());
      System.exit(r.exitCode());
    } catch (SetupException e) {
      System.out.println("SETUP FAILED " + e.getMessage());
      System.exit(4);
    }
  }
}
