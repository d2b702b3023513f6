package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Timing;
import io.partkit.replica.node.load.LoadMeters;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node in this process, its failures reported to the test instead of halting it: closed (a
 * clean stop) while its state thread appends to the log, it reports no failure, since a failure
 * the close itself causes is none; a node's log reopens with every record it synced. A node's
 * meters leave the registry it was given when it closes, and when its start fails.
 */
class ReplicaNodeCloseTest {

  /** Starts and closes under appends, each a fresh node: the race shows within a few. */
  static final int ROUNDS = 20;
  static final int PARTITIONS = 64;

  @TempDir
  Path dir;

  @Test
  void aNodeClosedWhileItAppendsReportsNoFailure() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      Path data = dir.resolve("node-" + round);
      List<String> failures = Collections.synchronizedList(new ArrayList<>());
      ReplicaNode node = ReplicaNode.node(0, List.of(new InetSocketAddress("127.0.0.1", 0)),
          List.of(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort())), data,
          Timing.DEFAULT, Wal.COMPACT_BYTES, ConnectionPolicy.OPEN, line -> { },
          (why, status) -> failures.add("exit " + status + ": " + why));
      Configurer configurer = new Configurer(node.address(), node.incarnation());
      Thread driving = new Thread(configurer, "configurer");
      driving.setDaemon(true);
      driving.start();
      Path log = data.resolve(Wal.FILE);
      awaitGrown(log, 64 << 10, round);

      node.close();

      configurer.stop();
      driving.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(failures).as("failures reported by the node closed in round " + round)
          .isEmpty();
      Wal.Opened reopened = Wal.open(data, count -> { }, e -> { });
      reopened.wal().close();
      assertThat(reopened.records()).as("the records of round " + round + "'s log").isNotEmpty();
    }
  }

  @Test
  void aNodesMetersLeaveTheRegistryItWasGivenWhenItClosesAndWhenItFailsToStart()
      throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    List<InetSocketAddress> control =
        List.of(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    ReplicaNode node = ReplicaNode.node(0, List.of(new InetSocketAddress("127.0.0.1", 0)),
        control, dir.resolve("metered"), Timing.DEFAULT, Wal.COMPACT_BYTES,
        ConnectionPolicy.OPEN, line -> { },
        (why, status) -> { }, registry);
    assertThat(registry.find(LoadMeters.NODE_REQUESTS).tag("node", "node-0").meters())
        .hasSize(LoadMeters.Op.values().length);
    node.close();
    assertThat(registry.getMeters()).as("after the close").isEmpty();

    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress busy = new InetSocketAddress("127.0.0.1", taken.getLocalPort());
      assertThatThrownBy(() -> ReplicaNode.node(0, List.of(busy), control,
          dir.resolve("unstarted"), Timing.DEFAULT, Wal.COMPACT_BYTES, ConnectionPolicy.OPEN,
          line -> { },
          (why, status) -> { }, registry)).isInstanceOf(IOException.class);
    }
    assertThat(registry.getMeters()).as("after a start that failed").isEmpty();
  }

  /** Waits until the log in {@code log} holds at least {@code bytes}. */
  private static void awaitGrown(Path log, long bytes, int round) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.exists(log) || Files.size(log) < bytes) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("round " + round + ": the node's log did not reach " + bytes
            + " bytes within 30 s (" + (Files.exists(log) ? Files.size(log) : 0) + ")");
      }
      Thread.onSpinWait();
    }
  }

  /**
   * Plays the control: sends configurations of ever newer epochs for many partitions, as fast as
   * the connection takes them, each of which the node records (and, as primary, begins a level).
   */
  static final class Configurer implements Runnable {
    private final Socket socket;
    private final long incarnation;
    private volatile boolean stopped;

    Configurer(InetSocketAddress node, long incarnation) throws IOException {
      this.socket = new Socket(node.getAddress(), node.getPort());
      this.incarnation = incarnation;
    }

    /** Stops sending, also when the closed node's reader no longer reads what was sent. */
    void stop() throws IOException {
      stopped = true;
      socket.close();
    }

    @Override
    public void run() {
      try {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
            socket.getOutputStream(), 64 << 10));
        Frame.write(out, new Frame.Hello(Control.ID));
        // the node takes configurations once the control has named its incarnation
        Frame.write(out, new Envelope(Control.ID, 0, new Message.Ping(1, incarnation,
            List.of())));
        for (long epoch = 1; !stopped; epoch++) {
          for (int p = 0; p < PARTITIONS; p++) {
            Frame.write(out, new Envelope(Control.ID, 0,
                new Configure(p, epoch, 0, List.of())));
          }
          out.flush();
        }
      } catch (IOException e) {
        // the connection closed: the node or the test closed it
      }
    }
  }
}
