package io.partkit.kvstore.client;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import java.util.List;
import java.util.function.Function;

/**
 * The one thing a range scan needs to know of a partition scheme: which partitions of a table
 * may hold keys of {@code [from, to)}, and whether they hold them in key order.
 *
 * <ul>
 *   <li>{@link Scatter}: a hash scheme ({@code HashSlots}, {@code TokenRanges}) puts neighbouring
 *       keys anywhere, so every partition may hold keys of any range: the scan asks each one
 *       and merges their sorted pages.
 *   <li>{@link InOrder}: a scheme whose partitions are contiguous key ranges names only the
 *       partitions that cover the range, ascending: the scan visits them one after the other
 *       and stops once it has its limit, touching no other partition.
 * </ul>
 */
@FunctionalInterface
interface ScanCoverage {

  /**
   * The partitions of {@code table} that may hold keys of {@code [from, to)}.
   *
   * @param from the first key of the range (inclusive), not null
   * @param to the end of the range (exclusive), or null for no upper bound; not before from
   */
  Coverage cover(PartitionAssignment table, byte[] from, byte[] to);

  /** What the client uses unless told otherwise: {@link #orderedView} of the table's scheme. */
  ScanCoverage DEFAULT = ordering(table -> orderedView(table.scheme()));

  /**
   * The key-order view of a scheme: {@link KeyRanges}' ranges, or null when the partitions are
   * not key ranges (HashSlots, TokenRanges: every partition may hold any key of a range).
   */
  static OrderedKeyPartitions orderedView(PartitionScheme scheme) {
    requireNonNull(scheme, "scheme");
    return scheme instanceof KeyRanges ranges ? (from, to) -> covering(ranges, from, to) : null;
  }

  /**
   * The ranges of {@code ranges} that hold keys of {@code [from, to)}, cut to it: from the
   * partition of {@code from} to that of the last key below {@code to}.
   */
  static List<KeyRange> covering(KeyRanges ranges, byte[] from, byte[] to) {
    List<KeyRange> out = new java.util.ArrayList<>();
    int p = ranges.partitionOfKey(from);
    byte[] start = from;
    while (true) {
      byte[] upper = ranges.upperBound(p);
      if (upper == null || (to != null && java.util.Arrays.compareUnsigned(upper, to) >= 0)) {
        out.add(new KeyRange(p, start, to));
        return out;
      }
      out.add(new KeyRange(p, start, upper));
      start = upper;
      p++;
    }
  }

  /**
   * A coverage that asks {@code view} for a table's key-order view: {@link InOrder} where it
   * gives one, {@link Scatter} over every partition where it gives null.
   */
  static ScanCoverage ordering(Function<PartitionAssignment, OrderedKeyPartitions> view) {
    requireNonNull(view, "view");
    return (table, from, to) -> {
      OrderedKeyPartitions ordered = view.apply(table);
      if (ordered == null) {
        return Scatter.every(table);
      }
      return new InOrder(ordered.covering(from, to));
    };
  }

  /** Which partitions a scan asks, and how it combines their pages. */
  sealed interface Coverage permits Scatter, InOrder {}

  /**
   * Partitions any of which may hold any key of the range: each is asked and their pages
   * merged.
   *
   * @param partitions each partition once, in any order
   */
  record Scatter(List<Integer> partitions) implements Coverage {

    /** Canonical constructor. */
    public Scatter {
      partitions = List.copyOf(partitions);
    }

    /** Every partition of {@code table}. */
    static Scatter every(PartitionAssignment table) {
      return new Scatter(java.util.stream.IntStream.range(0, table.partitionCount()).boxed()
          .toList());
    }
  }

  /**
   * The partitions covering the range, in ascending key order, each with its part of the range.
   *
   * @param ranges ascending, disjoint and adjacent (each starts where the previous one ends),
   *     the first starting at the range's start, the last ending at its end
   */
  record InOrder(List<KeyRange> ranges) implements Coverage {

    /** Canonical constructor. */
    public InOrder {
      ranges = List.copyOf(ranges);
    }
  }

  /**
   * A partition's part of a scanned range: its keys in {@code [start, end)}.
   *
   * @param partition the partition
   * @param start the first key (inclusive)
   * @param end the end (exclusive), or null for no upper bound
   */
  record KeyRange(int partition, byte[] start, byte[] end) {

    /** Canonical constructor. */
    public KeyRange {
      requireNonNull(start, "start");
    }
  }

  /**
   * A partition scheme whose partitions are contiguous ranges of keys in unsigned byte order:
   * the small interface a key-range scheme implements (or is adapted to) for ordered scans.
   */
  @FunctionalInterface
  interface OrderedKeyPartitions {

    /**
     * The partitions holding keys of {@code [from, to)} ({@code to} null: no upper bound), in
     * ascending key order, each with its range cut to {@code [from, to)}: adjacent, the first
     * starting at {@code from}, the last ending at {@code to}. Never empty for a non-empty
     * range.
     */
    List<KeyRange> covering(byte[] from, byte[] to);
  }
}
