package io.partkit.coordinator;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.stats.LoadStatistics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The load-aware step of a plan: moves primaries from the most loaded nodes to the least loaded,
 * on top of the strategy's placement, so that measured load (not only partition counts) is
 * balanced. Pure: the same tables, loads and view give the same result.
 *
 * <h2>Load model</h2>
 * A partition's load counts on its primary (see {@link LoadStatistics}). A node's <i>normalized
 * load</i> is its load over its weight; the goal is to lower the largest normalized load, the one
 * the hottest node pays, towards the mean (total load over total weight).
 *
 * <h2>Algorithm</h2>
 * A greedy, goal-driven optimisation in the style of Cruise Control's goal optimizer and Helix
 * WAGED's rebalancer: hard goals are constraints every action must keep, the soft goal (load) is
 * improved one action at a time, and each action is the best available for the hottest node that
 * has one. Per iteration, the nodes above the threshold ({@code threshold * mean}, Cruise
 * Control's upper balance limit) are taken in decreasing normalized load; for the first node
 * {@code h} that has an improving action, the action with the largest gain per moved partition is
 * applied (ties: the lower resulting load, then the lighter moved load, then the lowest node and
 * partition numbers, so the result is deterministic). The actions:
 * <ul>
 *   <li><b>Move</b> a primary of {@code h} to a colder node {@code c}: {@code c} takes {@code h}'s
 *       place in the replica list; if {@code c} was a backup of the partition the two exchange
 *       ranks (a role swap: no data is copied to a new node), otherwise {@code h} leaves the
 *       list.
 *   <li><b>Swap</b> a primary of {@code h} with a lighter primary of {@code c} (both lists
 *       exchange {@code h} and {@code c}): counts stay as they were. Tried only when no move
 *       qualifies, because it changes two partitions.
 * </ul>
 * An action <i>improves</i> when both nodes end strictly below {@code h}'s normalized load. It is
 * <i>allowed</i> when it keeps the hard goals: replicas distinct (by construction), each replica
 * list's zone/rack spread rank by rank (the rank of every replica is on a new zone, a new rack of
 * a used zone, or neither, exactly as before: what the strategies' zone rules produce is kept),
 * and per rank each node's count within the bounds of the current <i>level</i>. The loop stops
 * when the normalized max/mean is within the threshold, when {@code maxMoves} partitions differ
 * from the strategy's placement (a swap is tried only with room for two), or when no node has an
 * allowed improving action.
 *
 * <h2>Levels: what the strategy keeps</h2>
 * A strategy places from (view, previous table), and the coordinator plans again on every
 * membership change and rebalance: a load move survives only if the strategy, given the adjusted
 * table as the previous one, keeps it. Rather than knowing each strategy, the step asks it: the
 * adjusted table is accepted only if {@code place(view, adjusted)} returns it unchanged (a
 * fixpoint). Levels are tried from the most freedom to the least, and the first one whose result
 * the strategy keeps wins:
 * <ol>
 *   <li>any counts (a strategy that keeps whatever it is given);
 *   <li>per-rank counts within floor/ceil of each node's weighted share {@code P * w / W} (a
 *       node the strategy placed outside that band keeps its count): the {@code fixed} strategy
 *       keeps such tables, so load moves persist across later plans (and most survive a
 *       membership change: the strategy moves only what the join or leave requires);
 *   <li>the same per-rank counts as the strategy placed (swaps only);
 * </ol>
 * If the strategy keeps none ({@code rendezvous} recomputes every placement from hashes; a token
 * ring with backups walks the ring for them, while with one replica it keeps a moved range's
 * token with its new primary), no load move is made and the plan says why: a move the next plan
 * would undo only doubles the migrations.
 *
 * <h2>Guarantee</h2>
 * Every action lowers the pair it touches below the hottest load of the pair, so the vector of
 * normalized loads sorted in decreasing order falls lexicographically: the loop terminates, and
 * the largest normalized load after is never above the strategy's placement's. When it stops
 * because no action improves, the level is "any counts" and zone spreads do not bind (no labels),
 * then for the hottest node {@code h} and every node {@code c}, each partition {@code p} on
 * {@code h} has {@code load(p) >= w(c) * (N(h) - N(c))}; hence
 * {@code max N <= mean + maxLoad / minWeight}, i.e. max/mean is at most
 * {@code 1 + maxLoad / (mean * minWeight)}: the hottest node exceeds the mean by at most one
 * partition (the bound LPT-style greedy balancing gives). With binding count bands or zones the
 * bound is what those constraints allow, not proven here; the figures in the plan say what was
 * reached. Cost: {@code O(maxMoves * P * N)} per level for moves, {@code O(P^2 / N)} more per
 * iteration when swaps are tried, plus one {@code place} per level.
 */
