package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.client.ScanResult;
import io.partkit.replica.node.load.ClusterLoad;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.strategy.range.RangeSplits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop from measured sizes to a split, on real node processes: three nodes, strategy {@code
 * range} with two ranges {@code [, b)} and {@code [b, )} (so one node holds none), sequential
 * keys written through the routing client, which all pile into {@code [b, )}. The nodes' load
 * view reports that range's key count and median key; {@link RangeSplits} with a size threshold
 * cuts it there; a coordinator process that runs the same loop commits the split as metadata
 * first (both halves on the node that held the range, checked in the store and on the node
 * while the following move is paused), then moves one half to the idle node as an ordinary
 * migration. Every key is still read, a scan over all keys returns each once in order, and the
 * keys-per-node balance goes from all on one node to half and half.
 */
class ProcessClusterRangeSplitTest {

  private static final List<String> THREE = List.of("n1", "n2", "n3");
  private static final String[] RANGE = {"--strategy", "range", "--split-points", "b"};
  private static final int KEYS = 3_000;
  /** Above half the keys and below all of them: the full range splits, its halves do not. */
  private static final int SPLIT_SIZE = 2_000;

  @TempDir Path dir;

  private static byte[] key(int i) {
    return String.format(Locale.ROOT, "k%05d", i).getBytes(UTF_8);
  }

  private static String text(byte[] b) {
    return b == null ? null : new String(b, UTF_8);
  }

  /** Keys each node serves as a primary, by the view its primaries reported under the table. */
  private static Map<String, Long> keysPerNode(ClusterLoad load) {
    Map<String, Long> keys = new LinkedHashMap<>();
    for (String n : THREE) {
      keys.put(n, 0L);
    }
    for (int p = 0; p < load.table().partitionCount(); p++) {
      keys.merge(load.table().primary(p).value(), load.partition(p).keys(), Long::sum);
    }
    return keys;
  }

  private static double maxOverAverage(Map<String, Long> keys) {
    long max = keys.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    double average = keys.values().stream().mapToLong(Long::longValue).sum()
        / (double) keys.size();
    return max / average;
  }

