package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.KvException;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.NodeStatus;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With copies, a node whose log lost acknowledged records comes back as a follower and catches
 * up from the in-sync copies before it may lead, by itself: the node reports the partitions it
 * must rejoin (STATUS), and the coordinator's next rebalance reconfigures each at the next epoch
 * under its compare-and-set (a survivor leads, the node rejoins as a backup). Nodes and the
 * coordinator are separate JVMs. Before, the partitions the node led stayed unavailable until a
 * membership change took the node out and back in.
 */
class ProcessClusterRejoinTest {

  private static final int PARTITIONS = 8;
  private static final List<String> NODES = List.of("n1", "n2", "n3");
  private static final NodeId LOST = NodeId.of("n1");

  @TempDir Path dir;
  private ProcessCluster cluster;

  @AfterEach
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aPrimaryWhoseLogWasCutToHalfRejoinsAsABackupAndItsPartitionsServeAgain()
      throws Exception {
    cluster = new ProcessCluster(dir, PARTITIONS);
    cluster.startNodes(NODES.toArray(String[]::new));
    assertThat(cluster.coordinator(NODES, "--replicas", "3").await("DONE", 120))
        .isEqualTo("DONE 1");
    PartitionAssignment before = cluster.table();
    List<Integer> led = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      if (before.primary(p).equals(LOST)) {
        led.add(p);
      }
    }
    assertThat(led).as("n1 leads some partitions").isNotEmpty();
    Map<String, String> acked;
    try (ProcessWriters writers = new ProcessWriters(cluster.client(), 3)) {
      writers.awaitAcks(600);
      acked = writers.stopAfter(600);
    }

    cluster.killNode("n1");
    Path log = dir.resolve("n1").resolve("wal.log");
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      f.setLength(Files.size(log) / 2);
    }
    cluster.restartNode("n1"); // starts as a backup of everything, serving nothing

    // the coordinator runs as on any change: it reads the node's report and rejoins it
    assertThat(cluster.coordinator(NODES, "--replicas", "3").await("DONE", 300))
        .startsWith("DONE");
    awaitServed(led, TimeUnit.SECONDS.toNanos(180));

    PartitionAssignment after = cluster.table();
    try (KvClient reader = cluster.client()) {
      for (Map.Entry<String, String> e : acked.entrySet()) {
        byte[] v = reader.get(e.getKey().getBytes(UTF_8));
        assertThat(v == null ? null : new String(v, UTF_8)).as("acknowledged %s", e.getKey())
            .isEqualTo(e.getValue());
      }
    }
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(after.replicas(p)).as("partition %d", p).hasSize(3).contains(LOST);
      NodeStatus mine = nodeStatus(LOST, p);
      NodeStatus primary = nodeStatus(after.primary(p), p);
      // the same rebalance may hand the lead back to n1 once it caught up (placement balances
      // primaries): then its copy serves, as a caught-up copy may
      assertThat(mine.state()).as("n1's partition %d", p).isEqualTo(
          after.primary(p).equals(LOST) ? PartitionState.OWNED : PartitionState.BACKUP);
      assertThat(mine.catchingUp() || mine.mustRejoin()).as("n1 caught up partition %d", p)
          .isFalse();
      assertThat(mine.keys()).as("keys n1 holds of partition %d", p).isEqualTo(primary.keys())
          .isPositive();
      assertThat(mine.epoch()).as("partition %d", p).isEqualTo(primary.epoch());
    }
    System.out.printf("acknowledged %d writes; n1 led %s; table epoch %d -> %d%n", acked.size(),
        led, before.epoch(), after.epoch());
  }

  /** Waits until a write and a read of each partition in {@code partitions} succeed. */
  private void awaitServed(List<Integer> partitions, long withinNanos) throws Exception {
    long deadline = System.nanoTime() + withinNanos;
    String last = "";
    while (System.nanoTime() < deadline) {
      PartitionAssignment table = cluster.table();
      List<Integer> waiting = new ArrayList<>();
      try (KvClient client = KvClient.builder().tables(cluster::table)
          .addresses(cluster::address).retryBudget(Duration.ofSeconds(5)).build()) {
        for (int p : partitions) {
          byte[] key = keyIn(table, p);
          try {
            client.put(key, "served".getBytes(UTF_8));
            if (!java.util.Arrays.equals(client.get(key), "served".getBytes(UTF_8))) {
              waiting.add(p);
            }
          } catch (KvException e) {
            waiting.add(p);
            last = e.getMessage();
          }
        }
      }
      if (waiting.isEmpty()) {
        return;
      }
      Thread.sleep(500); // poll; each round already waits on the client's retries
    }
    throw new AssertionError("partitions " + partitions + " not served again within the"
        + " deadline; last error: " + last);
  }

  private NodeStatus nodeStatus(NodeId node, int partition) throws Exception {
    try (TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(cluster.address(node),
        Duration.ofSeconds(20))) {
      return c.nodeStatus(partition);
    }
  }

  /** A key the table places in partition {@code p}. */
  private static byte[] keyIn(PartitionAssignment table, int p) {
    for (int i = 0; ; i++) {
      String key = "probe-" + i;
      if (table.partitionOf(key) == p) {
        return key.getBytes(UTF_8);
      }
    }
  }
}
