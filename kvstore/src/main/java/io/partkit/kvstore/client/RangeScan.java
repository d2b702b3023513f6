package io.partkit.kvstore.client;

import static java.util.Objects.requireNonNull;

import io.partkit.kvstore.KvEntry;
import io.partkit.kvstore.client.ScanCoverage.Coverage;
import io.partkit.kvstore.client.ScanCoverage.InOrder;
import io.partkit.kvstore.client.ScanCoverage.KeyRange;
import io.partkit.kvstore.client.ScanCoverage.Scatter;
import io.partkit.kvstore.wire.ScanPage;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A range scan across partitions: {@link KvScanner} over pages fetched from a {@link PageSource}
 * (the routing client with its retries, or a fake in tests), by the plan a {@link ScanCoverage}
 * makes.
 *
 * <p>Its cursor is a key: every key below it has been returned. A scan resumes from the cursor
 * whatever happens underneath: a partition's owner changes (the source retries at the new
 * owner, from the same key), or the table renumbers its partitions (a token-ring split): then
 * the page source says {@link StaleNumbering}, the scan drops what it buffered and plans again
 * from the cursor with the new table. So no key is returned twice and keys come out strictly
 * ascending, whatever moves during the scan.
 */
final class RangeScan implements KvScanner {

  /** Where pages come from. */
  interface PageSource {

    /** The current table, to plan with. */
    PartitionAssignment table();

    /**
     * One page of {@code partition}'s keys in {@code [from, to)}, at most {@code max}, from its
     * current owner, retrying refusals (each counted in {@code retries}).
     *
     * @throws StaleNumbering if the current table numbers partitions differently from
     *     {@code planned}: the partition means something else now
     * @throws KvException if no owner answered within the retry budget
     */
    Fetched fetch(PartitionAssignment planned, int partition, byte[] from, byte[] to, int max,
        AtomicInteger retries);
  }

  /** A page and the node that served it. */
  record Fetched(ScanPage page, NodeId node) {}

