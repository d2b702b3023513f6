package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.List;

/**
 * One unit of data movement: a partition (a token range, for a ring) leaves its current replicas
 * for new ones. Usually the primary moves ({@link #source()} to {@link #target()}); with
 * replication a migration may also change only the backups (a failed backup replaced, the
 * replication factor restored), and then source and target are the same node.
 *
 * @param partition the partition in the target table's numbering
 * @param sourceReplicas the replicas that hold the partition now, primary first (the committed
 *     table's row)
 * @param targetReplicas the replicas once the target table is committed, primary first
 * @param targetEpoch the epoch of the table that makes {@code targetReplicas} the replicas;
 *     writes carrying an older epoch are rejected by the new primary afterwards, and the source
 *     stops accepting writes before the table is committed (fencing)
 */
public record Migration(int partition, List<NodeId> sourceReplicas, List<NodeId> targetReplicas,
    long targetEpoch) {

  /**
   * @throws IllegalArgumentException if a list is empty or names a node twice, nothing changes,
   *     or values are negative
   */
  public Migration {
    sourceReplicas = List.copyOf(requireNonNull(sourceReplicas, "sourceReplicas"));
    targetReplicas = List.copyOf(requireNonNull(targetReplicas, "targetReplicas"));
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0: " + partition);
    }
    if (targetEpoch < 0) {
      throw new IllegalArgumentException("targetEpoch must be >= 0: " + targetEpoch);
    }
    requireDistinct(partition, "source", sourceReplicas);
    requireDistinct(partition, "target", targetReplicas);
    if (sourceReplicas.equals(targetReplicas)) {
      throw new IllegalArgumentException("partition " + partition + " cannot migrate from "
          + sourceReplicas + " to the same replicas");
    }
  }

  /**
   * A move of the primary alone (one replica, or a caller that tracks the primary only).
   *
   * @throws IllegalArgumentException if source and target are the same node or values are negative
   */
  public Migration(int partition, NodeId source, NodeId target, long targetEpoch) {
    this(partition, primaryMove(partition, source, target), List.of(target), targetEpoch);
  }

  private static List<NodeId> primaryMove(int partition, NodeId source, NodeId target) {
    requireNonNull(source, "source");
    requireNonNull(target, "target");
    if (source.equals(target)) {
      throw new IllegalArgumentException(
          "partition " + partition + " cannot migrate from " + source + " to itself");
    }
    return List.of(source);
  }

  /** The primary that accepts the partition's writes now. */
  public NodeId source() {
    return sourceReplicas.get(0);
  }

  /** The primary that will accept them once the target table is committed. */
  public NodeId target() {
    return targetReplicas.get(0);
  }

  /** Whether the primary changes (false: only the backups do). */
  public boolean movesPrimary() {
    return !source().equals(target());
  }

  private static void requireDistinct(int partition, String which, List<NodeId> replicas) {
    if (replicas.isEmpty()) {
      throw new IllegalArgumentException("partition " + partition + " needs at least one "
          + which + " replica");
    }
    if (new HashSet<>(replicas).size() != replicas.size()) {
      throw new IllegalArgumentException("partition " + partition + " names a node twice among"
          + " its " + which + " replicas: " + replicas);
    }
  }
}
