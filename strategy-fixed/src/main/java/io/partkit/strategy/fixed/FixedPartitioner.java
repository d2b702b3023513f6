package io.partkit.strategy.fixed;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.HashSlots;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code fixed} strategy: {@code partitions} hash slots over {@link KeyHash#MURMUR3_128} and
 * a partition table computed by {@link FixedTable}.
 *
 * <p>Persisted format: key -> partition is {@link HashSlots} over MURMUR3_128 (never changes with
 * membership); partition -> replicas is the table {@link FixedTable} computes from the view and the
 * previous table. A first table is dealt round-robin in node id order, so with equal weights
 * partition {@code p} goes to the node at position {@code p mod n}.
 */
final class FixedPartitioner implements Partitioner {

  static final String NAME = "fixed";
  static final int DEFAULT_PARTITIONS = 271;
  /** Beyond this a table no longer fits comfortably on every client; Ignite's limit is 65000. */
  static final int MAX_PARTITIONS = 1 << 20;
  static final int MAX_REPLICAS = 7;

  private final PartitionerConfig config;
  private final HashSlots scheme;
  private final int replicas;
  private final boolean zoneAware;

  private FixedPartitioner(PartitionerConfig config, int partitions, int replicas,
      boolean zoneAware) {
    this.config = config;
    this.scheme = new HashSlots(partitions, KeyHash.MURMUR3_128);
    this.replicas = replicas;
    this.zoneAware = zoneAware;
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  static FixedPartitioner create(PartitionerConfig config) {
    requireNonNull(config, "config");
    PartitionerConfig.Reader reader = config.reader("strategy '" + NAME + "'");
    int partitions = reader.intValue("partitions", DEFAULT_PARTITIONS, 1, MAX_PARTITIONS);
    int replicas = reader.intValue("replicas", 1, 1, MAX_REPLICAS);
    boolean zoneAware = reader.booleanValue("zone-aware", true);
    reader.validate();
    return new FixedPartitioner(config, partitions, replicas, zoneAware);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PartitionerConfig config() {
    return config;
  }

  @Override
  public int replicationFactor() {
    return replicas;
  }

  @Override
  public OptionalInt fixedPartitionCount() {
    return OptionalInt.of(scheme.count());
  }

  /**
   * {@inheritDoc}
   *
   * <p>A previous assignment is built on when it was computed by this strategy over the same
   * scheme (same partition count); its replication factor may differ.
   */
  @Override
  public PartitionAssignment assign(MembershipView view, Optional<PartitionAssignment> previous) {
    requireNonNull(view, "view");
    requireNonNull(previous, "previous");
    if (view.isEmpty()) {
      throw new IllegalArgumentException("membership view must not be empty: " + view);
    }
    PartitionAssignment base = previous
        .filter(a -> a.strategy().equals(NAME) && a.scheme().equals(scheme))
        .orElse(null);
    int partitions = scheme.count();
    int[][] prev = null;
    if (base != null) {
      prev = new int[partitions][];
      for (int p = 0; p < partitions; p++) {
        List<NodeId> list = base.replicas(p);
        int[] idx = new int[list.size()];
        for (int r = 0; r < idx.length; r++) {
          idx[r] = view.indexOf(list.get(r)); // negative when the node left
        }
        prev[p] = idx;
      }
    }
    int rf = Math.min(replicas, view.size());
    int[] table = new FixedTable(view, partitions, rf, zoneAware, prev).compute();
    List<List<NodeId>> lists = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      NodeId[] row = new NodeId[rf];
      for (int r = 0; r < rf; r++) {
        row[r] = view.member(table[p * rf + r]).id();
      }
      lists.add(List.of(row));
    }
    long epoch = previous.map(a -> a.epoch() + 1).orElse(1L);
    return PartitionAssignment.of(NAME, epoch, view.version(), scheme, lists);
  }

  @Override
  public String toString() {
    return "FixedPartitioner{partitions=" + scheme.count() + ", replicas=" + replicas
        + ", zone-aware=" + zoneAware + "}";
  }
}
