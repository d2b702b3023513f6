package io.partkit.spi;

import static java.util.Objects.requireNonNull;

/**
 * One unit of data movement: a partition (a token range, for a ring) leaves its current owner
 * for a new one.
 *
 * @param partition the partition in the target table's numbering
 * @param source the owner that accepts its writes now
 * @param target the owner that will accept them once the target table is committed
 * @param targetEpoch the epoch of the table that makes {@code target} the owner; writes carrying
 *     an older epoch are rejected by the target afterwards, and the source stops accepting writes
 *     before the table is committed (fencing)
 */
public record Migration(int partition, NodeId source, NodeId target, long targetEpoch) {

  /**
   * @throws IllegalArgumentException if source and target are the same node or values are negative
   */
  public Migration {
    requireNonNull(source, "source");
    requireNonNull(target, "target");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0: " + partition);
    }
    if (targetEpoch < 0) {
      throw new IllegalArgumentException("targetEpoch must be >= 0: " + targetEpoch);
    }
    if (source.equals(target)) {
      throw new IllegalArgumentException(
          "partition " + partition + " cannot migrate from " + source + " to itself");
    }
  }
}
