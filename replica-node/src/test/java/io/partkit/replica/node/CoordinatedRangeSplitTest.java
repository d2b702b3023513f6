package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Numbering;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The loop from measured sizes to a split on replica-core node processes: three nodes under a
 * {@code ReplicaCoordinatorMain --strategy range --partitions 2 --replicas 1 --split-size 2000}, so
 * one node leads no range. 3,000 sequential keys all fall in the first range; its primary's
 * load view reports the range's key count and median key; a {@code rebalance} cuts the range
 * there (both halves on its node, the core splitting its partition) and moves one half to the
 * idle node. Every key reads back, a scan returns each key once in order, and the keys per node
 * go from all on one node to half and half.
 */
class CoordinatedRangeSplitTest {

  private static final int NODES = 3;
  private static final int KEYS = 3_000;
  /** Above half the keys and below all of them: the full range splits, its halves do not. */
  private static final int SPLIT_SIZE = 2_000;

  final ReplicaClusterTest cluster = new ReplicaClusterTest();
  final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    cluster.stop();
  }

  private static byte[] key(int i) {
    return String.format(Locale.ROOT, "k%05d", i).getBytes(UTF_8);
  }

  private static String text(byte[] b) {
    return b == null ? null : new String(b, UTF_8);
  }

  /** Keys each node serves as a primary, by its own load view. */
  private static Map<Integer, Long> keysPerNode(ReplicaClient c) throws Exception {
    Map<Integer, Long> keys = new LinkedHashMap<>();
    for (int n = 0; n < NODES; n++) {
      keys.put(n, c.nodeLoad(n).partitions().stream().mapToLong(PartitionLoad::keys).sum());
    }
    return keys;
  }

  private static double maxOverAverage(Map<Integer, Long> keys) {
    long max = keys.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    double average = keys.values().stream().mapToLong(Long::longValue).sum()
        / (double) keys.size();
    return max / average;
  }

  /** Writes {@code key} until acknowledged, within a generous deadline. */
  private static void put(ReplicaClient c, byte[] key, byte[] value) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    ReplicaClient.BytesResult r;
    do {
      r = c.put(key, value);
    } while (r.outcome() != Outcome.OK && System.nanoTime() < deadline);
    assertThat(r.outcome()).as("put %s: %s", text(key), r.why()).isEqualTo(Outcome.OK);
  }

  /** Waits until the control's table has {@code partitions} partitions, settled. */
  private static ReplicaClient.Table awaitTable(ReplicaClient c, int partitions,
      java.util.function.Predicate<ReplicaClient.Table> done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    ReplicaClient.Table t = null;
    while (System.nanoTime() < deadline) {
      try {
        t = c.table();
        if (t.settled() && t.partitions() == partitions && done.test(t)) {
          return t;
        }
      } catch (java.io.IOException e) {
        // the control did not answer this time
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the control's table is not of " + partitions
        + " settled partitions as expected: " + t);
  }

  private static String span(ReplicaClient.Row r) {
    Bytes[] s = ((Numbering.KeySpans) r.numbering()).span(r.partition());
    return show(s[0]) + ".." + (s[1] == null ? "" : show(s[1]));
  }

  /** A key as text when it is printable ASCII, else in hex. */
  private static String show(Bytes key) {
    byte[] b = key.toArray();
    for (byte x : b) {
      if (x < 0x20 || x > 0x7e) {
        return "0x" + key;
      }
    }
    return text(b);
  }

  @Test
  void aRangeOverTheSizeThresholdSplitsAtItsMedianThenOneHalfMoves() throws Exception {
    long started = System.nanoTime();
    for (int i = 0; i < NODES; i++) {
      cluster.addresses.add(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    }
    cluster.controlAddress = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    cluster.nodeControls = List.of(cluster.controlAddress);
    for (int i = 0; i < NODES; i++) {
      cluster.startNode(i);
    }
    cluster.control = cluster.spawn("coordinator", ReplicaCoordinatorMain.class, List.of(
        "--store", "file:" + cluster.dir.resolve("store.json"), "--nodes",
        cluster.list(cluster.addresses), "--control",
        cluster.list(List.of(cluster.controlAddress)), "--replicas", "1", "--strategy", "range",
        "--partitions", "2", "--split-size", Integer.toString(SPLIT_SIZE),
        "--step-timeout-ms", "60000"));
    cluster.control.await("REPLICA SETTLED", Duration.ofSeconds(90));
    ReplicaClient client = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(2));
    closing.add(client);

    ReplicaClient.Table before = client.table();
    assertThat(before.partitions()).isEqualTo(2);
    for (int i = 0; i < KEYS; i++) { // sequential: every key lands in the first range
      put(client, key(i), ("v" + i).getBytes(UTF_8));
    }
    ReplicaClient.Row first = before.route(key(0)).orElseThrow();
    assertThat(before.route(key(KEYS - 1)).orElseThrow()).isEqualTo(first);
    int owner = first.primary();
    int other = before.rows().stream().filter(r -> r != first).findFirst().orElseThrow()
        .primary();
    int idle = 3 - owner - other;
    assertThat(List.of(owner, other)).as("two ranges on three nodes leave one idle")
        .doesNotHaveDuplicates().doesNotContain(idle);

    NodeLoad onOwner = client.nodeLoad(owner);
    PartitionLoad full = onOwner.partition(first.partition()).orElseThrow();
    assertThat(full.keys()).isEqualTo(KEYS);
    assertThat(text(full.splitKey())).as("the median of k00000..k02999, reported: %s", full)
        .isEqualTo(text(key(KEYS / 2)));
    PartitionLoad empty = client.nodeLoad(other).partitions().get(0);
    assertThat(empty.keys()).isZero();
    assertThat(empty.splitKey()).as("an empty range has no split key").isNull();
    Map<Integer, Long> keysBefore = keysPerNode(client);

    cluster.send(cluster.control, "rebalance");
    assertThat(cluster.control.await("REPLICA SPLITS PLANNED", Duration.ofSeconds(60)))
        .isEqualTo("REPLICA SPLITS PLANNED 1 AT " + HexFormat.of().formatHex(key(KEYS / 2)));
    assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(120)))
        .as("the split committed, then one move").endsWith("MIGRATIONS 1")
        .startsWith("REPLICA REBALANCED");

    // the core split its partition at the median, and one half is led by the idle node
    ReplicaClient.Table after = awaitTable(client, 3, t -> t.rows().stream()
        .anyMatch(r -> r.primary() == idle));
    ReplicaClient.Row low = after.route(key(0)).orElseThrow();
    ReplicaClient.Row high = after.route(key(KEYS - 1)).orElseThrow();
    assertThat(low.partition()).as("the low half keeps its number").isEqualTo(first.partition());
    assertThat(high.partition()).as("the core's new partition: p + m")
        .isEqualTo(first.partition() + (int) first.modulus());
    assertThat(after.route(key(KEYS / 2)).orElseThrow()).isEqualTo(high);
    assertThat(after.route(key(KEYS / 2 - 1)).orElseThrow()).isEqualTo(low);
    assertThat(List.of(low.primary(), high.primary())).as("one half moved, one stayed")
        .containsExactlyInAnyOrder(owner, idle);
    assertThat(after.route(new byte[] {(byte) 0xff}).orElseThrow().primary())
        .as("the other range stays").isEqualTo(other);

    for (int i = 0; i < KEYS; i++) {
      ReplicaClient.BytesResult r = client.get(key(i));
      assertThat(r.outcome()).as("get key %d: %s", i, r.why()).isEqualTo(Outcome.OK);
      assertThat(text(r.value())).as("key %d", i).isEqualTo("v" + i);
    }
    List<String> scanned = new ArrayList<>();
    ReplicaScanner scan = client.scanner(new byte[0], null, 1_000);
    while (scan.hasNext()) {
      ReplicaClient.BytesEntry e = scan.next();
      scanned.add(text(e.key()) + "=" + text(e.value()));
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      expected.add(text(key(i)) + "=v" + i);
    }
    assertThat(scanned).as("every key once, in order").isEqualTo(expected);

    Map<Integer, Long> keysAfter = keysPerNode(client);
    double ratioBefore = maxOverAverage(keysBefore);
    double ratioAfter = maxOverAverage(keysAfter);
    System.out.printf(Locale.ROOT, "range split on replica-core node processes: keys per node"
        + " before %s (max/avg %.3f), after %s (max/avg %.3f); cut at %s (core partition %d"
        + " into %d, spans %s and %s), node %d -> %d, %.1f s%n", keysBefore, ratioBefore,
        keysAfter, ratioAfter, text(key(KEYS / 2)), low.partition(), high.partition(),
        span(low), span(high), owner, idle, (System.nanoTime() - started) / 1e9);
    assertThat(ratioBefore).isEqualTo(3.0);
    assertThat(ratioAfter).as("balance improves: %s -> %s", keysBefore, keysAfter)
        .isEqualTo(1.5);
    assertThat(keysAfter.get(idle)).isEqualTo(KEYS / 2);
    assertThat(keysAfter.get(owner)).isEqualTo(KEYS / 2);
  }
}
