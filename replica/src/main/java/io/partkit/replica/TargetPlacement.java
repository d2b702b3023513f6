package io.partkit.replica;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link Placement} to targets decided elsewhere, a coordinator's table: partition {@code p}
 * belongs on the nodes its target names, primary first.
 *
 * <p>A placement must answer with nodes that may hold copies, so a target naming a node that
 * may not has that place taken by one that may: first the copies the partition has now (they
 * hold its data), then, for a node that is leaving, the eligible nodes in ascending order. The
 * place of a node that is only away (down, quarantined, or forgotten: {@link
 * Placement#place(SortedMap, List, Set, int)}) is taken by a copy the partition has, but by no
 * spare: the targets' owner replaces the node or waits for it, and a spare chosen here would get
 * a whole copy that its next targets move elsewhere again. Once the node may hold copies again,
 * the partition moves back to its target. A partition without a target keeps the copies it has,
 * filled up from the eligible nodes.
 *
 * <p>A target may name more nodes than {@code replicas}: a move decided elsewhere that is to
 * join its new copies while the old ones stay (the partition's row and the nodes it moves to,
 * primary unchanged), before a later target hands over and drops the old ones. Every node of
 * such a target that may hold copies is placed; the control levels them all, and hands nothing
 * over, since the primary stays first.
 */
public final class TargetPlacement implements Placement {

  private final SortedMap<Integer, List<Integer>> targets;

  private TargetPlacement(SortedMap<Integer, List<Integer>> targets) {
    this.targets = targets;
  }

  /**
   * Places partitions on {@code targets}.
   *
   * @param targets each partition's target nodes, primary first
   * @throws IllegalArgumentException naming the partition whose target is empty, names a node
   *     twice or a negative node, or a negative partition
   */
  public static TargetPlacement of(Map<Integer, List<Integer>> targets) {
    TreeMap<Integer, List<Integer>> copy = new TreeMap<>();
    targets.forEach((p, nodes) -> {
      Objects.requireNonNull(nodes, "target of partition " + p);
      if (p < 0) {
        throw new IllegalArgumentException("a target for partition " + p
            + ": partition numbers are not negative");
      }
      Set<Integer> seen = new HashSet<>();
      for (int n : nodes) {
        if (n < 0 || !seen.add(n)) {
          throw new IllegalArgumentException("the target of partition " + p + " is " + nodes
              + ": expected distinct node numbers, none negative");
        }
      }
      if (nodes.isEmpty()) {
        throw new IllegalArgumentException("the target of partition " + p
            + " is empty: expected at least its primary");
      }
      copy.put(p, List.copyOf(nodes));
    });
    return new TargetPlacement(Collections.unmodifiableSortedMap(copy));
  }

  /** The targets, by partition. */
  public SortedMap<Integer, List<Integer>> targets() {
    return targets;
  }

  @Override
  public SortedMap<Integer, List<Integer>> place(SortedMap<Integer, List<Integer>> members,
      List<Integer> eligible, int replicas) {
    return place(members, eligible, new HashSet<>(targetNodes()), replicas);
  }

  private Set<Integer> targetNodes() {
    Set<Integer> named = new HashSet<>();
    targets.values().forEach(named::addAll);
    return named;
  }

  @Override
  public SortedMap<Integer, List<Integer>> place(SortedMap<Integer, List<Integer>> members,
      List<Integer> eligible, Set<Integer> leaving, int replicas) {
    Set<Integer> may = new HashSet<>(eligible);
    TreeMap<Integer, List<Integer>> placed = new TreeMap<>();
    members.forEach((p, now) -> {
      List<Integer> target = targets.getOrDefault(p, List.of());
      // a target longer than replicas keeps every copy it names (a move joining its new ones)
      int size = Math.min(Math.max(replicas, target.size()), eligible.size());
      List<Integer> chosen = new ArrayList<>(size);
      choose(chosen, target, may, size);
      choose(chosen, now, may, size);
      // an away target node keeps its place from spares, never below one copy
      int reserved = (int) target.stream().filter(n -> !may.contains(n) && !leaving.contains(n))
          .count();
      choose(chosen, eligible, may, Math.max(1, size - reserved));
      placed.put(p, chosen);
    });
    return placed;
  }

  /** Adds the nodes of {@code from} that may hold copies, in order, until {@code size}. */
  private static void choose(List<Integer> chosen, List<Integer> from, Set<Integer> may,
      int size) {
    for (int n : from) {
      if (chosen.size() < size && may.contains(n) && !chosen.contains(n)) {
        chosen.add(n);
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TargetPlacement other && targets.equals(other.targets);
  }

  @Override
  public int hashCode() {
    return targets.hashCode();
  }

  @Override
  public String toString() {
    return "TargetPlacement" + targets;
  }
}
