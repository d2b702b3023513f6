package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.KeySpreading;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.SpreadWrites;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.HotKey;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes and a coordinator process on loopback (one cluster for the class): known
 * operations are driven through the routing client, and the nodes' load views, read over the
 * wire, must count exactly those per partition, name a deliberately hot key, and show a spread
 * key's writes landing on several partitions. Each test compares two readings, so the tests do
 * not depend on each other's traffic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProcessClusterLoadTest {

  private static final int PARTITIONS = 8;

  private ProcessCluster cluster;
  private PartitionAssignment table;
  private KvClient client;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @BeforeAll
  void startThreeNodes(@TempDir Path dir) throws Exception {
    cluster = new ProcessCluster(dir, PARTITIONS);
    cluster.startNodes("n1", "n2", "n3");
    assertThat(cluster.coordinator(List.of("n1", "n2", "n3")).await("DONE", 120))
        .isEqualTo("DONE 1");
    table = cluster.table();
    client = cluster.client();
  }

  @AfterAll
  void stopCluster() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theViewCountsExactlyTheOperationsDonePerPartition() {
    long seed = new SplittableRandom().nextLong();
    SplittableRandom random = new SplittableRandom(seed);
    long[][] expected = new long[PARTITIONS][3]; // gets, puts, cas
    long[] newKeys = new long[PARTITIONS];
    Set<String> written = new HashSet<>();
    ClusterLoad before = client.load();
    for (int i = 0; i < 400; i++) {
      String key = "count-" + random.nextInt(60);
      int p = table.partitionOf(b(key));
      switch (random.nextInt(3)) {
        case 0 -> {
          client.get(b(key));
          expected[p][0]++;
        }
        case 1 -> {
          client.put(b(key), b("v" + i));
          expected[p][1]++;
          if (written.add(key)) {
            newKeys[p]++;
          }
        }
        default -> {
          if (client.cas(b(key), null, b("c" + i)) && written.add(key)) {
            newKeys[p]++;
          }
          expected[p][2]++;
        }
      }
    }
    ClusterLoad after = client.load();
    assertThat(after.table().epoch()).isEqualTo(table.epoch());
    assertThat(after.nodes()).extracting(NodeLoad::node)
        .containsExactlyInAnyOrderElementsOf(table.nodes());
    for (int p = 0; p < PARTITIONS; p++) {
      PartitionLoad now = after.partition(p);
      PartitionLoad then = before.partition(p);
      assertThat(new long[] {now.gets() - then.gets(), now.puts() - then.puts(),
          now.compareAndSets() - then.compareAndSets(), now.keys() - then.keys()})
          .as("seed %d: gets, puts, cas and new keys of partition %d on %s", seed, p,
              table.primary(p))
          .containsExactly(expected[p][0], expected[p][1], expected[p][2], newKeys[p]);
      assertThat(now.state()).isEqualTo(PartitionState.OWNED.name());
      assertThat(now.epoch()).isLessThanOrEqualTo(table.epoch());
    }
    PartitionLoads loads = after.partitionLoadsSince(before, LoadMeasure.OPS_PER_SECOND);
    assertThat(loads.describes(table)).isTrue();
    for (int p = 0; p < PARTITIONS; p++) {
      long ops = expected[p][0] + expected[p][1] + expected[p][2];
      if (ops == 0) {
        assertThat(loads.load(p)).as("seed %d: partition %d", seed, p).isZero();
      } else {
        assertThat(loads.load(p)).as("seed %d: partition %d", seed, p).isPositive();
      }
    }
    PartitionLoads keys = after.partitionLoads(LoadMeasure.KEYS);
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(keys.load(p)).isEqualTo(after.partition(p).keys());
    }
  }

  @Test
  void aDeliberatelyHotKeyIsReportedByItsNodeAndNoColdKeyIs() {
    long seed = new SplittableRandom().nextLong();
    SplittableRandom random = new SplittableRandom(seed);
    byte[] hot = b("the-hot-key");
    for (int i = 0; i < 1200; i++) {
      if (random.nextBoolean()) {
        client.put(hot, b("v" + i));
      } else {
        client.get(b("cold-" + i)); // every cold key once
      }
    }
    ClusterLoad load = client.load();
    NodeId owner = table.primaryOf(hot);
    NodeLoad view = load.node(owner).orElseThrow();
    assertThat(view.hotKeys()).as("seed %d: hot keys of %s", seed, owner).isNotEmpty();
    HotKey top = view.hotKeys().get(0);
    assertThat(new String(top.key(), UTF_8)).as("seed %d", seed).isEqualTo("the-hot-key");
    assertThat(top.partition()).isEqualTo(table.partitionOf(hot));
    assertThat(top.share(view.hotKeyRequests())).as("seed %d", seed).isGreaterThan(0.2);
    for (NodeLoad node : load.nodes()) {
      assertThat(node.hotKeys()).as("seed %d: hot keys of %s", seed, node.node())
          .allSatisfy(k -> assertThat(new String(k.key(), UTF_8)).doesNotStartWith("cold-"));
    }
  }

  @Test
  void aSpreadKeysWritesLandOnSeveralPartitionsAndReadBack() {
    byte[] key = b("spread-me");
    Set<Integer> subPartitions = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      subPartitions.add(table.partitionOf(KeySpreading.subKey(key, i)));
    }
    try (KvClient spreading = KvClient.builder().tables(cluster::table)
        .addresses(id -> cluster.address(id)).spreadKey(key, 4).build();
        KvClient linearizable = KvClient.builder().tables(cluster::table)
            .addresses(id -> cluster.address(id)).spreadKey(key, 4, SpreadWrites.LINEARIZABLE)
            .build()) {
      client.put(key, b("unspread"));
      ClusterLoad before = spreading.load();
      for (int i = 0; i < 150; i++) {
        (i % 2 == 0 ? spreading : linearizable).put(key, b("w" + i));
      }
      assertThat(spreading.get(key)).isEqualTo(b("w149"));
      assertThat(linearizable.get(key)).isEqualTo(b("w149"));
      ClusterLoad after = spreading.load();
      long writes = 0;
      Set<NodeId> nodesWritten = new HashSet<>();
      int partitionsWritten = 0;
      for (int p : subPartitions) {
        long cas = after.partition(p).compareAndSets() - before.partition(p).compareAndSets();
        writes += cas;
        if (cas > 0) {
          partitionsWritten++;
          nodesWritten.add(table.primary(p));
        }
      }
      assertThat(writes).as("one compare-and-set of a sub-key per write").isEqualTo(150);
      assertThat(partitionsWritten).as("sub-key partitions written").isGreaterThan(1);
      System.out.printf("spread key: 150 writes over %d partitions on %s%n", partitionsWritten,
          nodesWritten);
      int home = table.partitionOf(key);
      if (!subPartitions.contains(home)) {
        assertThat(after.partition(home).puts() - before.partition(home).puts())
            .as("the key's own partition took none of the writes").isZero();
      }
      assertThat(client.get(key)).as("a client that does not spread reads the key itself")
          .isEqualTo(b("unspread"));
    }
  }
}
