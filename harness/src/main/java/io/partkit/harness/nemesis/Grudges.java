package io.partkit.harness.nemesis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Jepsen's partition shapes as grudges (node -> the nodes whose packets it drops), from a list of
 * nodes already shuffled by the caller's seeded random.
 */
public final class Grudges {

  private Grudges() {}

  /**
   * The grudge of {@code shape} over {@code nodes}.
   *
   * <ul>
   *   <li>{@code halves}: two sides, the first half of the list against the rest;
   *   <li>{@code isolate}: the first node against all others;
   *   <li>{@code majorities-ring}: every node sees a majority (itself and its nearest neighbours on
   *       a ring) and no two nodes see the same majority: each drops the rest;
   *   <li>{@code bridge}: two halves that both still reach one node in the middle.
   * </ul>
   *
   * @throws IllegalArgumentException for another shape
   */
  public static Map<String, Set<String>> of(String shape, List<String> nodes) {
    int n = nodes.size();
    Map<String, Set<String>> grudge = new TreeMap<>();
    switch (shape) {
      case "halves" -> cut(grudge, nodes.subList(0, n / 2), nodes.subList(n / 2, n));
      case "isolate" -> cut(grudge, nodes.subList(0, 1), nodes.subList(1, n));
      case "bridge" -> {
        int mid = n / 2; // nodes[mid] talks to both sides
        cut(grudge, nodes.subList(0, mid), nodes.subList(mid + 1, n));
      }
      case "majorities-ring" -> {
        int reach = n / 2; // neighbours on each side so that 1 + 2*reach/2 >= a majority
        for (int i = 0; i < n; i++) {
          Set<String> sees = new HashSet<>();
          for (int d = -reach / 2 - reach % 2; d <= reach / 2; d++) {
            sees.add(nodes.get(Math.floorMod(i + d, n)));
          }
          Set<String> drops = new TreeSet<>(nodes);
          drops.removeAll(sees);
          if (!drops.isEmpty()) {
            grudge.put(nodes.get(i), drops);
          }
        }
      }
      default -> throw new IllegalArgumentException("unknown partition shape: " + shape);
    }
    return grudge;
  }

  private static void cut(Map<String, Set<String>> grudge, List<String> a, List<String> b) {
    for (String x : a) {
      grudge.computeIfAbsent(x, k -> new TreeSet<>()).addAll(b);
    }
    for (String y : b) {
      grudge.computeIfAbsent(y, k -> new TreeSet<>()).addAll(new ArrayList<>(a));
    }
  }
}