  @Test
  void aRangeOverTheSizeThresholdSplitsAtItsMedianThenOneHalfMoves() throws Exception {
    long started = System.nanoTime();
    try (ProcessCluster cluster = new ProcessCluster(dir, 0)) {
      cluster.startNodes(THREE.toArray(String[]::new));
      assertThat(cluster.coordinator(THREE, RANGE).await("DONE", 120)).isEqualTo("DONE 1");
      PartitionAssignment before = cluster.table();
      assertThat(before.scheme()).isEqualTo(KeyRanges.of("b".getBytes(UTF_8)));
      NodeId owner = before.primary(1);
      List<NodeId> idle = new ArrayList<>();
      for (String n : THREE) {
        if (before.primaryPartitionsOf(NodeId.of(n)).length == 0) {
          idle.add(NodeId.of(n));
        }
      }
      assertThat(idle).as("two ranges on three nodes leave one idle").hasSize(1);

      Map<String, Long> keysBefore;
      try (KvClient client = cluster.client()) {
        for (int i = 0; i < KEYS; i++) { // sequential: every key lands in the last range
          client.put(key(i), ("v" + i).getBytes(UTF_8));
        }
        ClusterLoad load = client.load();
        assertThat(load.table().epoch()).isEqualTo(before.epoch());
        assertThat(load.partition(1).keys()).isEqualTo(KEYS);
        assertThat(load.partition(0).keys()).isZero();
        List<byte[]> splitKeys = load.splitKeys();
        assertThat(text(splitKeys.get(1))).as("the median of k00000..k02999")
            .isEqualTo(text(key(KEYS / 2)));
        assertThat(splitKeys.get(0)).as("an empty range has no split key").isNull();
        keysBefore = keysPerNode(load);

        // what the coordinator process below computes from the same view
        RangeSplits.Plan plan = RangeSplits.of(SPLIT_SIZE, Double.POSITIVE_INFINITY, 0)
            .plan(load.table(), load.partitionLoads(LoadMeasure.KEYS), splitKeys);
        assertThat(plan.splits()).isEqualTo(1);
        assertThat(plan.unsplittable()).isEmpty();
        assertThat(plan.table().scheme())
            .isEqualTo(KeyRanges.of("b".getBytes(UTF_8), key(KEYS / 2)));
        assertThat(plan.table().replicas(2)).as("metadata only: both halves where it was")
            .isEqualTo(plan.table().replicas(1)).isEqualTo(before.replicas(1));
      }

      String[] measured = {"--strategy", "range", "--split-points", "b",
          "--split-size", Integer.toString(SPLIT_SIZE), "--pause-after", "FENCED"};
      ProcessCluster.Child coordinator = cluster.coordinator(THREE, measured);
      assertThat(coordinator.await("PLAN", 120)).isEqualTo("PLAN 1 b," + text(key(KEYS / 2)));
      String[] paused = coordinator.await("PAUSED", 120).split(" ");
      int moving = Integer.parseInt(paused[2]);

      // the split is committed before any move, as metadata: both halves on the old owner
      PartitionAssignment split = cluster.table();
      assertThat(split.epoch()).isEqualTo(before.epoch() + 1);
      assertThat(split.scheme()).isEqualTo(KeyRanges.of("b".getBytes(UTF_8), key(KEYS / 2)));
      assertThat(split.replicas(1)).isEqualTo(List.of(owner));
      assertThat(split.replicas(2)).isEqualTo(List.of(owner));
      assertThat(moving).as("the move is of a half").isIn(1, 2);
      assertThat(paused[3]).isEqualTo(owner.value());
      assertThat(paused[4]).isEqualTo(idle.get(0).value());
      NodeLoad onOwner = KvClient.nodeLoad(cluster.address(owner), java.time.Duration
          .ofSeconds(10), null);
      assertThat(onOwner.partition(1).orElseThrow().keys()).as("%s", onOwner)
          .isEqualTo(KEYS / 2);
      assertThat(onOwner.partition(2).orElseThrow().keys()).as("%s", onOwner)
          .isEqualTo(KEYS - KEYS / 2);
      assertThat(onOwner.partition(moving).orElseThrow().state())
          .isEqualTo(PartitionState.MIGRATING_OUT.name());

      coordinator.send("continue");
      assertThat(coordinator.await("DONE", 180)).startsWith("DONE");
      PartitionAssignment after = cluster.table();
      assertThat(after.scheme()).isEqualTo(split.scheme());
      assertThat(after.epoch()).isGreaterThan(split.epoch());
      assertThat(after.primary(moving)).as("the moved half").isEqualTo(idle.get(0));
      assertThat(after.primary(3 - moving)).as("the half that stayed").isEqualTo(owner);
      assertThat(after.primary(0)).isEqualTo(before.primary(0));

      try (KvClient client = cluster.client()) {
        for (int i = 0; i < KEYS; i++) {
          assertThat(text(client.get(key(i)))).as("key %d", i).isEqualTo("v" + i);
        }
        ScanResult scan = client.scan(new byte[0], null, 10 * KEYS);
        List<String> scanned = new ArrayList<>();
        for (KvEntry e : scan.entries()) {
          scanned.add(text(e.key()));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
          expected.add(text(key(i)));
        }
        assertThat(scanned).as("every key once, in order: %s", scan).isEqualTo(expected);
        assertThat(Set.copyOf(scanned)).hasSize(KEYS);

        ClusterLoad load = client.load();
        assertThat(load.table().epoch()).isEqualTo(after.epoch());
        Map<String, Long> keysAfter = keysPerNode(load);
        double ratioBefore = maxOverAverage(keysBefore);
        double ratioAfter = maxOverAverage(keysAfter);
        System.out.printf(Locale.ROOT, "range split on node processes: keys per node before %s"
            + " (max/avg %.3f), after %s (max/avg %.3f); split at %s, moved partition %d"
            + " %s -> %s, table epochs %d -> %d -> %d, %.1f s%n", keysBefore, ratioBefore,
            keysAfter, ratioAfter, text(key(KEYS / 2)), moving, owner, idle.get(0),
            before.epoch(), split.epoch(), after.epoch(), (System.nanoTime() - started) / 1e9);
        assertThat(ratioBefore).isEqualTo(3.0);
        assertThat(ratioAfter).as("balance improves: %s -> %s", keysBefore, keysAfter)
            .isLessThan(ratioBefore).isEqualTo(1.5);
        assertThat(keysAfter.get(idle.get(0).value())).isEqualTo(KEYS - KEYS / 2);
      }
    }
  }
}