final class LoadBalancer {

  /** How far per-rank counts may move: see the class comment. */
  enum Level {
    ANY_COUNTS("any counts"),
    COUNT_BANDS("counts within floor/ceil of each node's weighted share"),
    SAME_COUNTS("the strategy's counts (swaps only)");

    final String description;

    Level(String description) {
      this.description = description;
    }
  }

  /** The adjusted table (epoch 0, for the planner to stamp) and its figures. */
  record Result(PartitionAssignment table, LoadPlan plan) {}

  private final Partitioner partitioner;
  private final int maxMoves;
  private final double threshold;

  /**
   * @param maxMoves most partitions one plan changes for load
   * @param threshold max/mean (normalized) at or below which load counts as balanced, >= 1
   */
  LoadBalancer(Partitioner partitioner, int maxMoves, double threshold) {
    this.partitioner = partitioner;
    this.maxMoves = maxMoves;
    this.threshold = threshold;
  }

  /**
   * Balances {@code raw} (the strategy's placement for {@code view} over {@code current}) by the
   * loads measured under {@code current}.
   *
   * @param replicas the replica count {@code raw} was placed with, for the fixpoint check
   */
  Result balance(PartitionAssignment current, PartitionAssignment raw, PartitionLoads loads,
      MembershipView view, int replicas) {
    if (!loads.describes(current)) {
      return ignored(raw, "loads ignored: measured under epoch " + loads.epoch() + " with "
          + loads.partitionCount() + " partitions, but the table in force is epoch "
          + current.epoch() + " with " + current.partitionCount() + " partitions; count-only"
          + " plan");
    }
    if (!raw.scheme().equals(current.scheme())) {
      return ignored(raw, "loads ignored: this plan changes the partition scheme from "
          + current.scheme() + " to " + raw.scheme() + ", so the measured partitions are not"
          + " the planned ones; count-only plan");
    }
    LoadStatistics before = LoadStatistics.of(current, loads, view);
    LoadStatistics countOnly = LoadStatistics.of(raw, loads, view);
    if (countOnly.maxOverMean() <= threshold) {
      String why = loads.total() == 0 ? "no load measured"
          : String.format(Locale.ROOT, "max/mean %.3f within threshold %.3f",
              countOnly.maxOverMean(), threshold);
      return new Result(raw, new LoadPlan(true, "balanced: " + why + "; no load moves",
          Optional.of(before), Optional.of(countOnly), Optional.of(countOnly), 0, 0));
    }
    String rejected = null;
    for (Level level : Level.values()) {
      Greedy g = new Greedy(raw, loads, view, level);
      String stop = g.run();
      PartitionAssignment adjusted = g.table(raw);
      if (g.changed == 0) {
        return new Result(raw, new LoadPlan(true, "no allowed move lowers the hottest node's"
            + " load (" + stop + "); no load moves", Optional.of(before), Optional.of(countOnly),
            Optional.of(countOnly), 0, 0));
      }
      rejected = rejection(view, adjusted, replicas);
      if (rejected == null) {
        LoadStatistics after = LoadStatistics.of(adjusted, loads, view);
        int moves = 0;
        double moved = 0;
        for (int p = 0; p < raw.partitionCount(); p++) {
          if (!raw.replicas(p).equals(adjusted.replicas(p))) {
            moves++;
          }
          if (!raw.primary(p).equals(adjusted.primary(p))) {
            moved += loads.load(p);
          }
        }
        String reason = String.format(Locale.ROOT, "moved %d partitions carrying %.4g of %.4g"
            + " load: max/mean %.3f -> %.3f (count-only %.3f), keeping %s; stopped: %s", moves,
            moved, loads.total(), before.maxOverMean(), after.maxOverMean(),
            countOnly.maxOverMean(), level.description, stop);
        return new Result(adjusted, new LoadPlan(true, reason, Optional.of(before),
            Optional.of(countOnly), Optional.of(after), moves, moved));
      }
    }
    return new Result(raw, new LoadPlan(false, "loads ignored: strategy '" + partitioner.name()
        + "' does not keep a load-driven placement (given the adjusted table as the previous"
        + " one, even with counts kept as it placed them, it " + rejected + "), so the next"
        + " plan would undo the moves; use a strategy that keeps the previous table, such as"
        + " 'fixed'; count-only plan", Optional.of(before), Optional.of(countOnly),
        Optional.of(countOnly), 0, 0));
  }

