package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes and a coordinator process on loopback, a fourth node joining while
 * several client threads write; then the same with the source node and with the coordinator
 * killed by SIGKILL in the middle of a migration (paused deterministically after the fence).
 */
class ProcessClusterMigrationTest {

  private static final int PARTITIONS = 16;
  private static final List<String> THREE = List.of("n1", "n2", "n3");
  private static final List<String> FOUR = List.of("n1", "n2", "n3", "n4");

  @TempDir Path dir;
  private ProcessCluster cluster;
  private PartitionAssignment before;
  private ProcessWriters writers;

  @BeforeEach
  void startThreeNodesWithWriters() throws Exception {
    cluster = new ProcessCluster(dir, PARTITIONS);
    cluster.startNodes(FOUR.toArray(String[]::new)); // n4 idles until it joins
    assertThat(cluster.coordinator(THREE).await("DONE", 120)).isEqualTo("DONE 1");
    before = cluster.table();
    assertThat(before.nodes()).containsExactly(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));
    writers = new ProcessWriters(cluster.client(), 3);
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
  void addANodeDuringSteadyWrites() throws Exception {
    assertThat(cluster.coordinator(FOUR).await("DONE", 120)).startsWith("DONE");
    verify(writers.stopAfter(300));
  }

  @Test
  void killTheSourceMidMigrationAndRestartIt() throws Exception {
    ProcessCluster.Child coordinator = cluster.coordinator(FOUR, "--pause-after", "FENCED");
    String[] paused = coordinator.await("PAUSED", 120).split(" ");
    int partition = Integer.parseInt(paused[2]);
    String source = paused[3];
    cluster.killNode(source);
    cluster.restartNode(source);
    try (KvNodeClient c = KvNodeClient.connect(cluster.address(NodeId.of(source)),
        Duration.ofSeconds(10))) {
      assertThat(c.status(partition).state()).as("the fence survived kill -9 of " + source)
          .isEqualTo(PartitionState.MIGRATING_OUT);
    }
    coordinator.send("continue");
    assertThat(coordinator.await("DONE", 120)).startsWith("DONE");
    assertThat(cluster.table().primary(partition)).as("the move completed once the source was back")
        .isEqualTo(NodeId.of(paused[4]));
    verify(writers.stopAfter(300));
  }

  @Test
  void killTheCoordinatorMidMigrationAndStartAnother() throws Exception {
    ProcessCluster.Child first = cluster.coordinator(FOUR, "--pause-after", "FENCED");
    String[] paused = first.await("PAUSED", 120).split(" ");
    int partition = Integer.parseInt(paused[2]);
    first.kill();
    try (KvNodeClient c = KvNodeClient.connect(cluster.address(NodeId.of(paused[3])),
        Duration.ofSeconds(10))) {
      assertThat(c.status(partition).state()).isEqualTo(PartitionState.MIGRATING_OUT);
    }
    assertThat(cluster.coordinator(FOUR).await("DONE", 120)).startsWith("DONE");
    assertThat(cluster.table().primary(partition)).as("the new coordinator completed the move")
        .isEqualTo(NodeId.of(paused[4]));
    verify(writers.stopAfter(300));
  }

  private void verify(Map<String, String> acked) throws Exception {
    PartitionAssignment after = cluster.table();
    assertThat(after.nodes()).as("n4 owns partitions after the rebalance")
        .contains(NodeId.of("n4"));
    assertThat(acked).as("writes were acknowledged").hasSizeGreaterThan(300);
    try (KvClient reader = cluster.client()) {
      for (Map.Entry<String, String> e : acked.entrySet()) {
        byte[] v = reader.get(e.getKey().getBytes(UTF_8));
        assertThat(v == null ? null : new String(v, UTF_8))
            .as("acknowledged %s at its final owner %s", e.getKey(),
                after.primaryOf(e.getKey()))
            .isEqualTo(e.getValue());
      }
      int moved = 0;
      for (Map.Entry<String, String> e : acked.entrySet()) {
        int p = after.partitionOf(e.getKey());
        NodeId old = before.primary(p);
        if (old.equals(after.primary(p))) {
          continue;
        }
        moved++;
        try (KvNodeClient c = KvNodeClient.connect(cluster.address(old), Duration.ofSeconds(10))) {
          KvReply late =
              c.put(p, before.epoch(), e.getKey().getBytes(UTF_8), "late".getBytes(UTF_8));
          assertThat(late.status()).as("a write of %s sent to its old owner %s", e.getKey(), old)
              .isEqualTo(Status.REDIRECT);
          assertThat(late.epoch()).as("the redirect carries the newer epoch")
              .isGreaterThan(before.epoch());
        }
        byte[] v = reader.get(e.getKey().getBytes(UTF_8));
        assertThat(new String(v, UTF_8)).as("the late write was not applied")
            .isEqualTo(e.getValue());
        if (moved == 20) {
          break;
        }
      }
      assertThat(moved).as("some acknowledged keys live in moved partitions").isPositive();
      System.out.printf("acknowledged %d writes (%d indeterminate), table epoch %d -> %d%n",
          acked.size(), writers.indeterminate.get(), before.epoch(), after.epoch());
    }
  }
}
