package io.partkit.replica.node.load;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One node's load view, as its load answer carries it: what it measured of every partition it
 * serves (a replica node's partitions it is primary of, with the median key of each key range,
 * {@link PartitionLoad#splitKey()}), and its hottest keys. A client ({@link
 * io.partkit.replica.node.ReplicaClient#load()}) reads it from every node of the table and turns
 * it into {@link io.partkit.spi.PartitionLoads} ({@link ClusterLoad}).
 *
 * <p>Plain data: the replica node's codec encodes it in one place, so a node and its readers
 * cannot drift apart.
 *
 * @param node the node that answered
 * @param partitions the partitions it serves, by partition number
 * @param hotKeyRequests the data requests its hot-key sketch counted (the current window and
 *     the one before it)
 * @param hotKeyMaximumError how far any hot key's estimate may exceed its true count
 * @param hottestKeys up to 16 of the keys its sketch is sure were requested more often than
 *     the error bound, the hottest first
 */
public record NodeLoad(NodeId node, List<PartitionLoad> partitions, long hotKeyRequests,
    long hotKeyMaximumError, List<HotKey> hottestKeys) {

  /** A key is "hot" by default when it is certainly at least this share of a node's requests. */
  public static final double DEFAULT_HOT_SHARE = 0.05;

  /** Canonical constructor. */
  public NodeLoad {
    requireNonNull(node, "node");
    partitions = List.copyOf(partitions);
    hottestKeys = List.copyOf(hottestKeys);
  }

  /** What the node measured of {@code partition}, if it serves it. */
  public Optional<PartitionLoad> partition(int partition) {
    for (PartitionLoad p : partitions) {
      if (p.partition() == partition) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The keys that certainly took at least {@code minShare} of the node's requests in its hot-key
   * windows (by the sketch's lower bound, so never a false positive), the hottest first.
   *
   * @throws IllegalArgumentException if {@code minShare} is not in (0, 1]
   */
  public List<HotKey> hotKeys(double minShare) {
    if (!(minShare > 0 && minShare <= 1)) {
      throw new IllegalArgumentException("hot-key share must be in (0, 1]: " + minShare);
    }
    List<HotKey> hot = new ArrayList<>();
    for (HotKey k : hottestKeys) {
      if (k.lowerBound() >= minShare * hotKeyRequests) {
        hot.add(k);
      }
    }
    return hot;
  }

  /** {@link #hotKeys(double)} at {@link #DEFAULT_HOT_SHARE}. */
  public List<HotKey> hotKeys() {
    return hotKeys(DEFAULT_HOT_SHARE);
  }
}
