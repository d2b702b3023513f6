package io.partkit.replica.node;

import io.partkit.replica.node.load.PartitionSizes;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.strategy.range.RangeSplits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The {@code range} strategy whose placement starts from its previous table re-cut by measured
 * sizes ({@code ReplicaCoordinatorMain --split-size N}): before it places a table, the keys each
 * range holds and its median key are read ({@link ReplicaMigrationExecutor#sizes}), and {@link
 * RangeSplits} cuts every range above N keys at its median, both halves on the range's replicas;
 * the strategy's placement may then move a half. The coordinator commits the cut first, as
 * metadata, then the moves. No merges (merge size 0: an empty range is not folded away).
 *
 * <p>Sizes that cannot be read (a primary down, a change under way) re-cut nothing: the table
 * is placed as it was, and the reason is logged. So a rebalance never fails for want of a
 * measure, and a range is split only by figures its primaries reported at the control's epoch.
 */
final class MeasuredSplits extends WrappedStrategy {

  /** Reads the sizes of a table's partitions, as {@link ReplicaMigrationExecutor#sizes}. */
  interface Sizes {
    PartitionSizes of(PartitionAssignment table) throws IOException;
  }

  private final RangeSplits splits;
  private final Sizes sizes;
  private final Consumer<String> planned;
  private final Consumer<String> log;

  /**
   * @param range the {@code range} strategy
   * @param splitSize a range above this many keys is cut at its median
   * @param sizes where the sizes come from
   * @param planned gets a line {@code REPLICA SPLITS PLANNED <n> AT <hex key,...>} for each
   *     re-cut with splits (the new split keys, in key order)
   * @param log gets why a table was not re-cut
   * @throws IllegalArgumentException when {@code splitSize} is not positive
   */
  MeasuredSplits(Partitioner range, long splitSize, Sizes sizes, Consumer<String> planned,
      Consumer<String> log) {
    super(range);
    if (splitSize < 1) {
      throw new IllegalArgumentException("--split-size is a count of keys, at least 1, not "
          + splitSize);
    }
    this.splits = RangeSplits.of(splitSize, Double.POSITIVE_INFINITY, 0);
    this.sizes = Objects.requireNonNull(sizes, "sizes");
    this.planned = Objects.requireNonNull(planned, "planned");
    this.log = Objects.requireNonNull(log, "log");
  }

  @Override
  public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
      int replicas) {
    Optional<PartitionAssignment> base = previous;
    if (previous.isPresent() && previous.get().scheme() instanceof KeyRanges) {
      base = Optional.of(recut(previous.get()));
    }
    return strategy.place(view, base, replicas);
  }

  /** {@code table} with its ranges over the split size cut at their medians, when measured. */
  private PartitionAssignment recut(PartitionAssignment table) {
    PartitionSizes measured;
    try {
      measured = sizes.of(table);
    } catch (IOException | IllegalStateException e) {
      log.accept("coordinator: no split by size this time, the sizes of the table at epoch "
          + table.epoch() + " were not read: " + e.getMessage());
      return table;
    }
    RangeSplits.Plan plan = splits.plan(measured.table(), measured.keys(),
        measured.splitKeys());
    if (!plan.unsplittable().isEmpty()) {
      log.accept("coordinator: ranges over the split size that cannot split at their median"
          + " (one key, or an unknown median): " + plan.unsplittable());
    }
    if (plan.splits() == 0) {
      return table;
    }
    List<byte[]> before = ((KeyRanges) table.scheme()).splits();
    List<String> added = new ArrayList<>();
    for (byte[] k : ((KeyRanges) plan.table().scheme()).splits()) {
      if (before.stream().noneMatch(b -> java.util.Arrays.equals(b, k))) {
        added.add(HexFormat.of().formatHex(k));
      }
    }
    planned.accept("REPLICA SPLITS PLANNED " + plan.splits() + " AT " + String.join(",", added));
    return plan.table();
  }
}
