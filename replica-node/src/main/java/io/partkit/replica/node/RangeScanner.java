package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Numbering;
import io.partkit.replica.node.ReplicaClient.BytesEntry;
import io.partkit.replica.node.ReplicaClient.Row;
import io.partkit.replica.node.ReplicaClient.Table;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ReplicaScanner} over pages a {@link PageSource} fetches (the client, with its retries;
 * a fake in tests), planned by the table: over hashed keys (hash halves, a token ring), where any
 * partition may hold a key of any range, it merges a stream of pages of every partition; over key
 * spans it reads the partitions whose span meets the range one after another, in key order
 * ({@link ReplicaClient#inKeyOrder}).
 *
 * <p>Its cursor is a key: every key below it has been returned. A page is asked again from the
 * same key when refused (the source retries at the partition's primary in a fresh table); when
 * the table numbers its partitions otherwise than the one the scan planned by (a split), the
 * source says {@link StaleNumbering} and the scan drops what it buffered and plans again from
 * the cursor. So keys come out strictly ascending and none twice, whatever moves meanwhile.
 */
final class RangeScanner implements ReplicaScanner {

  /** Where pages come from. */
  interface PageSource {

    /**
     * The table to plan by.
     *
     * @throws ScanFailedException when none is had within the timeout
     */
    Table table();

    /**
     * One page of {@code partition}'s keys in {@code [from, to)}, at most {@code max}, from its
     * primary, asking again while refused or unanswered (each counted in {@code retries}).
     *
     * @throws StaleNumbering when the table numbers the partitions otherwise than {@code
     *     planned}: the partition holds other keys now
     * @throws ScanFailedException when no page came within the timeout
     */
    Fetched fetch(Table planned, int partition, Bytes from, Bytes to, int max,
        AtomicInteger retries);
  }

  /** A page and the node that served it. */
  record Fetched(Page page, int node) {}

  /** The table's numbering changed since the scan planned: plan again. */
  static final class StaleNumbering extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StaleNumbering() {
      super("the table's partitions were numbered otherwise during the scan", null, false,
          false);
    }
  }

  /**
   * Whether {@code a} and {@code b} number their partitions alike: the same partitions, each
   * with the same numbering (their primaries and epochs may differ).
   */
  static boolean sameNumbering(Table a, Table b) {
    if (a.rows().size() != b.rows().size()) {
      return false;
    }
    for (int i = 0; i < a.rows().size(); i++) {
      Row x = a.rows().get(i);
      Row y = b.rows().get(i);
      if (x.partition() != y.partition() || !x.numbering().equals(y.numbering())) {
        return false;
      }
    }
    return true;
  }

  private static final Comparator<Stream> BY_HEAD =
      (a, b) -> a.buffer.peek().getKey().compareTo(b.buffer.peek().getKey());

  private final PageSource source;
  private final Bytes to;
  private final int pageSize;
  /** Every key below it has been returned, or does not exist. */
  private Bytes cursor;
  private Map.Entry<Bytes, Bytes> next;
  private boolean done;
  /** The table of the plan; null: to plan (again). */
  private Table planned;
  private boolean scatter;
  /** Scatter: partitions with buffered entries, by their smallest. */
  private PriorityQueue<Stream> heads;
  /** Scatter: partitions whose buffer is empty that hold more (or were not asked yet). */
  private List<Stream> pending;
  /** In key order: the partitions left to read, and the one being read. */
  private ArrayDeque<Row> ranges;
  private Stream current;
  private final Set<Integer> partitionsTouched = ConcurrentHashMap.newKeySet();
  private final Set<Integer> nodesTouched = ConcurrentHashMap.newKeySet();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();

  /**
   * A scan of {@code [from, to)} ({@code to} null: no end) in pages of {@code pageSize}.
   *
   * @throws NullPointerException when {@code from} is null
   * @throws IllegalArgumentException when {@code pageSize} is below 1 or {@code from} is after
   *     {@code to}
   */
  RangeScanner(PageSource source, byte[] from, byte[] to, int pageSize) {
    java.util.Objects.requireNonNull(from, "from (an empty key is the first)");
    if (pageSize < 1) {
      throw new IllegalArgumentException("a scanner's page size must be at least 1, got "
          + pageSize);
    }
    Bytes f = Bytes.of(from);
    Bytes t = to == null ? null : Bytes.of(to);
    if (t != null && f.compareTo(t) > 0) {
      throw new IllegalArgumentException("a scan's from " + f + " is after its to " + t
          + " (keys compare as unsigned bytes)");
    }
    this.source = source;
    this.cursor = f;
    this.to = t;
    this.pageSize = pageSize;
  }

  @Override
  public boolean hasNext() {
    while (next == null && !done) {
      try {
        if (planned == null) {
          plan();
        } else {
          next = scatter ? nextMerged() : nextInOrder();
          done = next == null;
        }
      } catch (StaleNumbering e) {
        planned = null; // what was buffered is dropped: asked again under the new numbering
      }
    }
    return next != null;
  }

  @Override
  public BytesEntry next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the scan has returned every entry of its range");
    }
    Map.Entry<Bytes, Bytes> e = next;
    next = null;
    cursor = ReplicaClient.successor(e.getKey());
    return new BytesEntry(e.getKey().toArray(), e.getValue().toArray());
  }

  private void plan() {
    heads = null;
    pending = null;
    ranges = null;
    current = null;
    if (to != null && cursor.compareTo(to) >= 0) {
      done = true; // an empty range: nothing to ask
      return;
    }
    Table t = source.table();
    Optional<List<Row>> inOrder = ReplicaClient.inKeyOrder(t, cursor, to);
    scatter = inOrder.isEmpty();
    if (scatter) {
      heads = new PriorityQueue<>(Math.max(1, t.rows().size()), BY_HEAD);
      pending = new ArrayList<>();
      for (Row r : t.rows()) {
        pending.add(new Stream(r.partition(), cursor, to));
      }
    } else {
      ranges = new ArrayDeque<>(inOrder.get());
    }
    planned = t;
  }

  /** Scatter: the smallest buffered key of all partitions, after refilling the empty ones. */
  private Map.Entry<Bytes, Bytes> nextMerged() {
    while (!pending.isEmpty()) {
      // the next key may be in any partition that has more: each is refilled before choosing
      Stream s = pending.get(pending.size() - 1);
      s.fill();
      pending.remove(pending.size() - 1);
      if (!s.buffer.isEmpty()) {
        heads.add(s); // an empty page says no more (one that says more fails the scan)
      }
    }
    Stream s = heads.poll();
    if (s == null) {
      return null;
    }
    Map.Entry<Bytes, Bytes> e = s.buffer.poll();
    if (!s.buffer.isEmpty()) {
      heads.add(s);
    } else if (s.more) {
      pending.add(s); // refilled only when the next key is wanted, not to return this one
    }
    return e;
  }

  /** In key order: the partitions one after the other, each to the end of its span. */
  private Map.Entry<Bytes, Bytes> nextInOrder() {
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
          return null; // the last span, to no end
        }
        cursor = current.to; // every key of this span was returned
        current = null;
      }
      Row r = ranges.poll();
      if (r == null) {
        return null;
      }
      Bytes[] span = ((Numbering.KeySpans) r.numbering()).span(r.partition());
      Bytes from = span[0].compareTo(cursor) > 0 ? span[0] : cursor;
      Bytes end = span[1] == null ? to : to == null || span[1].compareTo(to) < 0 ? span[1] : to;
      current = new Stream(r.partition(), from, end);
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
    Bytes from;
    final Bytes to;
    final ArrayDeque<Map.Entry<Bytes, Bytes>> buffer = new ArrayDeque<>();
    boolean more = true;

    Stream(int partition, Bytes from, Bytes to) {
      this.partition = partition;
      this.from = from;
      this.to = to;
    }

    void fill() {
      Fetched f = source.fetch(planned, partition, from, to, pageSize, retries);
      requests.incrementAndGet();
      partitionsTouched.add(partition);
      nodesTouched.add(f.node());
      Bytes low = from;
      for (Map.Entry<Bytes, Bytes> e : f.page().entries().entrySet()) {
        // the merge relies on each page being ascending and in range: a page that is not would
        // have the scan repeat or misorder keys, so it fails instead
        if (e.getKey().compareTo(low) < 0 || to != null && e.getKey().compareTo(to) >= 0) {
          throw new ScanFailedException("partition " + partition + " on node " + f.node()
              + " answered key " + e.getKey() + " out of order or outside [" + from + ", "
              + (to == null ? "end" : to) + ")");
        }
        buffer.add(Map.entry(e.getKey(), e.getValue()));
        low = ReplicaClient.successor(e.getKey());
      }
      if (f.page().entries().isEmpty() && f.page().more()) {
        throw new ScanFailedException("partition " + partition + " on node " + f.node()
            + " answered an empty page that says more follows");
      }
      more = f.page().more();
      from = low;
    }
  }
}
