package io.partkit.replica.strategy;

import io.partkit.replica.Placement;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link Placement} by a partkit strategy whose scheme is hash slots over a fixed count
 * ({@code fixed}, {@code rendezvous}): partition {@code p} of the core is the strategy's slot
 * {@code p}. Only the strategy's partition-to-replicas half is used; keys go to partitions by the
 * core's own numbering ({@link io.partkit.replica.Partitioning}).
 *
 * <p>Splits number new partitions {@code p + modulus}, so the numbers in use need not be
 * contiguous: the strategy places {@code max + 1} slots, {@code max} the highest partition number
 * in use, and a partition gets its slot's replicas (the slots no partition has are placed and
 * ignored). A split therefore changes the slot count the strategy sees: a strategy that places
 * each slot by itself ({@code rendezvous}) keeps every other partition where it was; one that
 * balances the whole table ({@code fixed}) may move some.
 *
 * <p>Node {@code n} is the member {@code node-n}, its number zero-padded to ten digits so that the
 * strategies' id order is the core's number order. The members a partition has now are handed to
 * the strategy as the previous assignment, so a strategy that builds on one ({@code fixed}) moves
 * little; a partition with fewer members than it places is filled up with ids no node has (a
 * member that left, to the strategy), one with more is cut to its first.
 */
public final class StrategyPlacement implements Placement {

  private final PartitionerProvider provider;
  private final String name;

  private StrategyPlacement(PartitionerProvider provider, String name) {
    this.provider = provider;
    this.name = name;
  }

  /**
   * The placement of {@code provider}'s strategy at its default options.
   *
   * @throws IllegalArgumentException naming the strategy when its scheme is not hash slots over a
   *     fixed count (a token ring or key ranges number their partitions by membership or keys, not
   *     as the core does)
   */
  public static StrategyPlacement of(PartitionerProvider provider) {
    Objects.requireNonNull(provider, "provider");
    Partitioner probe = provider.create(PartitionerConfig.empty());
    Optional<PartitionScheme> scheme = probe.fixedScheme();
    if (scheme.isEmpty() || !(scheme.get() instanceof HashSlots)) {
      throw new IllegalArgumentException("strategy " + provider.name() + " cannot place the "
          + "replica core's partitions: its partitions are "
          + scheme.map(s -> s.getClass().getSimpleName()).orElse("cut by membership or keys")
          + ", the core's are hash slots 0..n-1; supported are strategies with a fixed hash-slot"
          + " scheme (fixed, rendezvous)");
    }
    return new StrategyPlacement(provider, provider.name());
  }

  /** The strategy's name. */
  public String name() {
    return name;
  }

  /** The member id node {@code node} is to the strategy. */
  static NodeId nodeId(int node) {
    if (node < 0) {
      throw new IllegalArgumentException("node numbers are not negative: " + node);
    }
    return NodeId.of(String.format("node-%010d", node));
  }

  @Override
  public SortedMap<Integer, List<Integer>> place(SortedMap<Integer, List<Integer>> members,
      List<Integer> eligible, int replicas) {
    int slots = members.lastKey() + 1;
    Partitioner strategy = provider.create(PartitionerConfig.of("partitions", slots));
    Map<NodeId, Integer> numbers = new HashMap<>();
    List<Member> view = new ArrayList<>();
    for (int n : eligible) {
      NodeId id = nodeId(n);
      numbers.put(id, n);
      view.add(Member.of(id.value()));
    }
    int rf = Math.min(replicas, eligible.size());
    PartitionAssignment placed = strategy.place(MembershipView.of(0, view),
        Optional.of(previous(strategy, members, slots, rf)), rf);
    TreeMap<Integer, List<Integer>> targets = new TreeMap<>();
    for (int p : members.keySet()) {
      targets.put(p, placed.replicas(p).stream().map(numbers::get).toList());
    }
    return targets;
  }

  /** The members each partition has now as the strategy's table of {@code rf} per slot. */
  private static PartitionAssignment previous(Partitioner strategy,
      SortedMap<Integer, List<Integer>> members, int slots, int rf) {
    List<List<NodeId>> rows = new ArrayList<>(slots);
    for (int p = 0; p < slots; p++) {
      List<NodeId> row = new ArrayList<>();
      for (int n : members.getOrDefault(p, List.of())) {
        if (row.size() < rf) {
          row.add(nodeId(n));
        }
      }
      for (int absent = 0; row.size() < rf; absent++) {
        row.add(NodeId.of("absent-" + absent)); // no node's id: a member that left
      }
      rows.add(row);
    }
    return PartitionAssignment.of(strategy.name(), 0, 0, strategy.fixedScheme().orElseThrow(),
        rows);
  }

  @Override
  public String toString() {
    return "StrategyPlacement{" + name + "}";
  }
}
