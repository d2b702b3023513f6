package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link ReplicaNodeMain} node process stops at once, with the status that says why and a line
 * naming the cause, rather than living on without a thread or a log: an {@link Error} on a thread
 * of its own ends it with {@link ReplicaNode#EXIT_ERROR}, one on its state thread too, and a
 * failed append with {@link ReplicaNode#EXIT_IO}. The faults are planted in the node's own
 * process ({@link FailingNodeMain}); the rest of it is the production node.
 */
class FailStopProcessTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  /** The key whose write the planted log failure turns into a record over the log's limit. */
  static final byte[] POISON = "poison".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  final ReplicaClusterTest cluster = new ReplicaClusterTest();

  /**
   * {@link ReplicaNodeMain} with one fault planted, named by its first argument: {@code
   * thread-error} throws an Error on a thread of its own once the node accepts connections,
   * {@code state-error} throws one on the state thread when a client's request arrives, {@code
   * log-failure} logs a record over the log's limit for a write of {@link #POISON}.
   */
  public static final class FailingNodeMain {
    public static void main(String[] args) throws Exception {
      String[] rest = Arrays.copyOfRange(args, 1, args.length);
      switch (args[0]) {
        case "thread-error" -> errorAfterStart(rest);
        case "state-error" -> ReplicaNodeMain.run(rest, planted(e -> {
          if (e.message() instanceof Request) {
            throw new StackOverflowError("injected");
          }
        }, false));
        case "log-failure" -> ReplicaNodeMain.run(rest, planted(e -> { }, true));
        default -> throw new IllegalArgumentException(args[0]);
      }
    }

    private static void errorAfterStart(String[] args) throws Exception {
      Thread node = new Thread(() -> {
        try {
          ReplicaNodeMain.main(args);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, "node-main");
      node.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Thread.getAllStackTraces().keySet().stream()
          .noneMatch(t -> t.getName().equals("accept"))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the node did not start");
        }
        TimeUnit.MILLISECONDS.sleep(10); // polling a condition
      }
      Thread t = new Thread(() -> {
        throw new StackOverflowError("injected");
      }, "some-node-thread");
      t.start();
      node.join();
    }

    /**
     * An interposer that shows the core {@code inbound} first and, when {@code oversized}, logs
     * a write of {@link #POISON} as a record over the log's limit.
     */
    private static Interposer planted(Consumer<Envelope> inbound, boolean oversized) {
      return new Interposer() {
        @Override
        public Envelope inbound(Replica core, int self, Envelope e, Consumer<Envelope> send) {
          inbound.accept(e);
          return e;
        }

        @Override
        public boolean outbound(Envelope e) {
          return true;
        }

        @Override
        public List<Record> logged(List<Record> records) {
          if (!oversized) {
            return records;
          }
          List<Record> out = new ArrayList<>();
          for (Record r : records) {
            out.add(r instanceof Record.Written w && w.key().equals(Bytes.of(POISON))
                ? new Record.Written(w.partition(), w.epoch(), w.level(), w.seq(), w.key(),
                    Bytes.of(new byte[Codec.MAX_FRAME]))
                : r);
          }
          return out;
        }
      };
    }
  }

  @AfterEach
  void stop() {
    cluster.stop();
  }

  @Test
  void anErrorOnAnyThreadOfTheNodeEndsItsProcessWithStatus70() throws Exception {
    ReplicaClusterTest.Proc node = startOneNode("thread-error");
    assertThat(node.process().waitFor(60, TimeUnit.SECONDS)).as("the process ended").isTrue();
    String err = Files.readString(cluster.dir.resolve("n0.log"));
    assertThat(node.process().exitValue()).as(err).isEqualTo(ReplicaNode.EXIT_ERROR);
    assertThat(err).contains("stopping: stopping on java.lang.StackOverflowError: injected in"
        + " thread some-node-thread (exit status 70)");
  }

  @Test
  void anErrorOnTheStateThreadEndsTheProcessWithStatus70() throws Exception {
    ReplicaClusterTest.Proc node = startOneNode("state-error");
    node.await("REPLICA LISTENING", Duration.ofSeconds(60));
    cluster.startControl(1);
    try (ReplicaClient c = client()) {
      ReplicaClient.Result r = c.put(1, 1);
      assertThat(r.outcome()).as("never acknowledged: " + r).isNotEqualTo(Outcome.OK);
    }
    assertThat(node.process().waitFor(60, TimeUnit.SECONDS)).as("the process ended").isTrue();
    String err = Files.readString(cluster.dir.resolve("n0.log"));
    assertThat(node.process().exitValue()).as(err).isEqualTo(ReplicaNode.EXIT_ERROR);
    assertThat(err).contains("stopping: stopping on java.lang.StackOverflowError: injected in the"
        + " state machine (exit status 70)");
  }

  @Test
  void aNodeWhoseLogFailsStopsWithStatus74NamingTheCause() throws Exception {
    ReplicaClusterTest.Proc node = startOneNode("log-failure");
    node.await("REPLICA LISTENING", Duration.ofSeconds(60));
    cluster.startControl(1);
    try (ReplicaClient c = client()) {
      assertThat(ReplicaClusterTest.untilOk(() -> c.put(new byte[] {1}, new byte[] {1}))
          .outcome()).isEqualTo(Outcome.OK);
      ReplicaClient.BytesResult r = c.put(POISON, new byte[] {1});
      assertThat(r.outcome()).as("never acknowledged: " + r.why()).isNotEqualTo(Outcome.OK);
    }
    assertThat(node.process().waitFor(60, TimeUnit.SECONDS)).as("the process ended").isTrue();
    String err = Files.readString(cluster.dir.resolve("n0.log"));
    assertThat(node.process().exitValue()).as(err).isEqualTo(ReplicaNode.EXIT_IO);
    assertThat(err).containsPattern("stopping: .*the write-ahead log failed: java.io.IOException:"
        + " a record of \\d+ bytes is over the limit of " + Codec.MAX_FRAME + " \\(exit status"
        + " 74\\)");
  }

  /**
   * Node 0, the only node, with the fault {@code mode} planted; its control is started by the
   * test when it needs one.
   */
  private ReplicaClusterTest.Proc startOneNode(String mode) throws Exception {
    cluster.addresses.add(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    cluster.controlAddress = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    cluster.nodeControls = List.of(cluster.controlAddress);
    ReplicaClusterTest.Proc p = cluster.spawn("n0", FailingNodeMain.class, List.of(mode,
        "--role", "node", "--id", "0", "--data", cluster.dir.resolve("data-0").toString(),
        "--nodes", cluster.list(cluster.addresses), "--control",
        cluster.list(cluster.nodeControls)));
    cluster.procs.put(0, p);
    return p;
  }

  private ReplicaClient client() {
    return new ReplicaClient(cluster.controlAddress, cluster.addresses, TIMEOUT);
  }
}
