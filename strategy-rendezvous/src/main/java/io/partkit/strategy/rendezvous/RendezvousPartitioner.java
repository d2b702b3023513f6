package io.partkit.strategy.rendezvous;

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
 * The {@code rendezvous} strategy over {@code partitions} hash slots: partition {@code p}'s
 * replicas are the top-k members of {@link RendezvousHashing} for item {@code p} (the partition
 * number as a {@code long}).
 *
 * <h2>Bounded loads</h2>
 * With {@code load-bound = c}, partitions are placed in increasing number; each takes, rank by
 * rank, its best-ranked eligible member whose count is below its cap, where a member of weight
 * {@code w} has cap {@code max(ceil(A*w/W), floor(c*A*w/W))} with {@code A} the partitions of
 * that role ({@code P} primaries; {@code (rf-1)*P} backups, capped separately). The {@code floor}
 * (rather than {@code ceil}, as in Mirrokni, Thorup and Zadimoghaddam, "Consistent Hashing with
 * Bounded Loads", SODA 2018) is what makes {@code max/avg <= c} hold whenever
 * {@code c * avg >= ceil(avg)}; the {@code ceil(avg)} floor keeps the total capacity at least the
 * demand. The placement is a pure function of the view (the previous assignment is not used), so
 * every node computes it alone; the price is that a join or leave changes every cap, and some
 * partitions then move between members that stayed (measured in the README).
 *
 * <p>Zone spreading takes precedence over the load bound: when the only members on an unused
 * zone are full, one of them still takes the replica.
 */
final class RendezvousPartitioner extends AbstractPartitioner {

  static final String NAME = "rendezvous";
  static final int DEFAULT_PARTITIONS = 1024;

  private final HashSlots scheme;
  private final long seed;
  private final boolean zoneAware;
  /** {@code NaN} for plain rendezvous. */
  private final double loadBound;

  private RendezvousPartitioner(PartitionerConfig config, HashSlots scheme, int replicas,
      long seed, boolean zoneAware, double loadBound) {
    super(NAME, config, replicas, scheme);
    this.scheme = scheme;
    this.seed = seed;
    this.zoneAware = zoneAware;
    this.loadBound = loadBound;
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  static RendezvousPartitioner create(PartitionerConfig config) {
    PartitionerConfig.Reader reader = CommonOptions.reader(NAME, config);
    int partitions = CommonOptions.partitions(reader, DEFAULT_PARTITIONS);
    int replicas = CommonOptions.replicas(reader);
    long seed = CommonOptions.seed(reader);
    boolean zoneAware = CommonOptions.zoneAware(reader);
    double loadBound = reader.doubleValue("load-bound", Double.NaN, 1.0, 100.0);
    reader.validate();
    return new RendezvousPartitioner(config, new HashSlots(partitions, KeyHash.MURMUR3_128),
        replicas, seed, zoneAware, loadBound);
  }

  /** The placement depends on the view only; {@code previous} is not read. */
  @Override
  protected PartitionAssignment compute(MembershipView view,
      Optional<PartitionAssignment> previous, int rf) {
    HrwNodes hrw = new HrwNodes(view, seed, zoneAware);
    int partitions = scheme.count();
    int[] primaryLoad = null;
    int[] primaryCap = null;
    int[] backupLoad = null;
    int[] backupCap = null;
    if (!Double.isNaN(loadBound)) {
      primaryLoad = new int[view.size()];
      primaryCap = caps(view, partitions, loadBound);
      backupLoad = new int[view.size()];
      backupCap = caps(view, (long) partitions * (rf - 1), loadBound);
    }
    List<List<NodeId>> lists = new ArrayList<>(partitions);
    NodeId[] row = new NodeId[rf];
    for (int p = 0; p < partitions; p++) {
      hrw.select(p, rf, row, primaryLoad, primaryCap, backupLoad, backupCap);
      lists.add(List.of(row));
    }
    return assignment(view, scheme, lists);
  }

  /** Per member: {@code max(ceil(A*w/W), floor(c*A*w/W))}, see the class comment. */
  static int[] caps(MembershipView view, long amount, double c) {
    long total = view.totalWeight();
    int[] caps = new int[view.size()];
    for (int i = 0; i < caps.length; i++) {
      long share = amount * view.member(i).weight();
      long ceil = (share + total - 1) / total;
      long bounded = (long) Math.floor(c * share / total);
      caps[i] = (int) Math.max(ceil, bounded);
    }
    return caps;
  }

  @Override
  public String toString() {
    return "RendezvousPartitioner{partitions=" + scheme.count()
        + ", replicas=" + replicationFactor() + ", seed=" + seed + ", zone-aware=" + zoneAware
        + (Double.isNaN(loadBound) ? "" : ", load-bound=" + loadBound) + "}";
  }
}
