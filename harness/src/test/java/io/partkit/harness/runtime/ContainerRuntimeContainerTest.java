package io.partkit.harness.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The containers runtime against a real Docker engine. partkit's machines have none: there the
 * engine test skips saying "no Docker engine" (the one skip allowed under CI=true), and the other
 * test checks the error a user gets instead.
 */
class ContainerRuntimeContainerTest {

  @Test
  void aNodeRunsInAContainerAndIsKilledForReal() throws Exception {
    Assumptions.assumeTrue(ContainerRuntime.dockerAvailable(), "no Docker engine");
    Path dir = Files.createDirectories(Path.of("target", "containers-test").toAbsolutePath());
    try (NodeRuntime runtime = Runtimes.named("containers", dir)) {
      runtime.open(List.of("c1"));
      NodeProcess p = runtime.start("c1", List.of("/bin/sh", "-c", "echo READY; sleep 600"),
          dir.resolve("c1.log"));
      assertThat(p.awaitLine("READY", Duration.ofSeconds(60))).isEqualTo("READY");
      p.kill();
      assertThat(p.isAlive()).isFalse();
    }
  }

  @Test
  void withoutAnEngineOpeningSaysSo() {
    Assumptions.assumeFalse(ContainerRuntime.dockerAvailable(), "a Docker engine runs here");
    try (NodeRuntime runtime = Runtimes.named("containers", Path.of("target"))) {
      assertThatThrownBy(() -> runtime.open(List.of("c1")))
          .isInstanceOf(SetupException.class).hasMessageStartingWith("no Docker engine");
    }
  }
}
