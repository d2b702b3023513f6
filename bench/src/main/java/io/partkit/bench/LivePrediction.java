package io.partkit.bench;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The share of copies a placement says must be created on a node that did not hold them, for each
 * step of a sequence of memberships: what {@code partkit bench --live} puts next to what a
 * running cluster moved. The same subjects and the same computation ({@code Measures.movement},
 * its {@code replicaMoved}) as the offline bench, so the live figure is compared with the
 * figure the report already shows.
 *
 * <pre>{@code
 * double[] shares = LivePrediction.of("partkit:fixed", 64, 2)
 *     .copiesMovedShares(List.of(List.of("n1", "n2", "n3"), List.of("n1", "n2", "n3", "n4")));
 * // shares[0] is 0 (the first placement), shares[1] the join's share
 * }</pre>
 */
public final class LivePrediction {

  /** Keys sampled where a placement's movement is not computed exactly. */
  private static final int SAMPLE_KEYS = 200_000;
  private static final long SAMPLE_SEED = 42;

  private final String placement;
  private final int partitions;
  private final int copies;

  private LivePrediction(String placement, int partitions, int copies) {
    this.placement = placement;
    this.partitions = partitions;
    this.copies = copies;
  }

  /**
   * @param placement {@code partkit:STRATEGY} (partkit's strategy with {@code partitions}, as
   *     the kv system's coordinator and the Ignite adapter configure it), {@code ignite-rendezvous}
   *     (Ignite's own affinity) or {@code hazelcast} (Hazelcast's own partition table)
   * @param partitions the system's partition count
   * @param copies copies of each partition, primary included
   * @throws IllegalArgumentException for an unknown placement or bad counts
   */
  public static LivePrediction of(String placement, int partitions, int copies) {
    requireNonNull(placement, "placement");
    if (partitions < 1 || copies < 1 || copies > 7) {
      throw new IllegalArgumentException("partitions must be >= 1 and copies in 1..7: "
          + partitions + ", " + copies);
    }
    if (!placement.startsWith("partkit:") && !placement.equals("ignite-rendezvous")
        && !placement.equals("hazelcast")) {
      throw new IllegalArgumentException("placement must be partkit:STRATEGY, ignite-rendezvous "
          + "or hazelcast: " + placement);
    }
    return new LivePrediction(placement, partitions, copies);
  }

  /**
   * For each membership after the first, the share of the new placement's copies that sit on a
   * node that did not hold them in the previous one; {@code [0]} is 0. Each placement is computed
   * from the previous one, as a running cluster's is.
   *
   * @param memberships node names, one list per step, the first the starting membership
   */
  public double[] copiesMovedShares(List<List<String>> memberships) {
    double[] shares = new double[memberships.size()];
    long[] sample = Keys.sample(SAMPLE_SEED, SAMPLE_KEYS);
    try (Subject subject = subject()) {
      Placement previous = null;
      for (int i = 0; i < memberships.size(); i++) {
        MembershipView view = view(memberships.get(i));
        Placement next = subject.place(view, copies, Optional.ofNullable(previous));
        if (previous != null) {
          shares[i] = Measures.movement(previous, next, sample).replicaMoved();
        }
        previous = next;
      }
    }
    return shares;
  }

  private Subject subject() {
    if (placement.equals("ignite-rendezvous")) {
      return new IgniteSubject(partitions);
    }
    if (placement.equals("hazelcast")) {
      return new HazelcastSubject(partitions);
    }
    String strategy = placement.substring("partkit:".length());
    PartitionerConfig config = strategy.equals("tokenring")
        ? PartitionerConfig.of("tokens", "allocator", "vnodes", 16)
        : PartitionerConfig.of("partitions", partitions);
    return new PartkitSubject(strategy.toLowerCase(Locale.ROOT), strategy, config,
        Partitioners.load());
  }

  private static MembershipView view(List<String> nodes) {
    List<Member> members = new ArrayList<>();
    for (String n : nodes) {
      members.add(Member.weighted(n, 1));
    }
    return MembershipView.of(0, members);
  }
}
