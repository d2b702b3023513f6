package io.partkit.replica.node.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.ItemsSketch;

/**
 * The node's most requested keys, in bounded memory: Apache DataSketches' frequent-items sketch
 * (Misra-Gries with a purge that keeps the error bound), one per time window, so that a key that
 * was hot an hour ago is no longer reported. What is reported covers the current window and the
 * one before it, so a report just after a rotation still sees a full window of traffic.
 *
 * <p>Memory: two sketches of at most {@link #MAX_MAP_SIZE} entries (plus one merged copy while
 * a report is built), each holding a reference to a key of at most {@link #MAX_KEY_BYTES}
 * bytes: about 200 KiB at most, however many keys the node serves. A key longer than that is
 * counted by its first {@link #MAX_KEY_BYTES} bytes, so long keys sharing that prefix count as
 * one (reported with {@link HotKey#truncated()}).
 *
 * <p>Error: an estimate is never below the true count and exceeds it by at most {@code
 * maximumError()}, about 3.5 / {@link #MAX_MAP_SIZE} (1.4%) of the requests in the window (the
 * sketch's documented bound); every key above that share is found.
 *
 * <p>Thread-safe: the sketch is not, so every update takes this object's monitor. The critical
 * section is one hash-map update (a purge now and then, amortised over many updates), far
 * shorter than the partition lock and the log's group commit every request already waits for.
 */
public final class HotKeys {

  /** Entries per sketch: a power of two, as the sketch requires. */
  static final int MAX_MAP_SIZE = 256;
  static final int MAX_KEY_BYTES = 256;
  /** At most this many keys in a report: the hottest ones. */
  public static final int MAX_REPORTED = 16;

  private final long windowNanos;
  private ItemsSketch<SketchedKey> current = new ItemsSketch<>(MAX_MAP_SIZE);
  private ItemsSketch<SketchedKey> previous = new ItemsSketch<>(MAX_MAP_SIZE);
  private long windowStart;

  /**
   * @param windowNanos how long one window lasts
   * @param now the current {@link System#nanoTime()}: the first window starts there
   */
  public HotKeys(long windowNanos, long now) {
    if (windowNanos <= 0) {
      throw new IllegalArgumentException("hot-key window must be positive: " + windowNanos
          + " ns");
    }
    this.windowNanos = windowNanos;
    this.windowStart = now;
  }

  /** Counts one request for {@code key} of {@code partition} at time {@code now} (nanoTime). */
  public synchronized void offer(int partition, byte[] key, long now) {
    if (now - windowStart >= windowNanos) {
      // Two windows or more without a request: the previous one is stale as well.
      previous = now - windowStart >= 2 * windowNanos ? new ItemsSketch<>(MAX_MAP_SIZE) : current;
      current = new ItemsSketch<>(MAX_MAP_SIZE);
      windowStart = now;
    }
    current.update(new SketchedKey(partition, key));
  }

  /** The hottest keys of the current and the previous window, the hottest first. */
  public Report report() {
    ItemsSketch<SketchedKey> merged = new ItemsSketch<>(MAX_MAP_SIZE);
    synchronized (this) {
      merged.merge(previous);
      merged.merge(current);
    }
    // NO_FALSE_POSITIVES: only keys whose lower bound exceeds the sketch's error, i.e. keys
    // that certainly were requested more often than the error bound.
    ItemsSketch.Row<SketchedKey>[] rows = merged.getFrequentItems(ErrorType.NO_FALSE_POSITIVES);
    List<HotKey> hot = new ArrayList<>();
    for (ItemsSketch.Row<SketchedKey> row : rows) {
      if (hot.size() == MAX_REPORTED) {
        break;
      }
      SketchedKey k = row.getItem();
      hot.add(new HotKey(k.partition, k.key.clone(), k.truncated, row.getEstimate(),
          row.getLowerBound(), row.getUpperBound()));
    }
    return new Report(merged.getStreamLength(), merged.getMaximumError(), List.copyOf(hot));
  }

  /**
   * A report.
   *
   * @param requests the requests counted in the windows reported
   * @param maximumError how far any estimate may exceed its key's true count
   * @param hottest the hottest keys, the hottest first
   */
  public record Report(long requests, long maximumError, List<HotKey> hottest) {}

  /** A key as the sketch counts it: its partition and its (possibly cut) bytes. */
  private static final class SketchedKey {
    final int partition;
    final byte[] key;
    final boolean truncated;
    private final int hash;

    SketchedKey(int partition, byte[] key) {
      this.partition = partition;
      this.truncated = key.length > MAX_KEY_BYTES;
      // The request's own array, not a copy: the node never changes a key's bytes (the data
      // map holds the same array). Only a long key is cut, so the sketch's memory stays bounded.
      this.key = truncated ? Arrays.copyOf(key, MAX_KEY_BYTES) : key;
      this.hash = 31 * partition + Arrays.hashCode(this.key);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SketchedKey other && other.partition == partition
          && other.hash == hash && other.truncated == truncated && Arrays.equals(other.key, key);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