  private Result ignored(PartitionAssignment raw, String reason) {
    return new Result(raw, LoadPlan.ignored(reason));
  }

  /**
   * Null when the strategy, given {@code adjusted} as the previous table, returns it unchanged;
   * otherwise what it did instead. A strategy that throws on a previous table it would not have
   * produced (a token ring reads its tokens back from the primaries) does not keep it either.
   */
  private String rejection(MembershipView view, PartitionAssignment adjusted, int replicas) {
    try {
      return partitioner.place(view, Optional.of(adjusted), replicas).samePlacementAs(adjusted)
          ? null : "places partitions differently";
    } catch (RuntimeException e) {
      return "fails on it: " + e;
    }
  }

  /** One greedy run at one level, on the raw table's rows. */
  private final class Greedy {
    final int partitions;
    final int rf;
    final int n;
    final NodeId[] ids;
    final int[] weight;
    final int[] zone;
    final int[] rack;
    final double[] partLoad;
    /** {@code rows[p][r]}: index of replica r of p. */
    final int[][] rows;
    final double[] nodeLoad;
    /** {@code count[r][i]}: replicas of rank r on node i. */
    final int[][] count;
    final int[][] lo;
    final int[][] hi;
    final double mean;
    /** The strategy's rows, to count the partitions that differ from them. */
    final int[][] rawRows;
    final boolean[] differs;
    /** Partitions whose row differs from the strategy's now (one moved twice counts once). */
    int changed;

    Greedy(PartitionAssignment raw, PartitionLoads loads, MembershipView view, Level level) {
      partitions = raw.partitionCount();
      rf = raw.replicationFactor();
      List<Member> members = new ArrayList<>(view.members());
      Map<NodeId, Integer> index = new HashMap<>();
      for (Member m : members) {
        index.put(m.id(), index.size());
      }
      for (NodeId id : raw.nodes()) {
        if (!index.containsKey(id)) { // cannot happen for a strategy's table; kept total anyway
          index.put(id, index.size());
          members.add(new Member(id, "", 1, "", ""));
        }
      }
      n = members.size();
      ids = new NodeId[n];
      weight = new int[n];
      zone = new int[n];
      rack = new int[n];
      Map<String, Integer> zones = new HashMap<>();
      Map<String, Integer> racks = new HashMap<>();
      long totalWeight = 0;
      for (int i = 0; i < n; i++) {
        Member m = members.get(i);
        ids[i] = m.id();
        weight[i] = m.weight();
        totalWeight += m.weight();
        zone[i] = zones.computeIfAbsent(m.zone(), k -> zones.size());
        rack[i] = racks.computeIfAbsent(m.zone() + '\u0000' + m.rack(), k -> racks.size());
      }
      partLoad = new double[partitions];
      rows = new int[partitions][rf];
      nodeLoad = new double[n];
      count = new int[rf][n];
      for (int p = 0; p < partitions; p++) {
        partLoad[p] = loads.load(p);
        for (int r = 0; r < rf; r++) {
          int i = index.get(raw.replica(p, r));
          rows[p][r] = i;
          count[r][i]++;
        }
        nodeLoad[rows[p][0]] += partLoad[p];
      }
      mean = loads.total() / totalWeight;
      rawRows = new int[partitions][];
      for (int p = 0; p < partitions; p++) {
        rawRows[p] = rows[p].clone();
      }
      differs = new boolean[partitions];
      lo = new int[rf][n];
      hi = new int[rf][n];
      for (int r = 0; r < rf; r++) {
        for (int i = 0; i < n; i++) {
          switch (level) {
            case ANY_COUNTS -> hi[r][i] = partitions;
            case SAME_COUNTS -> {
              lo[r][i] = count[r][i];
              hi[r][i] = count[r][i];
            }
            case COUNT_BANDS -> {
              long share = (long) partitions * weight[i];
              int floor = (int) (share / totalWeight);
              int ceil = floor + (share % totalWeight == 0 ? 0 : 1);
              boolean inside = count[r][i] >= floor && count[r][i] <= ceil;
              lo[r][i] = inside ? floor : count[r][i];
              hi[r][i] = inside ? ceil : count[r][i];
            }
            default -> throw new AssertionError(level);
          }
        }
      }
    }

