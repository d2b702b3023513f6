package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code KvNodeMain} ends the process on an {@link Error} in any of its threads, with status
 * {@link KvNodeMain#EXIT_ERROR} and a line saying why, rather than living on without the thread.
 */
class FailStopProcessTest {

  @TempDir Path dir;

  /** Runs {@code KvNodeMain}, then, once it accepts, throws an Error on a thread of its own. */
  static final String INJECTING = "INJECTING AN ERROR";

  public static final class ErrorAfterStart {
    public static void main(String[] args) throws Exception {
      Thread node = new Thread(() -> {
        try {
          KvNodeMain.main(args);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, "kvnode-main");
      node.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Thread.getAllStackTraces().keySet().stream()
          .noneMatch(t -> t.getName().equals("kvnode-n1-accept"))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the node did not start");
        }
        TimeUnit.MILLISECONDS.sleep(10); // polling a condition
      }
      // said before the error, since the error may end the process before the node's own
      // LISTENING line is out
      System.out.println(INJECTING);
      System.out.flush();
      Thread t = new Thread(() -> {
        throw new StackOverflowError("injected");
      }, "some-node-thread");
      t.start();
      node.join();
    }
  }

  @Test
  void anErrorInAnyThreadEndsTheProcessWithStatus70() throws Exception {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        ErrorAfterStart.class.getName(), "--id", "n1", "--data", dir.resolve("n1").toString())
        .start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.equals(INJECTING)) {
        // until the node's accept thread runs and the error is on its way
      }
      assertThat(line).as("the node started and the error was injected").isNotNull();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the process ended").isTrue();
      String err = new String(p.getErrorStream().readAllBytes(), UTF_8);
      assertThat(p.exitValue()).as(err).isEqualTo(KvNodeMain.EXIT_ERROR);
      assertThat(err).contains("stopping on java.lang.StackOverflowError: injected in thread"
          + " some-node-thread");
    } finally {
      p.destroyForcibly();
    }
  }
}
