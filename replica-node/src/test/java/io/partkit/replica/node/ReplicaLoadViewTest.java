package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Outcome;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.HotKey;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.PartitionLoads;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three node processes and a control: a seeded mix of gets, puts and compare-and-sets, one key
 * much hotter than the rest, then a scan; every node's load view read over the wire matches
 * exactly what was sent to the partitions it is primary of (requests by kind, bytes in and out,
 * keys held), its hottest key is the hot one with its exact count, and the cluster's view gives
 * each partition's keys and a load wherever requests went.
 */
class ReplicaLoadViewTest {

  static final long SEED = 20_261_129L;
  static final int REQUESTS = 600;
  static final int KEYS = 30;
  static final long HOT = 7;

  /** The process helpers of the cluster tests, on a cluster of our own. */
  final ReplicaClusterTest cluster = new ReplicaClusterTest();

  @AfterEach
  void stop() {
    cluster.stop();
  }

  /** What the test sent to one partition and the node served. */
  static final class Sent {
    long gets;
    long puts;
    long cas;
    long bytesIn;
    long bytesOut;
    final Set<Long> keys = new HashSet<>();
  }

  @Test
  void theLoadViewOverTheWireIsExactlyWhatWasSent() throws Exception {
    cluster.startCluster(2);
    try (ReplicaClient c = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(10))) {
      cluster.awaitSettled(c);
      ReplicaClient.Table table = c.table();
      Map<Integer, Sent> sent = new HashMap<>();
      Map<Long, Long> values = new HashMap<>();
      long hotRequests = 0;
      Random random = new Random(SEED);
      for (int i = 0; i < REQUESTS; i++) {
        long key = random.nextInt(3) == 0 ? HOT : random.nextInt(KEYS);
        Sent s = sent.computeIfAbsent(table.route(key).orElseThrow().partition(),
            p -> new Sent());
        int kind = random.nextInt(10);
        String what = "request " + i + " (seed " + SEED + ")";
        if (kind < 5) {
          ReplicaClient.Result r = c.get(key);
          assertThat(r.outcome()).as(what + ": " + r).isEqualTo(Outcome.OK);
          assertThat(r.value()).as(what).isEqualTo(values.get(key));
          s.gets++;
          s.bytesIn += 8;
          s.bytesOut += r.value() == null ? 0 : 8;
        } else if (kind < 8) {
          long value = random.nextLong() & Long.MAX_VALUE; // never the -1 of a mismatch
          ReplicaClient.Result r = c.put(key, value);
          assertThat(r.outcome()).as(what + ": " + r).isEqualTo(Outcome.OK);
          values.put(key, value);
          s.puts++;
          s.bytesIn += 16;
          s.keys.add(key);
        } else {
          // every fourth compare-and-set expects a value the key does not hold: not served
          boolean mismatch = random.nextInt(4) == 0;
          Long expected = mismatch ? Long.valueOf(-1) : values.get(key);
          long value = random.nextLong() & Long.MAX_VALUE;
          ReplicaClient.Result r = c.cas(key, expected, value);
          if (mismatch) {
            assertThat(r.mismatch()).as(what + ": " + r).isTrue();
            continue;
          }
          assertThat(r.outcome()).as(what + ": " + r).isEqualTo(Outcome.OK);
          values.put(key, value);
          s.cas++;
          s.bytesIn += 8 + (expected == null ? 0 : 8) + 8;
          s.keys.add(key);
        }
        if (key == HOT) {
          hotRequests++;
        }
      }
      ReplicaClient.BytesScanResult scan = c.scan(new byte[0], null, 1000);
      assertThat(scan.outcome()).as(scan.toString()).isEqualTo(Outcome.OK);
      assertThat(scan.entries()).hasSize(values.size());
      for (ReplicaClient.BytesEntry e : scan.entries()) {
        Sent s = sent.computeIfAbsent(table.route(e.key()).orElseThrow().partition(),
            p -> new Sent());
        s.bytesOut += e.key().length + e.value().length;
      }
      for (ReplicaClient.Row row : table.rows()) {
        sent.computeIfAbsent(row.partition(), p -> new Sent()).gets++; // a page each
      }

      int hotPartition = table.route(HOT).orElseThrow().partition();
      for (ReplicaClient.Row row : table.rows()) {
        NodeLoad view = c.nodeLoad(row.primary());
        PartitionLoad load = view.partition(row.partition()).orElseThrow();
        Sent s = sent.get(row.partition());
        String what = "partition " + row.partition() + " on node " + row.primary() + " (seed "
            + SEED + "): " + load;
        assertThat(load.state()).as(what).isEqualTo("PRIMARY");
        assertThat(load.epoch()).as(what).isEqualTo(row.epoch());
        assertThat(List.of(load.gets(), load.puts(), load.compareAndSets(), load.bytesIn(),
            load.bytesOut(), load.keys()))
            .as(what).containsExactly(s.gets, s.puts, s.cas, s.bytesIn, s.bytesOut,
                (long) s.keys.size());
        assertThat(load.measuredNanos()).as(what).isPositive();
        assertThat(load.latencyTotalNanos()).as(what).isPositive();
        if (row.partition() == hotPartition) {
          HotKey hottest = view.hotKeys().get(0);
          assertThat(ByteBuffer.wrap(hottest.key()).getLong()).as(what).isEqualTo(HOT);
          assertThat(hottest.partition()).isEqualTo(hotPartition);
          assertThat(hottest.estimate()).as("a sketch of 30 keys counts exactly")
              .isEqualTo(hotRequests);
        }
      }

      ClusterLoad all = c.load();
      PartitionLoads keys = all.partitionLoads(LoadMeasure.KEYS);
      PartitionLoads ops = all.partitionLoads(LoadMeasure.OPS_PER_SECOND);
      for (ReplicaClient.Row row : table.rows()) {
        assertThat(keys.load(row.partition())).isEqualTo(sent.get(row.partition()).keys.size());
        assertThat(ops.load(row.partition())).isPositive();
      }
    }
  }
}