    double normalized(int i) {
      return nodeLoad[i] / weight[i];
    }

    double maxOverMean() {
      double max = 0;
      for (int i = 0; i < n; i++) {
        max = Math.max(max, normalized(i));
      }
      return mean == 0 ? 0 : max / mean;
    }

    /** Runs to a stop; returns why it stopped. */
    String run() {
      while (true) {
        double ratio = maxOverMean();
        if (ratio <= threshold) {
          return String.format(Locale.ROOT, "max/mean within threshold %.3f", threshold);
        }
        if (changed >= maxMoves) {
          return "move bound " + maxMoves + " reached";
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
          order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
          int c = Double.compare(normalized(b), normalized(a));
          return c != 0 ? c : Integer.compare(a, b);
        });
        Action best = null;
        for (int h : order) {
          if (normalized(h) <= threshold * mean) {
            break; // within the threshold: not a source (moving from it buys no balance)
          }
          best = bestAction(h, maxMoves - changed);
          if (best != null) {
            break;
          }
        }
        if (best == null) {
          return "no allowed move improves";
        }
        apply(best);
      }
    }

    /** The best allowed improving action from {@code h}, or null. */
    Action bestAction(int h, int budget) {
      double nh = normalized(h);
      double eps = 1e-12 * Math.max(nh, 1e-300);
      List<List<Integer>> byPrimary = primariesByNode();
      Action best = null;
      for (int c = 0; c < n; c++) {
        if (c == h || normalized(c) >= nh) {
          continue;
        }
        for (int p : byPrimary.get(h)) {
          double l = partLoad[p];
          if (l <= 0) {
            continue;
          }
          double m = Math.max((nodeLoad[h] - l) / weight[h], (nodeLoad[c] + l) / weight[c]);
          if (m < nh - eps) {
            Action a = new Action(h, c, p, -1, nh - m, m, l);
            if (a.better(best) && allowed(a)) {
              best = a;
            }
          }
        }
      }
      if (best != null || budget < 2) {
        return best;
      }
      for (int c = 0; c < n; c++) {
        if (c == h || normalized(c) >= nh) {
          continue;
        }
        for (int p : byPrimary.get(h)) {
          for (int q : byPrimary.get(c)) {
            double d = partLoad[p] - partLoad[q];
            if (d <= 0) {
              continue;
            }
            double m = Math.max((nodeLoad[h] - d) / weight[h], (nodeLoad[c] + d) / weight[c]);
            if (m < nh - eps) {
              Action a = new Action(h, c, p, q, (nh - m) / 2, m, partLoad[p] + partLoad[q]);
              if (a.better(best) && allowed(a)) {
                best = a;
              }
            }
          }
        }
      }
      return best;
    }

