package io.partkit.replica.node;

import io.partkit.spi.PartitionScheme;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Data nodes and their control in the test's process, on free loopback ports ({@link
 * ReplicaClusterTest#freePort}), each with its log under a directory of the test: faster to start
 * than processes, for tests of the client. A node's failure on its decision or storage path is
 * recorded in {@link #failures} instead of halting the test's process (a test asserts none came);
 * a node is stopped by its clean close, and started again from its log on the same port.
 */
final class InProcessCluster implements AutoCloseable {

  final Path dir;
  final List<InetSocketAddress> nodes = new ArrayList<>();
  final InetSocketAddress controlAddress;
  final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  /** What the nodes and the control logged, for a failing test's message. */
  final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
  private final ReplicaNode[] running;
  private ReplicaNode control;

  private InProcessCluster(Path dir, int nodes) throws IOException {
    this.dir = dir;
    for (int i = 0; i < nodes; i++) {
      this.nodes.add(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    }
    this.controlAddress = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    this.running = new ReplicaNode[nodes];
  }

  /**
   * {@code nodes} nodes and a control of a first table of {@code scheme} with {@code replicas}
   * copies of each partition, settled.
   */
  static InProcessCluster start(Path dir, int nodes, PartitionScheme scheme, int replicas)
      throws Exception {
    InProcessCluster c = new InProcessCluster(dir, nodes);
    try {
      for (int i = 0; i < nodes; i++) {
        c.startNode(i);
      }
      c.control = ReplicaNode.control(c.nodes, c.controlAddress, dir.resolve("control"), scheme,
          replicas, Optional.empty(), ReplicaNodeMain.TIMING, ConnectionPolicy.OPEN,
          line -> c.log.add("control: " + line));
      c.control.awaitSettled();
      return c;
    } catch (Exception | Error e) {
      c.close();
      throw e;
    }
  }

  /** Starts node {@code i} from its log (empty at first). */
  void startNode(int i) throws IOException {
    running[i] = ReplicaNode.node(i, nodes, List.of(controlAddress), dir.resolve("node-" + i),
        ReplicaNodeMain.TIMING, Wal.COMPACT_BYTES, ConnectionPolicy.OPEN,
        line -> log.add("node " + i + ": " + line),
        (why, status) -> failures.add("node " + i + " would exit " + status + ": " + why));
  }

  /** Stops node {@code i} (its clean close: its connections end, its log closes). */
  void stopNode(int i) {
    running[i].close();
    running[i] = null;
  }

  /** The control, for commands ({@link ReplicaNode#command}). */
  ReplicaNode control() {
    return control;
  }

  /** A client of this cluster, as built by {@code b} from its addresses. */
  ReplicaClient.Builder client() {
    return ReplicaClient.builder(List.of(controlAddress), nodes)
        .timeout(Duration.ofSeconds(3));
  }

  /** Waits until the control's table is settled again (after a stop, a start, a split). */
  void awaitSettled(ReplicaClient c) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = "";
    while (System.nanoTime() < deadline) {
      try {
        ReplicaClient.Table t = c.table();
        if (t.settled()) {
          return;
        }
        last = t.unsettled();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not settled within 60 s: " + last);
  }

  @Override
  public void close() {
    for (int i = 0; i < running.length; i++) {
      if (running[i] != null) {
        stopNode(i);
      }
    }
    if (control != null) {
      control.close();
      control = null;
    }
  }
}
