package io.partkit.harness.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.partkit.harness.VerifyChildMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs that end badly, each a {@link VerifyChildMain} in a JVM of its own: killed with {@code kill
 * -9} (the next run removes what it left), or cut off from the engine mid-run (unknown, never
 * valid).
 */
class ContainerCrashContainerTest {

  private static final Duration UP = Duration.ofSeconds(60);
  private static final Duration END = Duration.ofSeconds(150);

  @TempDir Path tmp;

  @BeforeAll
  static void needsEngineAndImage() {
    ContainerPrerequisite.require();
  }

  @Test
  void aRunKilledWithKill9LeavesNothingTheNextRunDoesNotRemove() throws Exception {
    DockerClient docker = DockerEngine.client();
    Child child = Child.start(tmp, null, "61", "pause");
    child.await("faults:", UP);
    List<Container> left = ownedBy(docker, child.process.pid());
    assertThat(left).as("the run's containers while it runs").hasSizeGreaterThanOrEqualTo(4);

    child.process.destroyForcibly(); // SIGKILL: no shutdown hook runs
    assertThat(child.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(ownedBy(docker, child.process.pid())).as("left behind by kill -9").isNotEmpty();

    try (NodeRuntime next = Runtimes.load().create(RuntimeSpec.named("containers"),
        tmp.resolve("next"))) {
      next.open(List.of("n1"));
      assertThat(ownedBy(docker, child.process.pid())).as("after the next run's start").isEmpty();
      assertThat(docker.listNetworksCmd().withFilter("label",
          List.of(DockerEngine.OWNER_LABEL + "=" + owner(child.process.pid()))).exec())
          .as("the dead run's network").isEmpty();
    }
  }

  @Test
  void anEngineLostMidRunEndsUnknownNeverValid() throws Exception {
    try (EngineProxy proxy = EngineProxy.at(tmp.resolve("engine.sock"))) {
      Child child = Child.start(tmp, proxy.host(), "62", "pause");
      child.await("faults:", UP);
      proxy.close(); // before the first fault: the nemesis finds no engine
      assertThat(child.process.waitFor(END.toSeconds(), TimeUnit.SECONDS))
          .as("the run ended within " + END).isTrue();
      String out = child.output();
      assertThat(child.process.exitValue()).as(out).isEqualTo(2);
      assertThat(out).contains("verdict at most unknown: the Docker engine at " + proxy.host()
          + " stopped answering");
    } finally {
      // what the cut-off run could not remove: the next run's start does
      try (NodeRuntime next = Runtimes.load().create(RuntimeSpec.named("containers"),
          tmp.resolve("next"))) {
        next.open(List.of("n1"));
      }
    }
  }

  private static String owner(long pid) {
    return DockerEngine.OWNER.substring(0, DockerEngine.OWNER.lastIndexOf('/') + 1) + pid;
  }

  private static List<Container> ownedBy(DockerClient docker, long pid) {
    return docker.listContainersCmd().withShowAll(true)
        .withLabelFilter(List.of(DockerEngine.OWNER_LABEL + "=" + owner(pid))).exec();
  }

  /** The child JVM and what it printed. */
  private static final class Child {
    final Process process;
    private final List<String> lines = new ArrayList<>();

    private Child(Process process) {
      this.process = process;
      Thread t = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
            process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            synchronized (lines) {
              lines.add(line);
              lines.notifyAll();
            }
          }
        } catch (IOException e) {
          // the child is gone
        }
      }, "child-output");
      t.setDaemon(true);
      t.start();
    }

    static Child start(Path dir, String dockerHost, String seed, String... nemeses)
        throws IOException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String cp = System.getProperty("surefire.test.class.path",
          System.getProperty("java.class.path"));
      List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", cp,
          VerifyChildMain.class.getName(), dir.resolve("store").toString(), seed));
      cmd.addAll(List.of(nemeses));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      if (dockerHost != null) {
        pb.environment().put("DOCKER_HOST", dockerHost);
      }
      return new Child(pb.start());
    }

    void await(String text, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      synchronized (lines) {
        while (lines.stream().noneMatch(l -> l.contains(text))) {
          long left = deadline - System.nanoTime();
          if (left <= 0 || !process.isAlive() && lines.stream().noneMatch(l -> l.contains(text))) {
            process.destroyForcibly();
            fail("the child printed no '" + text + "' within " + timeout + ":\n" + output());
          }
          lines.wait(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(left))));
        }
      }
    }

    String output() {
      synchronized (lines) {
        return String.join("\n", lines);
      }
    }
  }
}