  /** The table's partition numbering changed since the scan planned: plan again. */
  static final class StaleNumbering extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleNumbering() {
      super("the table's partitions were renumbered during the scan", null, false, false);
    }
  }

  private static final Comparator<Stream> BY_HEAD =
      (a, b) -> Arrays.compareUnsigned(a.buffer.peek().key(), b.buffer.peek().key());

  private final PageSource source;
  private final ScanCoverage coverage;
  private final byte[] to;
  private final int pageSize;
  /** Every key below it has been returned, or does not exist. */
  private byte[] cursor;
  private KvEntry next;
  private boolean done;
  private Coverage plan;
  private PartitionAssignment planned;
  /** Scatter: partitions with buffered entries, by their smallest one. */
  private PriorityQueue<Stream> heads;
  /** Scatter: partitions whose buffer is empty and that hold more (or were not asked yet). */
  private List<Stream> pending;
  /** In order: the ranges left to visit, and the one being read. */
  private ArrayDeque<KeyRange> ranges;
  private Stream current;
  private final Set<Integer> partitionsTouched = ConcurrentHashMap.newKeySet();
  private final Set<NodeId> nodesTouched = ConcurrentHashMap.newKeySet();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();

  /** A scan of {@code [from, to)}, asking for pages of {@code pageSize}; arguments checked. */
  RangeScan(PageSource source, ScanCoverage coverage, byte[] from, byte[] to, int pageSize) {
    check(from, to, pageSize, "page size");
    this.source = requireNonNull(source, "source");
    this.coverage = requireNonNull(coverage, "coverage");
    this.cursor = from.clone();
    this.to = to == null ? null : to.clone();
    this.pageSize = pageSize;
  }

  // ---------------------------------------------------------------- keys and arguments

  /** The smallest key after {@code key} in unsigned byte order: {@code key} and a zero byte. */
  static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /**
   * Checks a scan's arguments.
   *
   * @throws NullPointerException if {@code from} is null
   * @throws IllegalArgumentException if {@code count} is not positive or {@code from} is after
   *     {@code to}
   */
  static void check(byte[] from, byte[] to, int count, String what) {
    String problem = ScanPage.problem(from, to, count, what);
    if (problem != null) {
      if (from == null) {
        throw new NullPointerException(problem);
      }
      throw new IllegalArgumentException(problem);
    }
  }

  private static String hex(byte[] key) {
    return "0x" + HexFormat.of().formatHex(key);
  }

  // ---------------------------------------------------------------- iteration

  @Override
  public boolean hasNext() {
    while (next == null && !done) {
      try {
        if (plan == null) {
          plan();
        } else {
          next = plan instanceof Scatter ? nextMerged() : nextInOrder();
          done = next == null;
        }
      } catch (StaleNumbering e) {
        plan = null; // what was buffered is dropped: it is asked again under the new numbering
      }
    }
    return next != null;
  }

  @Override
  public KvEntry next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the scan has returned every entry of its range");
    }
    KvEntry e = next;
    next = null;
    cursor = successor(e.key());
    return e;
  }

  /**
   * Whether the range holds keys not returned yet: known without a request when a partition
   * has buffered entries or said it holds more; otherwise asked ({@link #hasNext}).
   */
  boolean hasMore() {
    if (next != null) {
      return true;
    }
    // this store never deletes, so "more" from a node means a key that still exists
    if (plan instanceof Scatter && (!heads.isEmpty() || !pending.isEmpty())) {
      return true;
    }
    if (plan instanceof InOrder && current != null
        && (!current.buffer.isEmpty() || current.more)) {
      return true;
    }
    return hasNext();
  }

  private void plan() {
    heads = null;
    pending = null;
    ranges = null;
    current = null;
    if (to != null && Arrays.compareUnsigned(cursor, to) >= 0) {
      done = true; // an empty range: nothing to ask
      return;
    }
    planned = source.table();
    Coverage c = coverage.cover(planned, cursor, to);
    if (c instanceof Scatter s) {
      heads = new PriorityQueue<>(Math.max(1, s.partitions().size()), BY_HEAD);
      pending = new ArrayList<>();
      for (int p : s.partitions()) {
        pending.add(new Stream(p, cursor, to));
      }
    } else if (c instanceof InOrder o) {
      checkAdjacent(o.ranges());
      ranges = new ArrayDeque<>(o.ranges());
    }
    plan = c;
  }

  /** A coverage that skips or repeats keys would make the scan lose or repeat them: refuse. */
  private void checkAdjacent(List<KeyRange> rs) {
    byte[] expected = cursor;
    for (KeyRange r : rs) {
      if (expected == null || !Arrays.equals(r.start(), expected)) {
        throw new IllegalStateException("coverage of [" + hex(cursor) + ", "
            + (to == null ? "end" : hex(to)) + ") is not adjacent ranges from its start: " + rs);
      }
      expected = r.end();
    }
    if (rs.isEmpty() || !Arrays.equals(expected, to)) {
      throw new IllegalStateException("coverage of [" + hex(cursor) + ", "
          + (to == null ? "end" : hex(to)) + ") does not end at its end: " + rs);
    }
  }

  /** Scatter: the smallest buffered key of all partitions, after refilling the empty ones. */
  private KvEntry nextMerged() {
    while (!pending.isEmpty()) {
      // the next key may be in any partition that has more: each is refilled before choosing
      Stream s = pending.get(pending.size() - 1);
      s.fill();
      pending.remove(pending.size() - 1);
      if (!s.buffer.isEmpty()) {
        heads.add(s);
      }
    }
    Stream s = heads.poll();
    if (s == null) {
      return null;
    }
    KvEntry e = s.buffer.poll();
    if (!s.buffer.isEmpty()) {
      heads.add(s);
    } else if (s.more) {
      pending.add(s); // refilled only when the next key is wanted, not to return this one
    }
    return e;
  }

  /** In order: the partitions one after the other, each to the end of its part. */
  private KvEntry nextInOrder() {
    while (true) {
      if (current != null) {
        if (!current.buffer.isEmpty()) {
          return current.buffer.poll();
        }
        if (current.more) {
          current.fill();
          continue;
        }
        if (current.to == null) {
          return null;
        }
        cursor = current.to; // every key of this part was returned
        current = null;
      }
      KeyRange r = ranges.poll();
      if (r == null) {
        return null;
      }
      current = new Stream(r.partition(), r.start(), r.end());
    }
  }

  @Override
  public int partitionsTouched() {
    return partitionsTouched.size();
  }

  @Override
  public int nodesTouched() {
    return nodesTouched.size();
  }

  @Override
  public int requests() {
    return requests.get();
  }

  @Override
  public int retries() {
    return retries.get();
  }

  /** One partition's part of the range: where its next page starts, and what is buffered. */
  private final class Stream {
    final int partition;
    byte[] from;
    final byte[] to;
    final ArrayDeque<KvEntry> buffer = new ArrayDeque<>();
    boolean more = true;

    Stream(int partition, byte[] from, byte[] to) {
      this.partition = partition;
      this.from = from;
      this.to = to;
    }

    void fill() {
      Fetched f = source.fetch(planned, partition, from, to, pageSize, retries);
      requests.incrementAndGet();
      partitionsTouched.add(partition);
      nodesTouched.add(f.node());
      List<KvEntry> entries = f.page().entries();
      byte[] low = from;
      for (KvEntry e : entries) {
        // the merge relies on each page being ascending and in range: a page that is not
        // would make the scan repeat or misorder keys, so it fails instead
        if (Arrays.compareUnsigned(e.key(), low) < 0
            || to != null && Arrays.compareUnsigned(e.key(), to) >= 0) {
          throw new KvException("scan of partition " + partition + " at " + f.node()
              + " answered key " + hex(e.key()) + " out of order or outside [" + hex(from)
              + ", " + (to == null ? "end" : hex(to)) + ")", false, null);
        }
        low = successor(e.key());
      }
      if (entries.isEmpty() && f.page().more()) {
        throw new KvException("scan of partition " + partition + " at " + f.node()
            + " answered an empty page that says more follows", false, null);
      }
      buffer.addAll(entries);
      more = f.page().more();
      from = low;
    }
  }
}
