package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.client.KvScanner;
import io.partkit.kvstore.client.ScanResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range scans over node processes on loopback: exact ordered results across the 16 partitions
 * of a hash scheme, limits and paging, empty ranges and bad input; then a scan that runs
 * through the migration of a partition fenced under it.
 */
class ProcessClusterScanTest {

  private static final int PARTITIONS = 16;
  private static final int KEYS = 400;
  private static final List<String> THREE = List.of("n1", "n2", "n3");
  private static final List<String> FOUR = List.of("n1", "n2", "n3", "n4");

  @TempDir Path dir;
  private ProcessCluster cluster;
  private KvClient client;
  private final List<String> written = new ArrayList<>();

  @BeforeEach
  void startThreeNodesAndWrite() throws Exception {
    cluster = new ProcessCluster(dir, PARTITIONS);
    cluster.startNodes(FOUR.toArray(String[]::new)); // n4 idles until it joins
    assertThat(cluster.coordinator(THREE).await("DONE", 120)).isEqualTo("DONE 1");
    client = cluster.client();
    for (int i = 0; i < KEYS; i++) {
      String key = String.format("key-%03d", i);
      client.put(b(key), b("v" + i));
      written.add(key); // written in ascending order: the expected scan order
    }
  }

  @AfterEach
  void stopCluster() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static List<String> keys(List<KvEntry> entries) {
    return entries.stream().map(e -> new String(e.key(), UTF_8)).toList();
  }

  @Test
  void scansReturnExactlyTheRangeInKeyOrderAcrossEveryPartition() {
    ScanResult all = client.scan(b(""), null, 1000);
    assertThat(keys(all.entries())).isEqualTo(written);
    assertThat(all.entries().get(7).value()).isEqualTo(b("v7"));
    assertThat(all.more()).isFalse();
    assertThat(all.nextFrom()).isNull();
    assertThat(all.partitionsTouched()).as("a hash scheme: every partition is asked")
        .isEqualTo(PARTITIONS);
    assertThat(all.nodesTouched()).isEqualTo(3);

    ScanResult mid = client.scan(b("key-100"), b("key-150"), 1000);
    assertThat(keys(mid.entries())).isEqualTo(written.subList(100, 150));

    ScanResult ten = client.scan(b("key-05"), null, 10);
    assertThat(keys(ten.entries())).isEqualTo(written.subList(50, 60));
    assertThat(ten.more()).isTrue();
    assertThat(ten.nextFrom()).isEqualTo(b("key-059\0"));

    List<String> paged = new ArrayList<>();
    byte[] from = b("key-2");
    ScanResult page;
    do {
      page = client.scan(from, b("key-3"), 7);
      paged.addAll(keys(page.entries()));
      assertThat(page.entries()).hasSizeLessThanOrEqualTo(7);
      from = page.nextFrom();
    } while (page.more());
    assertThat(paged).as("pages of 7 by nextFrom").isEqualTo(written.subList(200, 300));

    ScanResult exact = client.scan(b("key-390"), null, 10);
    assertThat(keys(exact.entries())).isEqualTo(written.subList(390, 400));
    assertThat(exact.more()).as("the limit ended exactly at the last key").isFalse();

    KvScanner lazy = client.scanner(b("key-3"), null, 3);
    List<String> scanned = new ArrayList<>();
    lazy.forEachRemaining(e -> scanned.add(new String(e.key(), UTF_8)));
    assertThat(scanned).isEqualTo(written.subList(300, 400));
    assertThat(lazy.requests()).as("pages of 3").isGreaterThan(100 / 3);

    ScanResult none = client.scan(b("key-1"), b("key-1"), 5);
    assertThat(none.entries()).isEmpty();
    assertThat(none.requests()).as("an empty range asks no one").isZero();
    ScanResult nothingThere = client.scan(b("zzz"), null, 5);
    assertThat(nothingThere.entries()).isEmpty();
    assertThat(nothingThere.more()).isFalse();

    assertThatThrownBy(() -> client.scan(b("key-2"), b("key-1"), 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("from must not be after to in unsigned byte order");
    assertThatThrownBy(() -> client.scan(b(""), null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be >= 1: 0");
    assertThatThrownBy(() -> client.scanner(b(""), null, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("page size must be >= 1: -1");
    assertThatThrownBy(() -> client.scan(null, null, 5))
        .isInstanceOf(NullPointerException.class).hasMessageStartingWith("from must not be null");
  }

  @Test
  void aScanThroughTheMigrationOfAPartitionReturnsEveryKeyOnce() throws Exception {
    KvScanner scanner = client.scanner(b(""), null, 2);
    List<String> scanned = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      scanned.add(new String(scanner.next().key(), UTF_8)); // every partition's first page read
    }
    ProcessCluster.Child coordinator = cluster.coordinator(FOUR, "--pause-after", "FENCED");
    String[] paused = coordinator.await("PAUSED", 120).split(" ");
    int partition = Integer.parseInt(paused[2]);
    CompletableFuture<Void> rest = CompletableFuture.runAsync(
        () -> scanner.forEachRemaining(e -> scanned.add(new String(e.key(), UTF_8))));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    while (scanner.retries() == 0 && !rest.isDone() && System.nanoTime() < deadline) {
      // polled, not slept for a fixed time: the scan reaches the fenced partition in a few pages
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertThat(scanner.retries()).as("the scan was refused by fenced partition " + partition)
        .isPositive();
    coordinator.send("continue");
    assertThat(coordinator.await("DONE", 120)).startsWith("DONE");
    rest.get(60, TimeUnit.SECONDS);
    assertThat(cluster.table().primary(partition).toString()).isEqualTo(paused[4]);
    assertThat(scanned).as("every key exactly once, in order, across the move")
        .isEqualTo(written);
    assertThat(scanner.nodesTouched()).as("the moved partition was read at its new owner")
        .isEqualTo(4);
  }
}
