package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Message.Outcome;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.hash.KeyHash;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lazy scanners ({@link ReplicaClient#scanner}) over three nodes and a control in this process:
 * exact ordered results across eight hashed partitions in pages of any size, empty ranges and
 * bad input; a scan through a failover and a
 * split of every partition returns every key once, in order; a scan under concurrent writes
 * returns every key that existed before it once, each with a value it held, in order; over key
 * ranges a short scan reads one partition.
 */
class ScannerClusterTest {

  static final int KEYS = 400;

  @TempDir Path dir;
  InProcessCluster cluster;
  final List<String> written = new ArrayList<>();

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
      assertThat(cluster.failures).as("failures the nodes reported").isEmpty();
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, UTF_8);
  }

  /** Writes {@code key-000} to {@code key-399}, each {@code v<i>}, in ascending order. */
  private void writeKeys(ReplicaClient c) {
    for (int i = 0; i < KEYS; i++) {
      String key = String.format("key-%03d", i);
      ReplicaClient.BytesResult r = c.put(b(key), b("v" + i));
      assertThat(r.outcome()).as(key + ": " + r.why()).isEqualTo(Outcome.OK);
      written.add(key);
    }
  }

  private static List<String> keys(ReplicaScanner scanner) {
    List<String> out = new ArrayList<>();
    scanner.forEachRemaining(e -> out.add(s(e.key())));
    return out;
  }

  @Test
  void aScannerReadsExactlyTheRangeInKeyOrderAcrossEveryPartition() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(8, KeyHash.MURMUR3_128), 2);
    try (ReplicaClient c = cluster.client().build()) {
      writeKeys(c);
      ReplicaScanner all = c.scanner(b(""), null, 1000);
      ReplicaClient.BytesEntry first = all.next();
      assertThat(s(first.key())).isEqualTo("key-000");
      assertThat(s(first.value())).isEqualTo("v0");
      List<String> rest = keys(all);
      assertThat(rest).isEqualTo(written.subList(1, KEYS));
      assertThat(all.partitionsTouched()).as("hashed: every partition is asked").isEqualTo(8);
      assertThat(all.nodesTouched()).as("the primaries").isBetween(1, 3);
      assertThat(all.requests()).as("one page of each partition").isEqualTo(8);
      assertThat(all.retries()).isZero();

      ReplicaScanner paged = c.scanner(b("key-3"), null, 3);
      assertThat(keys(paged)).isEqualTo(written.subList(300, 400));
      assertThat(paged.requests()).as("pages of 3").isGreaterThan(100 / 3);

      assertThat(keys(c.scanner(b("key-100"), b("key-150"), 7)))
          .isEqualTo(written.subList(100, 150));
      ReplicaScanner none = c.scanner(b("key-1"), b("key-1"), 5);
      assertThat(none.hasNext()).isFalse();
      assertThat(none.requests()).as("an empty range asks no one").isZero();
      assertThat(keys(c.scanner(b("zzz"), null, 5))).isEmpty();

      assertThatThrownBy(() -> c.scanner(b("key-2"), b("key-1"), 5))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is after its to");
      assertThatThrownBy(() -> c.scanner(b(""), null, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("a scanner's page size must be at least 1, got 0");
      assertThatThrownBy(() -> c.scanner(null, null, 5))
          .isInstanceOf(NullPointerException.class);
    }
  }

  @Test
  void aScanThroughAFailoverAndASplitOfEveryPartitionReturnsEveryKeyOnceInOrder()
      throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(4, KeyHash.MURMUR3_128), 2);
    // each page waits out a failover: the control finds a node down after 1.5 s
    try (ReplicaClient c = cluster.client().timeout(java.time.Duration.ofSeconds(20)).build()) {
      writeKeys(c);
      ReplicaScanner scanner = c.scanner(b(""), null, 2);
      List<String> scanned = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        scanned.add(s(scanner.next().key())); // every partition's first pages read
      }
      int stopped = c.table().rows().get(0).primary();
      cluster.stopNode(stopped);
      for (int i = 0; i < 60; i++) {
        scanned.add(s(scanner.next().key())); // partition 0's next page: at its new primary
      }
      assertThat(scanner.retries()).as("pages refused or lost while partition 0 failed over")
          .isPositive();
      cluster.startNode(stopped);
      cluster.awaitSettled(c);

      LinkedBlockingQueue<String> answers = new LinkedBlockingQueue<>();
      cluster.control().command(new ControlCommand.SplitAll(), answers::add);
      for (int i = 0; i < 4; i++) {
        assertThat(answers.poll(60, TimeUnit.SECONDS)).as("split " + i).startsWith(
            "REPLICA SPLIT ");
      }
      cluster.awaitSettled(c);
      assertThat(c.table().partitions()).isEqualTo(8);
      scanner.forEachRemaining(e -> scanned.add(s(e.key())));
      assertThat(scanned).as("every key exactly once, in order, across both").isEqualTo(written);
      assertThat(scanner.partitionsTouched()).as("the split's new partitions were read")
          .isGreaterThan(4);
    }
  }

  @Test
  void aScanUnderWritesReturnsEveryEarlierKeyOnceWithAValueItHeld() throws Exception {
    cluster = InProcessCluster.start(dir, 3, new HashSlots(8, KeyHash.MURMUR3_128), 2);
    try (ReplicaClient c = cluster.client().build()) {
      writeKeys(c);
      Map<String, Set<String>> values = new ConcurrentHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        values.put(written.get(i), ConcurrentHashMap.newKeySet());
        values.get(written.get(i)).add("v" + i);
      }
      Set<String> added = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        writers.add(new Thread(() -> {
          java.util.Random random = new java.util.Random(thread);
          for (int n = 0; !stop.get(); n++) {
            if (n % 2 == 0) {
              String key = written.get(random.nextInt(KEYS));
              String value = "w" + thread + "-" + n;
              values.get(key).add(value); // before the write: a scan may see it at once
              c.put(b(key), b(value));
            } else {
              String key = String.format("key-%03d-new-%d-%d", random.nextInt(KEYS), thread, n);
              added.add(key);
              c.put(b(key), b("n"));
            }
          }
        }));
      }
      writers.forEach(Thread::start);
      List<ReplicaClient.BytesEntry> seen = new ArrayList<>();
      try {
        Thread.sleep(100);
        c.scanner(b(""), null, 5).forEachRemaining(seen::add);
      } finally {
        stop.set(true);
        for (Thread t : writers) {
          t.join();
        }
      }
      List<String> keys = new ArrayList<>();
      Set<String> earlier = new HashSet<>(written);
      for (ReplicaClient.BytesEntry e : seen) {
        String key = s(e.key());
        if (!keys.isEmpty()) {
          assertThat(key).as("strictly after the key before it").isGreaterThan(
              keys.get(keys.size() - 1));
        }
        keys.add(key);
        if (earlier.contains(key)) {
          assertThat(values.get(key)).as("a value %s held", key).contains(s(e.value()));
        } else {
          assertThat(added).as("a key written during the scan").contains(key);
        }
      }
      assertThat(keys).as("every key that existed before the scan").containsAll(written);
      assertThat(added).as("keys were added during the scan").isNotEmpty();
    }
  }

  @Test
  void overKeyRangesAShortScanReadsOnlyThePartitionsThatHoldIt() throws Exception {
    KeyRanges ranges = KeyRanges.of(List.of(b("key-1"), b("key-2"), b("key-3")));
    cluster = InProcessCluster.start(dir, 3, ranges, 2);
    try (ReplicaClient c = cluster.client().build()) {
      writeKeys(c);
      ReplicaScanner three = c.scanner(b("key-150"), null, 10);
      List<String> got = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        got.add(s(three.next().key()));
      }
      assertThat(got).isEqualTo(written.subList(150, 153));
      assertThat(three.partitionsTouched()).as("one page of [key-1, key-2)").isEqualTo(1);
      assertThat(three.requests()).isEqualTo(1);
      ReplicaScanner across = c.scanner(b("key-190"), b("key-210"), 4);
      assertThat(keys(across)).isEqualTo(written.subList(190, 210));
      assertThat(across.partitionsTouched()).as("two ranges, in key order").isEqualTo(2);
      assertThat(keys(c.scanner(b(""), null, 50))).isEqualTo(written);
    }
  }
}
