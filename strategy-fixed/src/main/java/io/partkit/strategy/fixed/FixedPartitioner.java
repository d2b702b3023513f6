package io.partkit.strategy.fixed;

import io.partkit.spi.HashSlots;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.hash.KeyHash;
import io.partkit.strategy.support.AbstractPartitioner;
import io.partkit.strategy.support.CommonOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code fixed} strategy: {@code partitions} hash slots over {@link KeyHash#MURMUR3_128} and
 * a partition table computed by {@link FixedTable}.
 *
 * <p>Persisted format: key -> partition is {@link HashSlots} over MURMUR3_128 (never changes with
 * membership); partition -> replicas is the table {@link FixedTable} computes from the view and the
 * previous table. A first table is dealt round-robin in node id order, so with equal weights
 * partition {@code p} goes to the node at position {@code p mod n}.
 */
final class FixedPartitioner extends AbstractPartitioner {

  static final String NAME = "fixed";
  static final int DEFAULT_PARTITIONS = 271;

  private final HashSlots scheme;
  private final boolean zoneAware;

  private FixedPartitioner(PartitionerConfig config, HashSlots scheme, int replicas,
      boolean zoneAware) {
    super(NAME, config, replicas, scheme);
    this.scheme = scheme;
    this.zoneAware = zoneAware;
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  static FixedPartitioner create(PartitionerConfig config) {
    PartitionerConfig.Reader reader = CommonOptions.reader(NAME, config);
    int partitions = CommonOptions.partitions(reader, DEFAULT_PARTITIONS);
    int replicas = CommonOptions.replicas(reader);
    boolean zoneAware = CommonOptions.zoneAware(reader);
    reader.validate();
    return new FixedPartitioner(config, new HashSlots(partitions, KeyHash.MURMUR3_128), replicas,
        zoneAware);
  }

  /**
   * The table {@link FixedTable} computes, building on {@code previous} when it is this
   * strategy's over the same scheme (the default {@link #buildsOn}); its replication factor may
   * differ.
   */
  @Override
  protected PartitionAssignment compute(MembershipView view,
      Optional<PartitionAssignment> previous, int rf) {
    int partitions = scheme.count();
    int[][] prev = null;
    if (previous.isPresent()) {
      PartitionAssignment base = previous.get();
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
    int[] table = new FixedTable(view, partitions, rf, zoneAware, prev).compute();
    List<List<NodeId>> lists = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      NodeId[] row = new NodeId[rf];
      for (int r = 0; r < rf; r++) {
        row[r] = view.member(table[p * rf + r]).id();
      }
      lists.add(List.of(row));
    }
    return assignment(view, scheme, lists);
  }

  @Override
  public String toString() {
    return "FixedPartitioner{partitions=" + scheme.count() + ", replicas=" + replicationFactor()
        + ", zone-aware=" + zoneAware + "}";
  }
}
