package io.partkit.strategy.range;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Plans splits and merges of a key-range table from measured sizes and loads: pure, so every
 * caller (a coordinator, a store, a benchmark) gets the same table from the same figures.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li><b>Split.</b> A range whose size is above {@code splitSize} or whose load is above
 *       {@code splitLoad} is cut in two at the split key the store reported for it (typically
 *       its median key), when that key lies strictly inside the range. Both halves keep the
 *       range's replicas, so the split moves no data: it is a scheme change that
 *       {@code RebalancePlanner.splitTable} commits as metadata, after which the strategy's next
 *       {@code place} may move one half as an ordinary migration. A range with no usable split
 *       key (one hot key, or a store that reported none) is left whole and listed in
 *       {@link Plan#unsplittable()}.
 *   <li><b>Merge.</b> Neighbouring ranges with the same replica list (same nodes, same order),
 *       none of them over a split threshold, merge while the merged size stays at or below
 *       {@code mergeSize} and the merged load at or below half of {@code splitLoad}. Requiring
 *       the same replicas keeps a merge metadata-only too; the margins below the split
 *       thresholds keep a merged range from splitting again on the next plan (hysteresis).
 * </ul>
 * One plan splits a range at most once (one split key per range): a range far above the
 * threshold splits again on the next plan, with the sizes of its halves measured.
 *
 * <p>Sizes and loads are {@link PartitionLoads}, each in the unit its source states (bytes or
 * keys for sizes, operations per second for loads); they must describe the table (same epoch,
 * same partition count), since partition numbers change with every split.
 */
public final class RangeSplits {

  private final double splitSize;
  private final double splitLoad;
  private final double mergeSize;

  private RangeSplits(double splitSize, double splitLoad, double mergeSize) {
    this.splitSize = splitSize;
    this.splitLoad = splitLoad;
    this.mergeSize = mergeSize;
  }

  /**
   * Thresholds; pass {@link Double#POSITIVE_INFINITY} to disable splitting by size or by load,
   * and 0 to disable merging.
   *
   * @throws IllegalArgumentException if a threshold is NaN or not positive, or {@code mergeSize}
   *     is negative or not below {@code splitSize} (a merged range would split again at once)
   */
  public static RangeSplits of(double splitSize, double splitLoad, double mergeSize) {
    if (!(splitSize > 0)) {
      throw new IllegalArgumentException("range splits: splitSize must be > 0: " + splitSize);
    }
    if (!(splitLoad > 0)) {
      throw new IllegalArgumentException("range splits: splitLoad must be > 0: " + splitLoad);
    }
    if (!(mergeSize >= 0 && mergeSize < splitSize)) {
      throw new IllegalArgumentException("range splits: mergeSize must be in [0, splitSize="
          + splitSize + "): " + mergeSize);
    }
    return new RangeSplits(splitSize, splitLoad, mergeSize);
  }

  /**
   * The outcome of one plan.
   *
   * @param table the re-cut table, unstamped (epoch 0: the caller stamps it, as with
   *     {@code Partitioner.place}); the same partitions when nothing changed
   * @param splits ranges cut in two
   * @param merges ranges merged away (a run of k ranges merged into one counts k - 1)
   * @param unsplittable ranges over a threshold that had no split key strictly inside them, in
   *     the input numbering
   */
  public record Plan(PartitionAssignment table, int splits, int merges,
      List<Integer> unsplittable) {
    public Plan {
      requireNonNull(table, "table");
      unsplittable = List.copyOf(unsplittable);
    }

    /** Whether the plan changes the table's ranges. */
    public boolean changed() {
      return splits > 0 || merges > 0;
    }
  }

  /** As {@link #plan(PartitionAssignment, PartitionLoads, PartitionLoads, List)}, sizes only. */
  public Plan plan(PartitionAssignment table, PartitionLoads sizes, List<byte[]> splitKeys) {
    return plan(table, sizes, PartitionLoads.of(sizes.epoch(), new double[sizes.partitionCount()]),
        splitKeys);
  }

  /**
   * Plans one round of splits and merges.
   *
   * @param table a table over {@link KeyRanges}
   * @param sizes each range's size, measured under {@code table}
   * @param loads each range's load, measured under {@code table}
   * @param splitKeys for each range, the key to cut it at if it must split (null: none known)
   * @throws IllegalArgumentException if the table is not over key ranges, or the figures do not
   *     describe it (the message names the epochs and counts)
   */
  public Plan plan(PartitionAssignment table, PartitionLoads sizes, PartitionLoads loads,
      List<byte[]> splitKeys) {
    requireNonNull(table, "table");
    requireNonNull(sizes, "sizes");
    requireNonNull(loads, "loads");
    requireNonNull(splitKeys, "splitKeys");
    if (!(table.scheme() instanceof KeyRanges ranges)) {
      throw new IllegalArgumentException("range splits: the table of epoch " + table.epoch()
          + " is over " + table.scheme() + "; expected key ranges");
    }
    int count = table.partitionCount();
    check("sizes", sizes, table);
    check("loads", loads, table);
    if (splitKeys.size() != count) {
      throw new IllegalArgumentException("range splits: " + splitKeys.size()
          + " split keys for a table of " + count + " partitions; expected one per partition"
          + " (null where none is known)");
    }
    List<byte[]> lowers = new ArrayList<>(); // the first key of each new range but the first
    List<List<NodeId>> rows = new ArrayList<>();
    List<Integer> unsplittable = new ArrayList<>();
    int splits = 0;
    int merges = 0;
    int p = 0;
    while (p < count) {
      if (p > 0) {
        lowers.add(ranges.lowerBound(p));
      }
      rows.add(table.replicas(p));
      if (over(sizes.load(p), loads.load(p))) {
        byte[] at = splitKeys.get(p);
        if (inside(ranges, p, at)) {
          lowers.add(at.clone());
          rows.add(table.replicas(p));
          splits++;
        } else {
          unsplittable.add(p);
        }
        p++;
        continue;
      }
      double size = sizes.load(p);
      double load = loads.load(p);
      int q = p + 1;
      // mergeSize 0 turns merging off, empty neighbours included (0 + 0 <= 0 would merge them)
      while (mergeSize > 0 && q < count && table.replicas(q).equals(table.replicas(p))
          && !over(sizes.load(q), loads.load(q))
          && size + sizes.load(q) <= mergeSize && load + loads.load(q) <= splitLoad / 2) {
        size += sizes.load(q);
        load += loads.load(q);
        q++;
      }
      merges += q - p - 1;
      p = q;
    }
    PartitionAssignment next = splits + merges == 0 ? table.withEpoch(0)
        : PartitionAssignment.of(table.strategy(), 0, table.membershipVersion(),
            KeyRanges.of(lowers), rows);
    return new Plan(next, splits, merges, unsplittable);
  }

  private boolean over(double size, double load) {
    return size > splitSize || load > splitLoad;
  }

  /** Whether {@code at} cuts partition {@code p} into two non-empty halves. */
  private static boolean inside(KeyRanges ranges, int p, byte[] at) {
    if (at == null || at.length == 0) {
      return false;
    }
    byte[] upper = ranges.upperBound(p);
    return Arrays.compareUnsigned(ranges.lowerBound(p), at) < 0
        && (upper == null || Arrays.compareUnsigned(at, upper) < 0);
  }

  private static void check(String what, PartitionLoads figures, PartitionAssignment table) {
    if (!figures.describes(table)) {
      throw new IllegalArgumentException("range splits: " + what + " were measured under epoch "
          + figures.epoch() + " with " + figures.partitionCount() + " partitions; the table is"
          + " epoch " + table.epoch() + " with " + table.partitionCount() + " partitions");
    }
  }

  @Override
  public String toString() {
    return "RangeSplits{splitSize=" + splitSize + ", splitLoad=" + splitLoad + ", mergeSize="
        + mergeSize + "}";
  }
}