    List<List<Integer>> primariesByNode() {
      List<List<Integer>> by = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        by.add(new ArrayList<>());
      }
      for (int p = 0; p < partitions; p++) {
        by.get(rows[p][0]).add(p);
      }
      return by;
    }

    /** Whether the action keeps the zone spreads and the level's count bounds. */
    boolean allowed(Action a) {
      int[] newP = exchange(rows[a.p], a.h, a.c);
      if (!sameSpread(rows[a.p], newP)) {
        return false;
      }
      int[] newQ = a.q < 0 ? null : exchange(rows[a.q], a.h, a.c);
      if (newQ != null && !sameSpread(rows[a.q], newQ)) {
        return false;
      }
      recount(rows[a.p], newP);
      if (newQ != null) {
        recount(rows[a.q], newQ);
      }
      boolean ok = true;
      for (int r = 0; r < rf && ok; r++) {
        for (int i : new int[] {a.h, a.c}) {
          ok &= count[r][i] >= lo[r][i] && count[r][i] <= hi[r][i];
        }
      }
      recount(newP, rows[a.p]);
      if (newQ != null) {
        recount(newQ, rows[a.q]);
      }
      return ok;
    }

    void apply(Action a) {
      double moved = partLoad[a.p];
      change(a.p, exchange(rows[a.p], a.h, a.c));
      if (a.q >= 0) {
        change(a.q, exchange(rows[a.q], a.h, a.c));
        moved -= partLoad[a.q];
      }
      nodeLoad[a.h] -= moved;
      nodeLoad[a.c] += moved;
    }

    void change(int p, int[] row) {
      recount(rows[p], row);
      rows[p] = row;
      boolean now = !Arrays.equals(row, rawRows[p]);
      changed += (now ? 1 : 0) - (differs[p] ? 1 : 0);
      differs[p] = now;
    }

    void recount(int[] from, int[] to) {
      for (int r = 0; r < rf; r++) {
        count[r][from[r]]--;
        count[r][to[r]]++;
      }
    }

    /** {@code row} with nodes {@code x} and {@code y} exchanged (either may be absent). */
    int[] exchange(int[] row, int x, int y) {
      int[] out = row.clone();
      for (int r = 0; r < out.length; r++) {
        out[r] = row[r] == x ? y : row[r] == y ? x : row[r];
      }
      return out;
    }

    /** Whether each rank of both rows is on a new zone, a new rack, or neither, alike. */
    boolean sameSpread(int[] a, int[] b) {
      for (int r = 1; r < rf; r++) {
        if (tier(a, r) != tier(b, r)) {
          return false;
        }
      }
      return true;
    }

    /** 0: a zone no lower rank uses; 1: a used zone, a new rack; 2: neither. */
    int tier(int[] row, int r) {
      boolean zoneUsed = false;
      for (int s = 0; s < r; s++) {
        if (rack[row[s]] == rack[row[r]]) {
          return 2;
        }
        zoneUsed |= zone[row[s]] == zone[row[r]];
      }
      return zoneUsed ? 1 : 0;
    }

    PartitionAssignment table(PartitionAssignment raw) {
      List<List<NodeId>> lists = new ArrayList<>(partitions);
      for (int[] row : rows) {
        NodeId[] list = new NodeId[rf];
        for (int r = 0; r < rf; r++) {
          list[r] = ids[row[r]];
        }
        lists.add(List.of(list));
      }
      return PartitionAssignment.of(raw.strategy(), raw.epoch(), raw.membershipVersion(),
          raw.scheme(), lists);
    }
  }

  /**
   * Partition {@code p} of {@code h} goes to {@code c} (and, for a swap, {@code q} of {@code c}
   * to {@code h}); {@code gain} is the drop of the pair's max per changed partition.
   */
  private record Action(int h, int c, int p, int q, double gain, double after, double load) {

    boolean better(Action other) {
      if (other == null) {
        return true;
      }
      if (gain != other.gain) {
        return gain > other.gain;
      }
      if (after != other.after) {
        return after < other.after;
      }
      return load < other.load; // else the first found: lowest node, then partition
    }
  }
}
