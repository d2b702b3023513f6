package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.client.ScanResult;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key ranges on real node processes: three nodes and a coordinator process with strategy
 * {@code range}, keys written through the routing client, ordered scans that cross ranges;
 * then a fourth node joins while the range holding "k0875" is split there: the split is
 * committed as metadata (the nodes renumber their keys by the key ranges), the placement moves
 * a range to the joiner, and every key is still read and scanned in order.
 */
class ProcessClusterRangeTest {

  private static final List<String> THREE = List.of("n1", "n2", "n3");
  private static final List<String> FOUR = List.of("n1", "n2", "n3", "n4");
  private static final String[] RANGE = {"--strategy", "range", "--split-points",
      "k0250,k0500,k0750"};
  private static final int KEYS = 1_000;

  @TempDir Path dir;

  private static byte[] key(int i) {
    return String.format(Locale.ROOT, "k%04d", i).getBytes(UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, UTF_8);
  }

  private static final byte[] FIRST = new byte[0];

  /**
   * Asserts that a scan returned keys {@code first..first+count-1} in order, with values, and
   * asked exactly {@code partitions} partitions.
   */
  private static void assertKeys(ScanResult scan, int first, int count, int partitions) {
    List<KvEntry> entries = scan.entries();
    assertThat(entries).as("%s", scan).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(text(entries.get(i).key())).isEqualTo(text(key(first + i)));
      assertThat(text(entries.get(i).value())).isEqualTo("v" + (first + i));
    }
    assertThat(scan.partitionsTouched()).as("partitions asked by %s", scan)
        .isEqualTo(partitions);
  }

  @Test
  void scansCrossRangesInOrderBeforeAndAfterASplitAndAJoin() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, 0)) {
      cluster.startNodes(FOUR.toArray(String[]::new)); // n4 idles until it joins
      assertThat(cluster.coordinator(THREE, RANGE).await("DONE", 120)).isEqualTo("DONE 1");
      PartitionAssignment before = cluster.table();
      assertThat(before.scheme()).isInstanceOf(KeyRanges.class);
      assertThat(before.partitionCount()).isEqualTo(4);

      try (KvClient client = cluster.client()) {
        for (int i = KEYS - 1; i >= 0; i--) { // written out of order: the nodes sort them
          client.put(key(i), ("v" + i).getBytes(UTF_8));
        }
        assertKeys(client.scan(FIRST, null, 10_000), 0, KEYS, 4);
        assertKeys(client.scan(key(100), key(900), 10_000), 100, 800, 4); // all four ranges
        // across k0250, cut by the limit: the two covering ranges only
        assertKeys(client.scan(key(240), null, 20), 240, 20, 2);
        assertKeys(client.scan(key(250), key(251), 5), 250, 1, 1);
        assertThat(client.scan(key(500), key(500), 5).entries()).isEmpty();
      }

      String[] split = {"--strategy", "range", "--split-points", "k0250,k0500,k0750",
          "--split", "k0875"};
      assertThat(cluster.coordinator(FOUR, split).await("DONE", 180)).startsWith("DONE");
      PartitionAssignment after = cluster.table();
      assertThat(after.scheme()).isEqualTo(KeyRanges.of(key(250), key(500), key(750),
          key(875)));
      assertThat(after.epoch()).as("the split, then the joiner's range")
          .isGreaterThanOrEqualTo(before.epoch() + 2);
      assertThat(after.primaryPartitionsOf(NodeId.of("n4"))).as("n4 owns a range").hasSize(1);

      try (KvClient client = cluster.client()) {
        assertKeys(client.scan(FIRST, null, 10_000), 0, KEYS, 5);
        // [k0700, k0950): k0750 and the new split k0875 cut it in three
        assertKeys(client.scan(key(700), key(950), 10_000), 700, 250, 3);
        for (int i = 0; i < KEYS; i += 37) {
          assertThat(text(client.get(key(i)))).isEqualTo("v" + i);
        }
      }
    }
  }

  @Test
  void aScanOnAHashTableAsksEveryPartition() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, 8)) {
      cluster.startNodes("n1");
      assertThat(cluster.coordinator(List.of("n1")).await("DONE", 120)).isEqualTo("DONE 1");
      try (KvClient client = cluster.client()) {
        for (int i = 0; i < 100; i++) {
          client.put(key(i), ("v" + i).getBytes(UTF_8));
        }
        // consecutive keys are scattered by the hash: all 8 partitions are asked for 3 keys
        assertKeys(client.scan(key(10), key(13), 10), 10, 3, 8);
        assertThatThrownBy(() -> client.scan(key(2), key(1), 10))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("from must not be after to in unsigned byte order");
      }
    }
  }
}
