package io.partkit.harness.runtime;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * {@link EchoServerMain} nodes on any runtime, and the probes the runtime tests make with them:
 * the harness asking a node, a node asking another (through its standard input), waiting for an
 * answer with a deadline.
 */
final class EchoNodes {

  static final int PORT = 7000;
  static final Duration START = Duration.ofSeconds(60);
  static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final AtomicInteger QUERY = new AtomicInteger();

  private EchoNodes() {}

  /** Starts an echo node listening on its host and {@link #PORT}, logging under {@code dir}. */
  static NodeProcess start(NodeRuntime rt, String node, Path dir) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    NodeProcess p = rt.start(node, List.of(java, "-Xmx32m", "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-cp", cp, EchoServerMain.class.getName(), node, rt.host(node),
        Integer.toString(PORT)), dir.resolve(node + ".log"));
    p.awaitLine("LISTENING", START);
    return p;
  }

  /** The harness asks {@code node}: "ok <name>" or "fail <why>". */
  static String harnessAsk(NodeRuntime rt, String node) {
    return EchoServerMain.ask(rt.host(node), PORT, 1500);
  }

  /** Asks the node's process to connect to host:PORT; returns "ok <name>" or "fail <why>". */
  static String nodeAsk(NodeProcess from, String host) {
    String id = Integer.toString(QUERY.incrementAndGet());
    try {
      from.send("connect " + id + " " + host + " " + PORT + " 1500");
    } catch (IOException e) {
      throw new AssertionError("cannot write to " + from.node(), e);
    }
    String prefix = "RESULT " + id + " ";
    return from.awaitLine(prefix, DEADLINE).substring(prefix.length());
  }

  /** Probes until the answer is {@code expected}, failing after {@link #DEADLINE}. */
  static void eventually(String what, Supplier<String> probe, String expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    String last;
    while (!(last = probe.get()).equals(expected)) {
      if (System.nanoTime() > deadline) {
        fail(what + ": expected '" + expected + "' within " + DEADLINE + ", last got '" + last
            + "'");
      }
      Thread.sleep(200);
    }
  }
}
