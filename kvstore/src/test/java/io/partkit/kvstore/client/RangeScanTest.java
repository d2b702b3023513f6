package io.partkit.kvstore.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.client.ScanCoverage.KeyRange;
import io.partkit.kvstore.client.ScanCoverage.OrderedKeyPartitions;
import io.partkit.kvstore.wire.ScanPage;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The scan engine against an in-memory page source: the merge of a hash scheme's partitions,
 * the in-order walk of an ordered scheme's, paging, and re-planning when the table renumbers.
 */
class RangeScanTest {

  private static byte[] k(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return b;
  }

  private static PartitionAssignment hashTable(long epoch, int partitions) {
    List<List<NodeId>> replicas = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      replicas.add(List.of(NodeId.of("n" + (p % 3))));
    }
    return PartitionAssignment.of("test", epoch, 1, HashSlots.of(partitions), replicas);
  }

  /**
   * Key ranges split at the given keys, numbered out of key order (range i is partition
   * {@code perm[i]}), so a scan that visited partitions by number would come out wrong.
   */
  private record FakeRanges(List<byte[]> starts, int[] perm) implements OrderedKeyPartitions {

    int index(byte[] key) {
      int i = starts.size() - 1;
      while (Arrays.compareUnsigned(starts.get(i), key) > 0) {
        i--;
      }
      return i;
    }

    int partitionOf(byte[] key) {
      return perm[index(key)];
    }

    @Override
    public List<KeyRange> covering(byte[] from, byte[] to) {
      List<KeyRange> out = new ArrayList<>();
      for (int i = index(from); i < starts.size(); i++) {
        byte[] start = i == index(from) ? from : starts.get(i);
        if (to != null && Arrays.compareUnsigned(start, to) >= 0) {
          break;
        }
        byte[] end = i + 1 < starts.size() ? starts.get(i + 1) : null;
        if (to != null && (end == null || Arrays.compareUnsigned(end, to) > 0)) {
          end = to;
        }
        out.add(new KeyRange(perm[i], start, end));
      }
      return out;
    }
  }

  /** A page source over in-memory partitions, which may swap its table after some pages. */
  private static final class FakeSource implements RangeScan.PageSource {
    final NavigableMap<byte[], byte[]> all;
    volatile PartitionAssignment table;
    ToIntFunction<byte[]> placement;
    final List<Integer> asked = new ArrayList<>();
    Runnable afterPage = () -> { };

    FakeSource(NavigableMap<byte[], byte[]> all, PartitionAssignment table,
        ToIntFunction<byte[]> placement) {
      this.all = all;
      this.table = table;
      this.placement = placement;
    }

    @Override
    public PartitionAssignment table() {
      return table;
    }

    @Override
    public RangeScan.Fetched fetch(PartitionAssignment planned, int partition, byte[] from,
        byte[] to, int max, AtomicInteger retries) {
      if (!planned.scheme().equals(table.scheme())) {
        throw new RangeScan.StaleNumbering();
      }
      asked.add(partition);
      TreeMap<byte[], byte[]> mine = new TreeMap<>(Arrays::compareUnsigned);
      for (Map.Entry<byte[], byte[]> e : all.entrySet()) {
        if (placement.applyAsInt(e.getKey()) == partition) {
          mine.put(e.getKey(), e.getValue());
        }
      }
      ScanPage page = ScanPage.take(mine, new ScanPage.Query(from, to, max));
      afterPage.run();
      return new RangeScan.Fetched(page, table.primary(partition));
    }
  }

  private static TreeMap<byte[], byte[]> randomKeys(Random random, int n) {
    TreeMap<byte[], byte[]> all = new TreeMap<>(Arrays::compareUnsigned);
    while (all.size() < n) {
      byte[] key = new byte[random.nextInt(4)];
      random.nextBytes(key); // half of the bytes are >= 0x80: unsigned order matters
      all.put(key, ("v" + all.size()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    return all;
  }

  private static List<KvEntry> expected(NavigableMap<byte[], byte[]> all, byte[] from,
      byte[] to) {
    NavigableMap<byte[], byte[]> range = to == null ? all.tailMap(from, true)
        : all.subMap(from, true, to, false);
    List<KvEntry> out = new ArrayList<>();
    range.forEach((key, value) -> out.add(new KvEntry(key, value)));
    return out;
  }

  private static List<KvEntry> drain(RangeScan scan) {
    List<KvEntry> out = new ArrayList<>();
    scan.forEachRemaining(out::add);
    return out;
  }

  private static byte[] randomBound(Random random) {
    byte[] b = new byte[random.nextInt(3)];
    random.nextBytes(b);
    return b;
  }

  @Test
  void aHashSchemeScanMergesEveryPartitionIntoKeyOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    TreeMap<byte[], byte[]> all = randomKeys(random, 300);
    PartitionAssignment table = hashTable(1, 8);
    for (int round = 0; round < 40; round++) {
      byte[] a = randomBound(random);
      byte[] b = random.nextInt(4) == 0 ? null : randomBound(random);
      byte[] from = b == null || Arrays.compareUnsigned(a, b) <= 0 ? a : b;
      byte[] to = b == null || Arrays.compareUnsigned(a, b) <= 0 ? b : a;
      int pageSize = new int[] {1, 2, 3, 7, 1000}[random.nextInt(5)];
      FakeSource source = new FakeSource(all, table, table::partitionOf);
      RangeScan scan = new RangeScan(source, ScanCoverage.DEFAULT, from, to, pageSize);
      String what = "seed " + seed + ", round " + round + ": [" + Arrays.toString(from) + ", "
          + Arrays.toString(to) + ") in pages of " + pageSize;
      List<KvEntry> got = drain(scan);
      assertThat(got).as(what).containsExactlyElementsOf(expected(all, from, to));
      if (Arrays.equals(from, to)) {
        assertThat(source.asked).as(what + ": an empty range asks nothing").isEmpty();
      } else {
        assertThat(scan.partitionsTouched()).as(what + ": every partition is asked").isEqualTo(8);
        assertThat(scan.nodesTouched()).as(what).isEqualTo(3);
        assertThat(scan.requests()).as(what).isEqualTo(source.asked.size())
            .isGreaterThanOrEqualTo(8);
      }
    }
  }

  @Test
  void whetherMoreFollowsALimitIsKnownWithoutAnotherRequestForAHashScheme() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    TreeMap<byte[], byte[]> all = randomKeys(random, 100);
    PartitionAssignment table = hashTable(1, 8);
    for (int limit : new int[] {1, 5, 37, 99, 100}) {
      FakeSource source = new FakeSource(all, table, table::partitionOf);
      RangeScan scan = new RangeScan(source, ScanCoverage.DEFAULT, k(), null, limit);
      List<KvEntry> first = new ArrayList<>();
      while (first.size() < limit && scan.hasNext()) {
        first.add(scan.next());
      }
      int requests = scan.requests();
      assertThat(scan.hasMore()).as("seed %d, limit %d", seed, limit).isEqualTo(limit < 100);
      assertThat(scan.requests()).as("seed %d, limit %d: hasMore asked no one", seed, limit)
          .isEqualTo(requests);
      assertThat(first).as("seed %d", seed)
          .containsExactlyElementsOf(expected(all, k(), null).subList(0, limit));
    }
  }

  @Test
  void anOrderedSchemeScanVisitsOnlyTheCoveringPartitionsInKeyOrder() {
    FakeRanges ranges = new FakeRanges(List.of(k(), k(0x40), k(0x80), k(0xc0)),
        new int[] {2, 0, 3, 1});
    TreeMap<byte[], byte[]> all = new TreeMap<>(Arrays::compareUnsigned);
    for (int i = 0; i < 256; i += 4) {
      all.put(k(i), k(i, i));
    }
    PartitionAssignment table = hashTable(1, 4);
    ScanCoverage ordered = ScanCoverage.ordering(t -> ranges);

    FakeSource source = new FakeSource(all, table, ranges::partitionOf);
    RangeScan scan = new RangeScan(source, ordered, k(0x41), k(0x90), 100);
    assertThat(drain(scan)).containsExactlyElementsOf(expected(all, k(0x41), k(0x90)));
    assertThat(source.asked).as("[0x41, 0x90) lies in the second and third ranges")
        .containsExactly(0, 3);

    FakeSource limited = new FakeSource(all, table, ranges::partitionOf);
    RangeScan three = new RangeScan(limited, ordered, k(0x41), null, 3);
    List<KvEntry> got = List.of(three.next(), three.next(), three.next());
    assertThat(got).containsExactlyElementsOf(expected(all, k(0x41), null).subList(0, 3));
    assertThat(three.hasMore()).isTrue();
    assertThat(limited.asked).as("three keys of the second range: one page of one partition")
        .containsExactly(0);
    assertThat(three.partitionsTouched()).isEqualTo(1);

    FakeSource whole = new FakeSource(all, table, ranges::partitionOf);
    RangeScan everything = new RangeScan(whole, ordered, k(), null, 5);
    assertThat(drain(everything)).containsExactlyElementsOf(expected(all, k(), null));
    assertThat(whole.asked).as("partitions in key order, each to its end before the next")
        .startsWith(2, 2, 2, 2).containsSubsequence(2, 0, 3, 1);
    assertThat(new java.util.LinkedHashSet<>(whole.asked)).containsExactly(2, 0, 3, 1);
  }

  @Test
  void aRenumberingMidScanReturnsEveryKeyExactlyOnce() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    TreeMap<byte[], byte[]> all = randomKeys(random, 200);
    PartitionAssignment four = hashTable(1, 4);
    PartitionAssignment eight = hashTable(2, 8);
    for (int pages = 1; pages < 12; pages += 3) {
      FakeSource source = new FakeSource(all, four, four::partitionOf);
      int switchAfter = pages;
      AtomicInteger served = new AtomicInteger();
      source.afterPage = () -> {
        if (served.incrementAndGet() == switchAfter) {
          source.table = eight; // a split: the next page asked under the old numbering is stale
          source.placement = eight::partitionOf;
        }
      };
      RangeScan scan = new RangeScan(source, ScanCoverage.DEFAULT, k(), null, 3);
      assertThat(drain(scan)).as("seed %d, renumbered after %d pages", seed, pages)
          .containsExactlyElementsOf(expected(all, k(), null));
    }

    // the same for an ordered scheme whose second range splits in two, renumbering them all
    FakeRanges before = new FakeRanges(List.of(k(), k(0x40), k(0x80)), new int[] {0, 1, 2});
    FakeRanges after = new FakeRanges(List.of(k(), k(0x40), k(0x60), k(0x80)),
        new int[] {3, 1, 0, 2});
    AtomicInteger served = new AtomicInteger();
    FakeSource source = new FakeSource(all, hashTable(1, 3), before::partitionOf);
    ScanCoverage ordered =
        ScanCoverage.ordering(t -> t.partitionCount() == 3 ? before : after);
    source.afterPage = () -> {
      if (served.incrementAndGet() == 4) {
        source.table = hashTable(2, 4);
        source.placement = after::partitionOf;
      }
    };
    assertThat(drain(new RangeScan(source, ordered, k(0x10), null, 4)))
        .as("seed %d", seed).containsExactlyElementsOf(expected(all, k(0x10), null));
  }

  @Test
  void aCoverageThatSkipsKeysIsRefused() {
    PartitionAssignment table = hashTable(1, 2);
    ScanCoverage gap = ScanCoverage.ordering(t -> (from, to) -> List.of(
        new KeyRange(0, from, k(0x10)), new KeyRange(1, k(0x20), to)));
    FakeSource source = new FakeSource(new TreeMap<>(Arrays::compareUnsigned), table, x -> 0);
    RangeScan scan = new RangeScan(source, gap, k(), null, 10);
    assertThatThrownBy(scan::hasNext).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not adjacent ranges");
  }

  @Test
  void aPageOutOfOrderOrOutOfRangeFailsTheScan() {
    PartitionAssignment table = hashTable(1, 1);
    RangeScan.PageSource liar = new RangeScan.PageSource() {
      @Override
      public PartitionAssignment table() {
        return table;
      }

      @Override
      public RangeScan.Fetched fetch(PartitionAssignment planned, int partition, byte[] from,
          byte[] to, int max, AtomicInteger retries) {
        return new RangeScan.Fetched(new ScanPage(List.of(new KvEntry(k(5), k()),
            new KvEntry(k(3), k())), false), NodeId.of("n1"));
      }
    };
    assertThatThrownBy(() -> new RangeScan(liar, ScanCoverage.DEFAULT, k(), null, 10).hasNext())
        .isInstanceOf(KvException.class).hasMessageContaining("answered key 0x03 out of order");
    assertThatThrownBy(() -> new RangeScan(liar, ScanCoverage.DEFAULT, k(), k(4), 10).hasNext())
        .isInstanceOf(KvException.class).hasMessageContaining("outside [0x, 0x04)");
  }

  @Test
  void badArgumentsAreNamed() {
    FakeSource source = new FakeSource(new TreeMap<>(Arrays::compareUnsigned), hashTable(1, 1),
        x -> 0);
    assertThatThrownBy(() -> new RangeScan(source, ScanCoverage.DEFAULT, null, null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("from must not be null (an empty key is the first key)");
    assertThatThrownBy(() -> new RangeScan(source, ScanCoverage.DEFAULT, k(1), null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("page size must be >= 1: 0");
    assertThatThrownBy(() -> new RangeScan(source, ScanCoverage.DEFAULT, k(0x80), k(0x7f), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("from must not be after to in unsigned byte order: from=0x80 to=0x7f");
    RangeScan empty = new RangeScan(source, ScanCoverage.DEFAULT, k(3), k(3), 1);
    assertThat(empty.hasNext()).isFalse();
    assertThatThrownBy(empty::next).isInstanceOf(java.util.NoSuchElementException.class);
    assertThat(source.asked).isEmpty();
  }
}
