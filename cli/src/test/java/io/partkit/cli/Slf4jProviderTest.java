package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command's class path has an SLF4J provider: etcd's and the backends' clients log through
 * SLF4J, and without one every {@code partkit verify} printed "No SLF4J providers were found"
 * warnings. A fresh JVM on this module's class path asks for a logger, as those clients do.
 */
class Slf4jProviderTest {

  /** The child's main: the first logger an etcd client would ask for. */
  public static final class FirstLogger {
    public static void main(String[] args) {
      org.slf4j.LoggerFactory.getLogger("io.etcd.jetcd").info("not shown");
    }
  }

  @Test
  void aFreshJvmOnTheCommandsClassPathPrintsNoSlf4jWarning() throws IOException,
      InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(List.of(java.toString(), "-cp",
        System.getProperty("java.class.path"), FirstLogger.class.getName()))
        .redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).doesNotContain("SLF4J");
  }
}
