package io.partkit.strategy.fixed;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Computes one partition table: for every partition, {@code rf} distinct members, primary first.
 *
 * <h2>Design</h2>
 * The table is filled rank by rank (primaries, then first backups, ...). Zone awareness makes a
 * partition's replicas take distinct zones while some zone is unused, then distinct racks, then
 * any member: so with {@code Z} zones and {@code K} racks, ranks {@code 0..Z-1} are the
 * <i>zone phase</i> (groups = zones), ranks {@code Z..K-1} the <i>rack phase</i> (groups =
 * racks), later ranks (and everything without zone awareness) the <i>member phase</i>. At a
 * rank, replica {@code r} of {@code p} may go to any member of a group {@code p} has no replica
 * in yet, and to no other. For each rank:
 * <ol>
 *   <li><b>Keep.</b> Partition {@code p} keeps its previous holder at this rank if that member is
 *       still live and still eligible (not already a lower-rank replica of {@code p}, and on a
 *       zone/rack as new as the labels allow).
 *   <li><b>Targets.</b> Rank 0 and the member phase: each member's target is its weighted share
 *       {@code P*w/W}, at most the partitions it does not hold yet. The zone and rack phases,
 *       where groups bind, have per-group targets: a group's <i>plan</i> is its weighted share of
 *       the phase's {@code P * min(rf, groups)} copies, at most {@code P} (water-filling); at rank
 *       {@code r} a group's target is what it still lacks of its plan, spread evenly over the
 *       phase's remaining ranks (at most the partitions it has no copy of); inside a group, whose
 *       members may all take any partition the group receives, each member's target makes its
 *       copies in all ranks so far its weighted share of the group's copies so far. So with at
 *       least as many replicas as zones, every zone holds one copy of each partition and its
 *       members share those {@code P} copies floor/ceil by weight, while primaries stay floor/ceil
 *       of the cluster-wide share. Every share is rounded the same way ({@link #apportion}):
 *       down, then the leftover units to members whose share has a fraction: first to those that
 *       already hold more than their floor, most held first (each such choice saves a move), then
 *       to those below their floor (they receive partitions anyway, so no member that held its
 *       floor becomes a receiver), then by node id. Counts at floor/ceil are the best balance
 *       possible, and these targets need the fewest moves to get there:
 *       {@code moves = orphans + sum(max(0, held - target))}.
 *   <li><b>Shed.</b> A member above its target gives up its excess, highest partition numbers
 *       first, but first those a member below target already holds a copy of (a role swap copies
 *       no data), then those some member below target is eligible for.
 *   <li><b>Place.</b> Each unplaced partition, in increasing order, goes to a member below its
 *       target: a previous holder of the partition if one is eligible, else the first eligible
 *       member in a ring scan (rank 0: a cursor dealing round-robin in id order, which is the
 *       first-table rule of the "Fixed Partitions" pattern; rank r: starting r positions after the
 *       partition's primary, Hazelcast's "next member" backups). When no member below target is
 *       eligible, one swap with an already placed partition is tried, then a chain of moves to a
 *       member below target (an augmenting path: one exists whenever the targets can be met at
 *       all); only when none exists does the partition go over a target.
 *   <li><b>Repair.</b> Each member has a <i>band</i>, the floor and ceil its targets can take
 *       whatever the previous table was. While a chain of moves brings a member back into its
 *       band (from above its ceil to a member below its ceil, or from above a floor to a member
 *       below its floor), it is made. Feasible targets lie in the bands, so this changes nothing
 *       then; it only settles the ranks where labels or weights make the targets infeasible.
 * </ol>
 * <b>Fixpoint.</b> A rank where every partition kept its holder and no repair chain exists is
 * kept as it is, without shedding: every rank the steps above produce is such a rank, so
 * re-assigning the same view with a table as previous returns that table, for any labels and
 * weights (the lower ranks, hence eligibility, targets and bands, are the same by induction).
 *
 * <p>Nothing in it depends on input order, hashing of objects or time: members are indexed in
 * {@link io.partkit.spi.NodeId} order and partitions by number, so every node computes the same
 * table. A chain search costs {@code O(P * n * rf)}; it runs only when the greedy placement
 * cannot meet a target or a member is outside its band.
 *
 * <p>References: Hazelcast's partition table and its "PartitionStateGenerator" (round-robin first
 * assignment, minimal migrations); the "Fixed Partitions" pattern (Unmesh Joshi, Patterns of
 * Distributed Systems, 2023); augmenting paths for capacitated bipartite assignment (Hall's
 * theorem; Ford and Fulkerson, "Maximal flow through a network", 1956).
 */
final class FixedTable {

  private final int partitions;
  private final int rf;
  private final int n;
  private final boolean zoneAware;
  private final int[] weight;
  private final int[] zone;
  private final int[] rack;
  private final int zoneCount;
  private final int rackCount;
  /** {@code prev[p]}: previous replicas of p as member indices (negative: left), or null. */
  private final int[][] prev;
  /** {@code table[p * rf + r]}: member index of replica r of p, -1 while unplaced. */
  private final int[] table;
  private final int[] count;
  private final int[] target;
  /** The band of counts rank r accepts from each member, whatever the previous table. */
  private final int[] bandLo;
  private final int[] bandHi;
  /** Copies each member holds at the ranks already completed. */
  private final int[] lowerRanks;
  private int cursor;

  FixedTable(MembershipView view, int partitions, int rf, boolean zoneAware, int[][] prev) {
    this.partitions = partitions;
    this.rf = rf;
    this.n = view.size();
    this.zoneAware = zoneAware;
    this.prev = prev;
    this.weight = new int[n];
    this.zone = new int[n];
    this.rack = new int[n];
    Map<String, Integer> zones = new HashMap<>();
    Map<String, Integer> racks = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Member m = view.member(i);
      weight[i] = m.weight();
      // ids are only compared for equality, so first-seen numbering is fine
      zone[i] = zones.computeIfAbsent(m.zone(), k -> zones.size());
      rack[i] = racks.computeIfAbsent(m.zone() + '\u0000' + m.rack(), k -> racks.size());
    }
    this.zoneCount = zones.size();
    this.rackCount = racks.size();
    this.table = new int[partitions * rf];
    this.count = new int[n];
    this.target = new int[n];
    this.bandLo = new int[n];
    this.bandHi = new int[n];
    this.lowerRanks = new int[n];
  }

  int[] compute() {
    Arrays.fill(table, -1);
    for (int r = 0; r < rf; r++) {
      Arrays.fill(count, 0);
      int orphans = keep(r);
      rankTargets(r);
      if (orphans > 0 || repairable(r, false)) {
        shed(r);
        cursor = 0;
        for (int p = 0; p < partitions; p++) {
          if (table[p * rf + r] < 0) {
            place(p, r);
          }
        }
        while (repairable(r, true)) {
          // each repair moves one copy closer to the bands; see repairable
        }
      }
      for (int i = 0; i < n; i++) {
        lowerRanks[i] += count[i];
      }
    }
    return table;
  }

  /** Keeps previous holders of rank r that are still eligible; returns how many are not. */
  private int keep(int r) {
    int orphans = partitions;
    if (prev == null) {
      return orphans;
    }
    for (int p = 0; p < partitions; p++) {
      int[] old = prev[p];
      if (r < old.length && old[r] >= 0 && eligible(p, r, old[r], minTier(p, r))) {
        table[p * rf + r] = old[r];
        count[old[r]]++;
        orphans--;
      }
    }
    return orphans;
  }

  /**
   * The targets of rank {@code r} (see the class comment): cluster-wide weighted shares for
   * primaries and member-level ranks, per-group plans where zones or racks bind.
   */
  private void rankTargets(int r) {
    int tier = phaseTier(r);
    if (r == 0 || tier == 2) {
      long[] w = new long[n];
      int[] hi = new int[n];
      for (int i = 0; i < n; i++) {
        w[i] = weight[i];
        hi[i] = partitions - lowerRanks[i]; // the partitions i does not hold yet
      }
      apportion(partitions, w, new int[n], hi, count, target, bandLo, bandHi);
      return;
    }
    int[] group = tier == 0 ? zone : rack;
    int groups = tier == 0 ? zoneCount : rackCount;
    int phaseEnd = Math.min(rf, groups);
    long[] groupWeight = new long[groups];
    int[] soFar = new int[groups];
    int[] held = new int[groups];
    for (int i = 0; i < n; i++) {
      groupWeight[group[i]] += weight[i];
      soFar[group[i]] += lowerRanks[i];
      held[group[i]] += count[i];
    }
    // The plan: copies each group holds at the end of the phase, its weighted share of
    // P * phaseEnd, at most P (one copy of each partition per group in the phase).
    int[] none = new int[groups];
    int[] plan = new int[groups];
    int[] cap = new int[groups];
    Arrays.fill(cap, partitions);
    apportion(partitions * phaseEnd, groupWeight, none, cap, none, plan, new int[groups],
        new int[groups]);
    // This rank: what each group still has to receive, spread evenly over the phase's remaining
    // ranks, never more than the partitions the group has no copy of yet.
    long[] remaining = new long[groups];
    for (int g = 0; g < groups; g++) {
      remaining[g] = Math.max(0, plan[g] - soFar[g]);
      cap[g] = partitions - soFar[g];
    }
    int[] groupTarget = new int[groups];
    int[] groupLo = new int[groups];
    int[] groupHi = new int[groups];
    apportion(partitions, remaining, none, cap, held, groupTarget, groupLo, groupHi);
    // Inside a group every member may take every partition the group receives: members share
    // the group's copies so far (all ranks up to this one) by weight, floor/ceil.
    for (int g = 0; g < groups; g++) {
      int size = 0;
      for (int i = 0; i < n; i++) {
        size += group[i] == g ? 1 : 0;
      }
      int[] members = new int[size];
      long[] w = new long[size];
      int[] lower = new int[size];
      int[] mheld = new int[size];
      for (int i = 0, k = 0; i < n; i++) {
        if (group[i] == g) {
          members[k] = i;
          w[k] = weight[i];
          lower[k] = lowerRanks[i];
          mheld[k] = lowerRanks[i] + count[i];
          k++;
        }
      }
      int[] cumulative = new int[size];
      int[] floor = new int[size];
      int[] ceil = new int[size];
      for (int k = 0; k < size; k++) {
        bandLo[members[k]] = Integer.MAX_VALUE;
        bandHi[members[k]] = 0;
      }
      // the band of a member covers every count its group may end with
      for (int groupCount : new int[] {groupLo[g], groupHi[g], groupTarget[g]}) {
        int[] hi = new int[size];
        for (int k = 0; k < size; k++) {
          hi[k] = lower[k] + groupCount;
        }
        apportion(soFar[g] + groupCount, w, lower, hi, mheld, cumulative, floor, ceil);
        for (int k = 0; k < size; k++) {
          int i = members[k];
          bandLo[i] = Math.min(bandLo[i], floor[k] - lower[k]);
          bandHi[i] = Math.max(bandHi[i], ceil[k] - lower[k]);
          target[i] = cumulative[k] - lower[k]; // the last pass is the group's target
        }
      }
    }
  }

  /**
   * Whether a chain of moves within rank {@code r} brings one copy closer to the bands: from a
   * member above its band to one below its upper bound, or from a member above its lower bound
   * to one below it. With {@code apply}, performs the first such chain found. Each chain lowers
   * the total distance to the bands, so repeating terminates. A rank where none exists is stable:
   * computed again from its own table, it is kept as it is, whether or not its targets could be
   * met; that is what makes every table a fixpoint of its own view.
   */
  private boolean repairable(int r, boolean apply) {
    boolean[] over = new boolean[n];
    boolean[] under = new boolean[n];
    boolean any = false;
    for (int i = 0; i < n; i++) {
      over[i] = count[i] > bandHi[i];
      under[i] = count[i] < bandHi[i];
      any |= over[i];
    }
    if (any && chain(r, over, under, apply)) {
      return true;
    }
    any = false;
    for (int i = 0; i < n; i++) {
      over[i] = count[i] > bandLo[i];
      under[i] = count[i] < bandLo[i];
      any |= under[i];
    }
    return any && chain(r, over, under, apply);
  }

  /**
   * Breadth-first search for a chain of moves at rank {@code r} from a member in {@code sources}
   * to one in {@code sinks}: a partition of the first moves to the second member, one of the
   * second's to the third, and so on; performs it when {@code apply}.
   */
  private boolean chain(int r, boolean[] sources, boolean[] sinks, boolean apply) {
    int[][] byMember = partitionsByMember(r);
    int[] from = new int[n];
    int[] via = new int[n];
    boolean[] seen = new boolean[n];
    int[] queue = new int[n];
    int head = 0;
    int tail = 0;
    for (int x = 0; x < n; x++) {
      if (sources[x]) {
        seen[x] = true;
        from[x] = -1;
        queue[tail++] = x;
      }
    }
    while (head < tail) {
      int x = queue[head++];
      for (int q : byMember[x]) {
        int qTier = minTier(q, r);
        for (int y = 0; y < n; y++) {
          if (seen[y] || !eligible(q, r, y, qTier)) {
            continue;
          }
          seen[y] = true;
          from[y] = x;
          via[y] = q;
          if (sinks[y]) {
            if (apply) {
              count[y]++;
              int z = y;
              while (from[z] >= 0) {
                table[via[z] * rf + r] = z;
                z = from[z];
              }
              count[z]--;
            }
            return true;
          }
          queue[tail++] = y;
        }
      }
    }
    return false;
  }

  /** The partitions each member holds at rank r. */
  private int[][] partitionsByMember(int r) {
    int[][] byMember = new int[n][];
    int[] sizes = new int[n];
    for (int q = 0; q < partitions; q++) {
      int x = table[q * rf + r];
      if (x >= 0) {
        sizes[x]++;
      }
    }
    for (int x = 0; x < n; x++) {
      byMember[x] = new int[sizes[x]];
      sizes[x] = 0;
    }
    for (int q = 0; q < partitions; q++) {
      int x = table[q * rf + r];
      if (x >= 0) {
        byMember[x][sizes[x]++] = q;
      }
    }
    return byMember;
  }

  /**
   * 0 while rank {@code r} still finds a zone unused by every partition, 1 while it finds an
   * unused rack, 2 after (or without zone awareness). Every partition is at the same tier at a
   * given rank: its first replicas are on distinct zones, then distinct racks.
   */
  private int phaseTier(int r) {
    if (!zoneAware) {
      return 2;
    }
    return r < zoneCount ? 0 : r < rackCount ? 1 : 2;
  }

  /**
   * Floor/ceil weighted targets that need the fewest moves from {@code held}, within bounds:
   * {@code out[i]} in {@code lo[i]..hi[i]}, summing to {@code total}. Members whose weighted
   * share falls outside their bounds are fixed at the bound (below first, then above, until none
   * is), the rest share what is left by weight; when all their weights are 0, equally. Without
   * binding bounds this is the plain rule of the class comment. A target vector this returns,
   * given back as {@code held}, is returned unchanged: that is what makes a table a fixpoint of
   * its own view. Package-private static so tests can check it independently.
   *
   * @throws IllegalArgumentException if the bounds cannot sum to {@code total}
   */
  static void apportion(int total, long[] weight, int[] lo, int[] hi, int[] held, int[] out,
      int[] floorOut, int[] ceilOut) {
    int n = weight.length;
    long sumLo = 0;
    long sumHi = 0;
    for (int i = 0; i < n; i++) {
      sumLo += lo[i];
      sumHi += hi[i];
    }
    if (total < sumLo || total > sumHi) {
      throw new IllegalArgumentException("total must be in " + sumLo + ".." + sumHi + ": " + total);
    }
    boolean[] fixed = new boolean[n];
    while (true) {
      long rest = total;
      long w = 0;
      int free = 0;
      for (int i = 0; i < n; i++) {
        if (fixed[i]) {
          rest -= out[i];
        } else {
          w += weight[i];
          free++;
        }
      }
      if (free == 0) {
        break;
      }
      boolean equal = w == 0;
      long sum = equal ? free : w;
      boolean changed = false;
      for (int pass = 0; pass < 2 && !changed; pass++) {
        for (int i = 0; i < n; i++) {
          long share = rest * (equal ? 1 : weight[i]); // the share is share / sum
          if (!fixed[i] && (pass == 0 ? share < lo[i] * sum : share > hi[i] * sum)) {
            out[i] = pass == 0 ? lo[i] : hi[i];
            fixed[i] = true;
            changed = true;
          }
        }
      }
      if (changed) {
        continue;
      }
      int assigned = 0;
      Integer[] candidates = new Integer[free];
      int c = 0;
      for (int i = 0; i < n; i++) {
        if (!fixed[i]) {
          long share = rest * (equal ? 1 : weight[i]);
          out[i] = (int) (share / sum);
          assigned += out[i];
          if (share % sum != 0) {
            candidates[c++] = i;
          }
        }
      }
      Arrays.sort(candidates, 0, c, (a, b) -> {
        int ca = leftoverClass(held[a], out[a]);
        int cb = leftoverClass(held[b], out[b]);
        if (ca != cb) {
          return Integer.compare(ca, cb);
        }
        if (ca == 0 && held[a] != held[b]) {
          return Integer.compare(held[b], held[a]);
        }
        return Integer.compare(a, b);
      });
      for (int i = 0; i < n; i++) {
        floorOut[i] = out[i];
        ceilOut[i] = out[i];
      }
      for (int k = 0; k < c; k++) {
        ceilOut[candidates[k]]++;
      }
      for (int k = 0; k < rest - assigned; k++) {
        out[candidates[k]]++;
      }
      return;
    }
    System.arraycopy(out, 0, floorOut, 0, n);
    System.arraycopy(out, 0, ceilOut, 0, n);
  }

  /**
   * Who gets a leftover unit first. 0: holds more than its floor, the unit saves a move. 1: holds
   * less than its floor, it receives partitions anyway, so one more creates no new receiver (on a
   * join this keeps every move going to the new member). 2: holds exactly its floor.
   */
  private static int leftoverClass(int held, int floor) {
    return held > floor ? 0 : held < floor ? 1 : 2;
  }

  private void shed(int r) {
    for (int i = 0; i < n; i++) {
      int excess = count[i] - target[i];
      // Pass 0: partitions an under-target member already holds a copy of (a role swap copies no
      // data). Pass 1: partitions some under-target member may take (so placing them needs no
      // swap, which could land a copy on a member that was not receiving). Pass 2: any.
      for (int pass = 0; pass < 3 && excess > 0; pass++) {
        for (int p = partitions - 1; p >= 0 && excess > 0; p--) {
          if (table[p * rf + r] == i && (pass == 2
              || (pass == 0 ? hasUnderTargetHolder(p, r) : hasUnderTargetTaker(p, r)))) {
            table[p * rf + r] = -1;
            count[i]--;
            excess--;
          }
        }
      }
    }
  }

  private boolean hasUnderTargetHolder(int p, int r) {
    if (prev == null) {
      return false;
    }
    int tier = minTier(p, r);
    for (int node : prev[p]) {
      if (node >= 0 && count[node] < target[node] && eligible(p, r, node, tier)) {
        return true;
      }
    }
    return false;
  }

  private boolean hasUnderTargetTaker(int p, int r) {
    int tier = minTier(p, r);
    for (int node = 0; node < n; node++) {
      if (count[node] < target[node] && eligible(p, r, node, tier)) {
        return true;
      }
    }
    return false;
  }

  private void place(int p, int r) {
    int tier = minTier(p, r);
    int chosen = -1;
    if (prev != null) {
      for (int node : prev[p]) {
        if (node >= 0 && count[node] < target[node] && eligible(p, r, node, tier)) {
          chosen = node;
          break;
        }
      }
    }
    if (chosen < 0) {
      int start = r == 0 ? cursor : (table[p * rf] + r) % n;
      for (int k = 0; k < n; k++) {
        int node = (start + k) % n;
        if (count[node] < target[node] && eligible(p, r, node, tier)) {
          chosen = node;
          if (r == 0) {
            cursor = (node + 1) % n;
          }
          break;
        }
      }
    }
    if (chosen < 0 && (swap(p, r, tier) || augment(p, r, tier))) {
      return;
    }
    if (chosen < 0) {
      chosen = leastLoadedEligible(p, r, tier);
    }
    table[p * rf + r] = chosen;
    count[chosen]++;
  }

  /**
   * No member below target can take {@code p}: find a placed partition {@code q} whose holder
   * {@code x} can take {@code p} while an under-target member {@code d} takes {@code q}. Counts
   * of {@code x} stay, {@code d} gains one. Partitions placed in this round are tried first so
   * the swap costs no extra move.
   */
  private boolean swap(int p, int r, int tier) {
    for (int d = 0; d < n; d++) {
      if (count[d] >= target[d]) {
        continue;
      }
      for (int pass = 0; pass < 2; pass++) {
        for (int q = 0; q < partitions; q++) {
          int x = table[q * rf + r];
          if (x < 0 || q == p || (pass == 0) == kept(q, r, x)) {
            continue;
          }
          if (eligible(p, r, x, tier) && eligible(q, r, d, minTier(q, r))) {
            table[q * rf + r] = d;
            count[d]++;
            table[p * rf + r] = x;
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * The general form of {@link #swap}: a shortest chain of moves within this rank, {@code p} to
   * a full member {@code x1}, one of {@code x1}'s partitions to {@code x2}, ... until a member
   * below target (an augmenting path, breadth-first over members). Partitions placed in this
   * round are tried first, then kept ones too. Whenever the targets can be met at all, such a
   * chain exists (Hall's theorem / max-flow), so targets are met exactly.
   */
  private boolean augment(int p, int r, int tier) {
    int[][] byMember = partitionsByMember(r);
    for (int pass = 0; pass < 2; pass++) {
      int[] from = new int[n]; // the member a partition moved away from to reach this one
      int[] via = new int[n]; // that partition
      boolean[] seen = new boolean[n];
      int[] queue = new int[n];
      int head = 0;
      int tail = 0;
      for (int x = 0; x < n; x++) {
        if (eligible(p, r, x, tier)) {
          seen[x] = true;
          from[x] = -1;
          queue[tail++] = x;
        }
      }
      while (head < tail) {
        int x = queue[head++];
        if (count[x] < target[x]) {
          count[x]++;
          int y = x;
          while (from[y] >= 0) {
            table[via[y] * rf + r] = y;
            y = from[y];
          }
          table[p * rf + r] = y;
          return true;
        }
        for (int q : byMember[x]) {
          if (pass == 0 && kept(q, r, x)) {
            continue;
          }
          int qTier = minTier(q, r);
          for (int y = 0; y < n; y++) {
            if (!seen[y] && eligible(q, r, y, qTier)) {
              seen[y] = true;
              from[y] = x;
              via[y] = q;
              queue[tail++] = y;
            }
          }
        }
      }
    }
    return false;
  }

  private boolean kept(int q, int r, int node) {
    return prev != null && r < prev[q].length && prev[q][r] == node;
  }

  /**
   * The fallback when targets cannot be met: the eligible member with the fewest copies per unit
   * of weight over all ranks so far (so that, when zones force copies onto a small zone, its
   * members share them evenly).
   */
  private int leastLoadedEligible(int p, int r, int tier) {
    int best = -1;
    for (int node = 0; node < n; node++) {
      if (!eligible(p, r, node, tier)) {
        continue;
      }
      // compare (copies + 1) / weight without division
      if (best < 0 || (long) (lowerRanks[node] + count[node] + 1) * weight[best]
          < (long) (lowerRanks[best] + count[best] + 1) * weight[node]) {
        best = node;
      }
    }
    if (best < 0) {
      throw new IllegalStateException("no eligible member for partition " + p + " rank " + r
          + " (replication factor " + rf + " over " + n + " members)");
    }
    return best;
  }

  /** Not a lower-rank replica of p, and (zone-aware) on the newest zone/rack tier available. */
  private boolean eligible(int p, int r, int node, int minTier) {
    for (int s = 0; s < r; s++) {
      if (table[p * rf + s] == node) {
        return false;
      }
    }
    return !zoneAware || tier(p, r, node) == minTier;
  }

  /** 0: a zone p has no replica in yet; 1: a new rack in a used zone; 2: neither. */
  private int tier(int p, int r, int node) {
    boolean zoneUsed = false;
    for (int s = 0; s < r; s++) {
      int other = table[p * rf + s];
      if (rack[other] == rack[node]) {
        return 2;
      }
      zoneUsed |= zone[other] == zone[node];
    }
    return zoneUsed ? 1 : 0;
  }

  /** The best tier any unused member offers for replica r of p. */
  private int minTier(int p, int r) {
    if (!zoneAware) {
      return 0;
    }
    int distinctZones = 0;
    int distinctRacks = 0;
    for (int s = 0; s < r; s++) {
      int a = table[p * rf + s];
      boolean newZone = true;
      boolean newRack = true;
      for (int t = 0; t < s; t++) {
        int b = table[p * rf + t];
        newZone &= zone[a] != zone[b];
        newRack &= rack[a] != rack[b];
      }
      distinctZones += newZone ? 1 : 0;
      distinctRacks += newRack ? 1 : 0;
    }
    if (distinctZones < zoneCount) {
      return 0;
    }
    return distinctRacks < rackCount ? 1 : 2;
  }
}
