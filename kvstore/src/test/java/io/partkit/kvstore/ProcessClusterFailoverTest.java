package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication factor 3 with nodes and the coordinator as separate JVMs: a node killed for good
 * (SIGKILL) under load, and a primary paused (SIGSTOP) through its own failover. The coordinator
 * declares the node failed, every partition it held gets its replica list back to three on the
 * survivors plus a fourth node, and no acknowledged write is lost.
 */
class ProcessClusterFailoverTest {

  private static final int PARTITIONS = 8;
  private static final List<String> SURVIVORS = List.of("n2", "n3", "n4");

  @TempDir Path dir;
  private ProcessCluster cluster;
  private ProcessWriters writers;

  @BeforeEach
  void startThreeReplicasOfEveryPartition() throws Exception {
    cluster = new ProcessCluster(dir, PARTITIONS);
    cluster.startNodes("n1", "n2", "n3", "n4"); // n4 idles until it replaces n1
    assertThat(cluster.coordinator(List.of("n1", "n2", "n3"), "--replicas", "3")
        .await("DONE", 120)).isEqualTo("DONE 1");
    PartitionAssignment first = cluster.table();
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(first.replicas(p)).hasSize(3);
    }
    writers = new ProcessWriters(cluster.client(), 3);
    writers.awaitAcks(300);
  }

  @AfterEach
  void stopCluster() {
    if (writers != null) {
      writers.stopNow();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aNodeKilledForGoodUnderLoadLosesNoAcknowledgedWrite() throws Exception {
    cluster.killNode("n1"); // never restarted: its disk is gone with it
    assertThat(cluster.coordinator(SURVIVORS, "--replicas", "3", "--failed", "n1")
        .await("DONE", 240)).startsWith("DONE");
    verify(writers.stopAfter(300));
  }

  @Test
  void aPausedPrimaryServesNeitherReadsNorWritesAfterItsFailover() throws Exception {
    PartitionAssignment before = cluster.table();
    List<Integer> led = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      if (before.primary(p).equals(NodeId.of("n1"))) {
        led.add(p);
      }
    }
    assertThat(led).as("n1 leads some partitions").isNotEmpty();
    cluster.pauseNode("n1");
    assertThat(cluster.coordinator(SURVIVORS, "--replicas", "3", "--failed", "n1",
        "--request-timeout", "5").await("DONE", 400)).startsWith("DONE");
    cluster.resumeNode("n1");
    PartitionAssignment after = cluster.table();
    try (TcpNodeClient old = (TcpNodeClient) KvNodeClient.connect(
        cluster.address(NodeId.of("n1")), Duration.ofSeconds(20))) {
      for (int p : led) {
        byte[] key = keyIn(after, p);
        KvReply read = old.get(p, before.epoch(), key);
        assertThat(read.status()).as("a read of partition %d on its deposed primary: %s", p, read)
            .isNotEqualTo(Status.OK);
        KvReply write = old.put(p, before.epoch(), key, "stale".getBytes(UTF_8));
        assertThat(write.status()).as("a write to partition %d on its deposed primary: %s", p,
            write).isNotEqualTo(Status.OK);
      }
    }
    try (KvClient reader = cluster.client()) {
      for (int p : led) {
        byte[] v = reader.get(keyIn(after, p));
        assertThat(v == null ? null : new String(v, UTF_8)).as("partition %d", p)
            .isNotEqualTo("stale");
      }
    }
    verify(writers.stopAfter(300));
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

  private void verify(Map<String, String> acked) throws Exception {
    PartitionAssignment after = cluster.table();
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(after.replicas(p)).as("partition %d after the failover", p)
          .hasSize(3).doesNotContain(NodeId.of("n1"));
    }
    try (KvClient reader = cluster.client()) {
      for (Map.Entry<String, String> e : acked.entrySet()) {
        byte[] v = reader.get(e.getKey().getBytes(UTF_8));
        assertThat(v == null ? null : new String(v, UTF_8))
            .as("acknowledged %s, on %s", e.getKey(), after.replicas(after.partitionOf(
                e.getKey()))).isEqualTo(e.getValue());
      }
      for (int p = 0; p < PARTITIONS; p++) {
        byte[] key = keyIn(after, p);
        reader.put(key, "served".getBytes(UTF_8));
        assertThat(reader.get(key)).as("partition %d is served again", p)
            .isEqualTo("served".getBytes(UTF_8));
      }
    }
    System.out.printf("acknowledged %d writes (%d indeterminate), table epoch %d%n",
        acked.size(), writers.indeterminate.get(), after.epoch());
  }
}
