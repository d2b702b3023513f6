package io.partkit.replica.node.load;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The keys each partition of a coordinator's table holds and where a size-driven split would cut
 * it, as the nodes measured them: what {@code RangeSplits.plan(table, sizes, splitKeys)} takes,
 * for a coordinator over the replica cores ({@link
 * io.partkit.replica.node.ReplicaMigrationExecutor#sizes}), as {@link ClusterLoad} gives it over
 * a table numbered as the nodes number it.
 *
 * <pre>{@code
 * PartitionSizes sizes = executor.sizes(committed);
 * RangeSplits.Plan plan = RangeSplits.of(maxKeys, Double.POSITIVE_INFINITY, 0)
 *     .plan(sizes.table(), sizes.keys(), sizes.splitKeys());
 * }</pre>
 *
 * @param table the table the sizes are of (its epoch ties them to it)
 * @param keys the keys each partition holds, in partition order, at the table's epoch
 * @param splitKeys per partition, in partition order, the key to cut it at, or null where none
 *     is known (an empty partition, a partition of hash slots or a token ring)
 */
public record PartitionSizes(PartitionAssignment table, PartitionLoads keys,
    List<byte[]> splitKeys) {

  /**
   * Canonical constructor.
   *
   * @throws IllegalArgumentException when the counts or keys are not one per partition of the
   *     table, or the counts are of another epoch
   */
  public PartitionSizes {
    requireNonNull(table, "table");
    requireNonNull(keys, "keys");
    requireNonNull(splitKeys, "splitKeys");
    if (keys.partitionCount() != table.partitionCount()
        || splitKeys.size() != table.partitionCount() || keys.epoch() != table.epoch()) {
      throw new IllegalArgumentException("sizes of " + keys.partitionCount()
          + " partitions at epoch " + keys.epoch() + " with " + splitKeys.size()
          + " split keys: expected one of each for the " + table.partitionCount()
          + " partitions of the table at epoch " + table.epoch());
    }
    List<byte[]> copy = new ArrayList<>(splitKeys.size());
    splitKeys.forEach(k -> copy.add(k == null ? null : k.clone()));
    splitKeys = Collections.unmodifiableList(copy);
  }

  /** The split keys, copied: null where none is known. */
  @Override
  public List<byte[]> splitKeys() {
    List<byte[]> copy = new ArrayList<>(splitKeys.size());
    splitKeys.forEach(k -> copy.add(k == null ? null : k.clone()));
    return Collections.unmodifiableList(copy);
  }
}
