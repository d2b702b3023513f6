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
 * The table is filled rank by rank (primaries, then first backups, ...). For each rank:
 * <ol>
 *   <li><b>Keep.</b> Partition {@code p} keeps its previous holder at this rank if that member is
 *       still live and still eligible (not already a lower-rank replica of {@code p}, and on a
 *       zone/rack as new as the labels allow).
 *   <li><b>Targets.</b> Each member's target is its weighted share {@code P*w/W}, rounded down;
 *       the {@code P - sum(floor)} leftover units go to members whose share has a fraction:
 *       first to those that already hold more than their floor, most held first (each such
 *       choice saves a move), then to those below their floor (they receive partitions anyway,
 *       so no member that held its floor becomes a receiver), then by node id. Counts at floor/ceil of the exact share
 *       are the best balance possible, and these targets need the fewest moves to get there:
 *       {@code moves = orphans + sum(max(0, held - target))}.
 *   <li><b>Shed.</b> A member above its target gives up its excess, highest partition numbers
 *       first, but first those a member below target already holds a copy of (a role swap copies
 *       no data), then those some member below target is eligible for.
 *   <li><b>Place.</b> Each unplaced partition, in increasing order, goes to a member below its
 *       target: a previous holder of the partition if one is eligible, else the first eligible
 *       member in a ring scan (rank 0: a cursor dealing round-robin in id order, which is the
 *       first-table rule of the "Fixed Partitions" pattern; rank r: starting r positions after the
 *       partition's primary, Hazelcast's "next member" backups). When no member below target is
 *       eligible (constraints of this partition), one swap with an already placed partition is
 *       tried; only when that fails too does the partition go over a target (then the labels or
 *       weights make floor/ceil infeasible for this rank).
 * </ol>
 * Nothing in it depends on input order, hashing of objects or time: members are indexed in
 * {@link io.partkit.spi.NodeId} order and partitions by number, so every node computes the same
 * table.
 *
 * <p>References: Hazelcast's partition table and its "PartitionStateGenerator" (round-robin first
 * assignment, minimal migrations); the "Fixed Partitions" pattern (Unmesh Joshi, Patterns of
 * Distributed Systems, 2023).
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
    this.lowerRanks = new int[n];
  }

  int[] compute() {
    Arrays.fill(table, -1);
    for (int r = 0; r < rf; r++) {
      Arrays.fill(count, 0);
      keep(r);
      targets(partitions, weight, count, target);
      shed(r);
      cursor = 0;
      for (int p = 0; p < partitions; p++) {
        if (table[p * rf + r] < 0) {
          place(p, r);
        }
      }
      for (int i = 0; i < n; i++) {
        lowerRanks[i] += count[i];
      }
    }
    return table;
  }

  private void keep(int r) {
    if (prev == null) {
      return;
    }
    for (int p = 0; p < partitions; p++) {
      int[] old = prev[p];
      if (r < old.length && old[r] >= 0 && eligible(p, r, old[r], minTier(p, r))) {
        table[p * rf + r] = old[r];
        count[old[r]]++;
      }
    }
  }

  /**
   * Floor/ceil weighted targets that need the fewest moves from {@code held}: see the class
   * comment. Package-private static so tests can check it independently.
   */
  static void targets(int total, int[] weight, int[] held, int[] out) {
    int n = weight.length;
    long w = 0;
    for (int x : weight) {
      w += x;
    }
    int assigned = 0;
    Integer[] candidates = new Integer[n];
    int c = 0;
    for (int i = 0; i < n; i++) {
      long share = (long) total * weight[i];
      out[i] = (int) (share / w);
      assigned += out[i];
      if (share % w != 0) {
        candidates[c++] = i;
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
    for (int k = 0; k < total - assigned; k++) {
      out[candidates[k]]++;
    }
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
    if (chosen < 0 && swap(p, r, tier)) {
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
