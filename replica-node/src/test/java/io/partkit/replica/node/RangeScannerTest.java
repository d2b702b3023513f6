package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Numbering;
import io.partkit.replica.node.ReplicaClient.BytesEntry;
import io.partkit.replica.node.ReplicaClient.Row;
import io.partkit.replica.node.ReplicaClient.Table;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lazy scan's engine against pages of in-memory partitions: the merge of hashed partitions
 * into key order, the in-order walk of key spans asking only those that meet the range, paging,
 * planning again when a split renumbers the table mid-scan, pages out of order or range refused,
 * bad arguments named.
 */
class RangeScannerTest {

  private static Bytes k(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return Bytes.of(b);
  }

  /** Hash halves of base {@code base} at modulus {@code modulus}, on nodes round robin. */
  private static Table hashed(int base, int modulus) {
    List<Row> rows = new ArrayList<>();
    for (int p = 0; p < modulus; p++) {
      rows.add(new Row(p, new Numbering.Hashed(base, modulus), p % 3, 1));
    }
    return new Table(true, rows, null);
  }

  /** Key spans cut at 0x40, 0x80 and 0xc0, numbered 0..3 in key order. */
  private static Table spans() {
    KeyRanges scheme = KeyRanges.of(List.of(new byte[] {0x40}, new byte[] {(byte) 0x80},
        new byte[] {(byte) 0xc0}));
    List<Row> rows = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      rows.add(new Row(p, Numbering.of(scheme, p), p % 3, 1));
    }
    return new Table(true, rows, null);
  }

  /** {@link #spans()} with partition 1 ([0x40, 0x80)) split at 0x60: [0x60, 0x80) is 5. */
  private static Table splitSpans() {
    Table t = spans();
    Numbering split = t.rows().get(1).numbering().split(1, k(0x60));
    List<Row> rows = new ArrayList<>(t.rows());
    rows.set(1, new Row(1, split, 1, 2));
    rows.add(new Row(5, split, 2, 2));
    return new Table(true, rows, null);
  }

  /** Pages of in-memory partitions by a table, which may change after some pages. */
  private static final class FakeSource implements RangeScanner.PageSource {
    final NavigableMap<Bytes, Bytes> all;
    volatile Table table;
    final List<Integer> asked = new ArrayList<>();
    Runnable afterPage = () -> { };

    FakeSource(NavigableMap<Bytes, Bytes> all, Table table) {
      this.all = all;
      this.table = table;
    }

    @Override
    public Table table() {
      return table;
    }

    @Override
    public RangeScanner.Fetched fetch(Table planned, int partition, Bytes from, Bytes to,
        int max, AtomicInteger retries) {
      if (!RangeScanner.sameNumbering(planned, table)) {
        throw new RangeScanner.StaleNumbering();
      }
      asked.add(partition);
      Row row = table.rows().stream().filter(r -> r.partition() == partition).findFirst()
          .orElseThrow();
      NavigableMap<Bytes, Bytes> range = to == null ? all.tailMap(from, true)
          : all.subMap(from, true, to, false);
      TreeMap<Bytes, Bytes> page = new TreeMap<>();
      boolean more = false;
      for (Map.Entry<Bytes, Bytes> e : range.entrySet()) {
        if (!row.numbering().holds(partition, e.getKey())) {
          continue;
        }
        if (page.size() == max) {
          more = true;
          break;
        }
        page.put(e.getKey(), e.getValue());
      }
      afterPage.run();
      return new RangeScanner.Fetched(new Page(1, Outcome.OK, page, more, null), row.primary());
    }
  }

  private static TreeMap<Bytes, Bytes> randomKeys(Random random, int n) {
    TreeMap<Bytes, Bytes> all = new TreeMap<>();
    while (all.size() < n) {
      byte[] key = new byte[random.nextInt(4)];
      random.nextBytes(key); // half of the bytes are >= 0x80: unsigned order matters
      all.put(Bytes.of(key), Bytes.ofLong(all.size()));
    }
    return all;
  }

  private static List<String> expected(NavigableMap<Bytes, Bytes> all, Bytes from, Bytes to) {
    NavigableMap<Bytes, Bytes> range = to == null ? all.tailMap(from, true)
        : all.subMap(from, true, to, false);
    List<String> out = new ArrayList<>();
    range.forEach((key, value) -> out.add(key + "=" + value));
    return out;
  }

  private static List<String> drain(ReplicaScanner scan) {
    List<String> out = new ArrayList<>();
    scan.forEachRemaining(e -> out.add(Bytes.of(e.key()) + "=" + Bytes.of(e.value())));
    return out;
  }

  private static byte[] arr(Bytes b) {
    return b == null ? null : b.toArray();
  }

  private static Bytes randomBound(Random random) {
    byte[] b = new byte[random.nextInt(3)];
    random.nextBytes(b);
    return Bytes.of(b);
  }

  @Test
  void hashedPartitionsAreMergedIntoKeyOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    TreeMap<Bytes, Bytes> all = randomKeys(random, 300);
    Table table = hashed(8, 8);
    for (int round = 0; round < 40; round++) {
      Bytes a = randomBound(random);
      Bytes b = random.nextInt(4) == 0 ? null : randomBound(random);
      Bytes from = b == null || a.compareTo(b) <= 0 ? a : b;
      Bytes to = b == null || a.compareTo(b) <= 0 ? b : a;
      int pageSize = new int[] {1, 2, 3, 7, 1000}[random.nextInt(5)];
      FakeSource source = new FakeSource(all, table);
      ReplicaScanner scan = new RangeScanner(source, arr(from), arr(to), pageSize);
      String what = "seed " + seed + ", round " + round + ": [" + from + ", " + to
          + ") in pages of " + pageSize;
      assertThat(drain(scan)).as(what).containsExactlyElementsOf(expected(all, from, to));
      if (from.equals(to)) {
        assertThat(source.asked).as(what + ": an empty range asks nothing").isEmpty();
      } else {
        assertThat(scan.partitionsTouched()).as(what + ": every partition is asked")
            .isEqualTo(8);
        assertThat(scan.nodesTouched()).as(what).isEqualTo(3);
        assertThat(scan.requests()).as(what).isEqualTo(source.asked.size())
            .isGreaterThanOrEqualTo(8);
      }
    }
  }

  @Test
  void aPageIsAskedForOnlyWhenItsKeysAreWanted() {
    TreeMap<Bytes, Bytes> all = randomKeys(new Random(5), 100);
    FakeSource source = new FakeSource(all, hashed(4, 4));
    ReplicaScanner scan = new RangeScanner(source, new byte[0], null, 10);
    assertThat(source.asked).as("nothing before the first key is wanted").isEmpty();
    scan.next();
    assertThat(source.asked).as("the first key: a page of every partition").hasSize(4);
    for (int i = 1; i < 10; i++) {
      scan.next();
    }
    assertThat(source.asked).as("ten keys came from the first pages").hasSize(4);
  }

  @Test
  void keySpansAreReadOneAfterAnotherOnlyWhereTheyMeetTheRange() {
    TreeMap<Bytes, Bytes> all = new TreeMap<>();
    for (int i = 0; i < 256; i += 4) {
      all.put(k(i), k(i, i));
    }
    FakeSource source = new FakeSource(all, spans());
    ReplicaScanner scan = new RangeScanner(source, arr(k(0x41)), arr(k(0x90)), 100);
    assertThat(drain(scan)).containsExactlyElementsOf(expected(all, k(0x41), k(0x90)));
    assertThat(source.asked).as("[0x41, 0x90) lies in the second and third spans")
        .containsExactly(1, 2);

    FakeSource limited = new FakeSource(all, spans());
    ReplicaScanner three = new RangeScanner(limited, arr(k(0x41)), null, 3);
    List<String> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      BytesEntry e = three.next();
      got.add(Bytes.of(e.key()) + "=" + Bytes.of(e.value()));
    }
    assertThat(got).containsExactlyElementsOf(expected(all, k(0x41), null).subList(0, 3));
    assertThat(limited.asked).as("three keys of the second span: one page of one partition")
        .containsExactly(1);
    assertThat(three.partitionsTouched()).isEqualTo(1);

    FakeSource whole = new FakeSource(all, spans());
    ReplicaScanner everything = new RangeScanner(whole, new byte[0], null, 5);
    assertThat(drain(everything)).containsExactlyElementsOf(expected(all, k(), null));
    assertThat(new LinkedHashSet<>(whole.asked)).as("each span to its end before the next")
        .containsExactly(0, 1, 2, 3);
    assertThat(whole.asked).startsWith(0, 0, 0, 0);
  }

  @Test
  void aSplitMidScanHasItPlanAgainAndReturnEveryKeyExactlyOnce() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    TreeMap<Bytes, Bytes> all = randomKeys(random, 200);
    for (int pages = 1; pages < 12; pages += 3) {
      FakeSource source = new FakeSource(all, hashed(4, 4));
      int switchAfter = pages;
      AtomicInteger served = new AtomicInteger();
      source.afterPage = () -> {
        if (served.incrementAndGet() == switchAfter) {
          source.table = hashed(4, 8); // every partition split: a page at modulus 4 is stale
        }
      };
      ReplicaScanner scan = new RangeScanner(source, new byte[0], null, 3);
      assertThat(drain(scan)).as("seed %d, split after %d pages", seed, pages)
          .containsExactlyElementsOf(expected(all, k(), null));
      assertThat(scan.partitionsTouched()).as("the new partitions were read").isEqualTo(8);
    }

    TreeMap<Bytes, Bytes> spaced = new TreeMap<>();
    for (int i = 0; i < 256; i += 2) {
      spaced.put(k(i), k(i));
    }
    FakeSource source = new FakeSource(spaced, spans());
    AtomicInteger served = new AtomicInteger();
    source.afterPage = () -> {
      if (served.incrementAndGet() == 4) {
        source.table = splitSpans();
      }
    };
    ReplicaScanner scan = new RangeScanner(source, arr(k(0x30)), null, 4);
    assertThat(drain(scan)).containsExactlyElementsOf(expected(spaced, k(0x30), null));
    assertThat(source.asked).as("the new span's partition was read").contains(5);
  }

  @Test
  void aPageOutOfRangeOrEmptyWithMoreFailsTheScan() {
    Table table = hashed(1, 1);
    RangeScanner.PageSource liar = new RangeScanner.PageSource() {
      @Override
      public Table table() {
        return table;
      }

      @Override
      public RangeScanner.Fetched fetch(Table planned, int partition, Bytes from, Bytes to,
          int max, AtomicInteger retries) {
        TreeMap<Bytes, Bytes> page = new TreeMap<>(Map.of(k(3), k(), k(5), k()));
        return new RangeScanner.Fetched(new Page(1, Outcome.OK, page, false, null), 1);
      }
    };
    assertThatThrownBy(() -> new RangeScanner(liar, arr(k(4)), null, 10).hasNext())
        .isInstanceOf(ScanFailedException.class)
        .hasMessageContaining("answered key 03 out of order or outside [04, end)");
    assertThatThrownBy(() -> new RangeScanner(liar, new byte[0], arr(k(4)), 10).hasNext())
        .isInstanceOf(ScanFailedException.class).hasMessageContaining("outside [, 04)");
    RangeScanner.PageSource empty = new RangeScanner.PageSource() {
      @Override
      public Table table() {
        return table;
      }

      @Override
      public RangeScanner.Fetched fetch(Table planned, int partition, Bytes from, Bytes to,
          int max, AtomicInteger retries) {
        return new RangeScanner.Fetched(new Page(1, Outcome.OK, new TreeMap<>(), true, null), 1);
      }
    };
    assertThatThrownBy(() -> new RangeScanner(empty, new byte[0], null, 10).hasNext())
        .isInstanceOf(ScanFailedException.class)
        .hasMessageContaining("an empty page that says more follows");
  }

  @Test
  void badArgumentsAreNamed() {
    FakeSource source = new FakeSource(new TreeMap<>(), hashed(1, 1));
    assertThatThrownBy(() -> new RangeScanner(source, null, null, 1))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("from");
    assertThatThrownBy(() -> new RangeScanner(source, new byte[] {1}, null, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a scanner's page size must be at least 1, got 0");
    assertThatThrownBy(() -> new RangeScanner(source, new byte[] {(byte) 0x80},
        new byte[] {0x7f}, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is after its to");
    ReplicaScanner nothing = new RangeScanner(source, new byte[] {3}, new byte[] {3}, 1);
    assertThat(nothing.hasNext()).isFalse();
    assertThatThrownBy(nothing::next).isInstanceOf(NoSuchElementException.class);
    assertThat(source.asked).isEmpty();
  }
}
