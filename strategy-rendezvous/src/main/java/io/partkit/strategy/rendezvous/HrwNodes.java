package io.partkit.strategy.rendezvous;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.hash.KeyHash;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The rendezvous ranking over one membership view: the score of {@link RendezvousHashing} and a
 * zone-aware top-k selection with optional per-member capacities (bounded loads).
 *
 * <p>Selection of replica {@code j} is one pass over the members: the best-ranked member not yet
 * chosen, on the newest tier the labels still offer (unused zone, else unused rack, else any),
 * that has spare capacity; if none has, the best-ranked such member regardless of capacity. One
 * pass per replica (rather than a sorted preference list) keeps lookups free of allocation.
 *
 * <p>References: Thaler and Ravishankar, "Using name-based mappings to increase hit rates"
 * (IEEE/ACM ToN 1998), the original highest-random-weight hashing; Schindelhauer and Schomaker,
 * "Weighted distributed hash tables" (SPAA 2005) for the logarithmic weighting; SplitMix64
 * (Steele, Lea and Flood, OOPSLA 2014) for the mixer.
 */
final class HrwNodes implements RendezvousHashing {

  private static final long GOLDEN = 0x9e3779b97f4a7c15L;
  private static final double TWO_POW_MINUS_53 = 0x1p-53;

  private final MembershipView view;
  private final NodeId[] ids;
  private final long[] nodeHash;
  private final int[] weight;
  private final boolean equalWeights;
  private final long seedKey;
  private final boolean zoneAware;
  private final int[] zone;
  private final int[] rack;
  private final int zoneCount;
  private final int rackCount;
  /** Zone and rack ids fit in a 64-bit mask, so tiers need no lookups. */
  private final boolean smallLabels;

  HrwNodes(MembershipView view, long seed, boolean zoneAware) {
    this.view = requireNonNull(view, "view");
    if (view.isEmpty()) {
      throw new IllegalArgumentException("membership view must not be empty: " + view);
    }
    int n = view.size();
    this.ids = view.ids().toArray(NodeId[]::new);
    this.nodeHash = new long[n];
    this.weight = new int[n];
    this.zone = new int[n];
    this.rack = new int[n];
    Map<String, Integer> zones = new HashMap<>();
    Map<String, Integer> racks = new HashMap<>();
    boolean equal = true;
    for (int i = 0; i < n; i++) {
      Member m = view.member(i);
      nodeHash[i] = nodeHash(m.id());
      weight[i] = m.weight();
      equal &= weight[i] == weight[0];
      zone[i] = zones.computeIfAbsent(m.zone(), k -> zones.size());
      rack[i] = racks.computeIfAbsent(m.zone() + '\u0000' + m.rack(), k -> racks.size());
    }
    this.equalWeights = equal;
    this.seedKey = mix64(seed ^ GOLDEN);
    this.zoneAware = zoneAware;
    this.zoneCount = zones.size();
    this.rackCount = racks.size();
    this.smallLabels = zoneCount <= 64 && rackCount <= 64;
  }

  /** SplitMix64's finalizer (Stafford's variant 13). */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static long nodeHash(NodeId id) {
    return KeyHash.MURMUR3_128.hash(id.value().getBytes(StandardCharsets.UTF_8));
  }

  /** {@code u} of the class comment of {@link RendezvousHashing}, for tests and documentation. */
  static long u(NodeId id, long item, long seed) {
    return mix64(nodeHash(id) ^ mix64(item ^ mix64(seed ^ GOLDEN)));
  }

  /** The score {@code w / -ln(h)} of {@link RendezvousHashing}. */
  static double score(int weight, long u) {
    double h = ((u >>> 11) + 0.5) * TWO_POW_MINUS_53;
    return weight / -StrictMath.log(h);
  }

  @Override
  public MembershipView view() {
    return view;
  }

  int size() {
    return ids.length;
  }

  NodeId id(int index) {
    return ids[index];
  }

  private long itemKey(long item) {
    return mix64(item ^ seedKey);
  }

  @Override
  public NodeId primary(long keyHash) {
    long key = itemKey(keyHash);
    int best = 0;
    long bestBits = mix64(nodeHash[0] ^ key) >>> 11;
    double bestScore = equalWeights ? 0 : score(weight[0], bestBits << 11);
    for (int i = 1; i < ids.length; i++) {
      long bits = mix64(nodeHash[i] ^ key) >>> 11;
      if (equalWeights) {
        if (bits > bestBits) {
          best = i;
          bestBits = bits;
        }
      } else {
        double s = score(weight[i], bits << 11);
        if (s > bestScore || (s == bestScore && bits > bestBits)) {
          best = i;
          bestBits = bits;
          bestScore = s;
        }
      }
    }
    return ids[best];
  }

  @Override
  public int topK(long keyHash, int k, NodeId[] out) {
    return select(keyHash, k, out, null, null, null, null);
  }

  /**
   * Picks up to {@code k} members for {@code item} into {@code out}. With loads and capacities
   * given (bounded loads), a member whose load reached its capacity is passed over while another
   * eligible member has room, and the chosen members' loads grow by one (rank 0 counts in the
   * primary arrays, the others in the backup arrays).
   */
  int select(long item, int k, NodeId[] out, int[] primaryLoad, int[] primaryCap,
      int[] backupLoad, int[] backupCap) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1: " + k);
    }
    int count = Math.min(k, ids.length);
    if (out.length < count) {
      throw new IllegalArgumentException(
          "out must hold at least " + count + " members: " + out.length);
    }
    long key = itemKey(item);
    long zoneMask = 0;
    long rackMask = 0;
    int zonesUsed = 0;
    int racksUsed = 0;
    for (int j = 0; j < count; j++) {
      int want = !zoneAware ? 2 : zonesUsed < zoneCount ? 0 : racksUsed < rackCount ? 1 : 2;
      int[] load = j == 0 ? primaryLoad : backupLoad;
      int[] cap = j == 0 ? primaryCap : backupCap;
      int best = -1;
      long bestBits = 0;
      double bestScore = 0;
      int over = -1;
      long overBits = 0;
      double overScore = 0;
      for (int i = 0; i < ids.length; i++) {
        if (isChosen(i, out, j) || (want < 2 && tier(i, out, j, zoneMask, rackMask) > want)) {
          continue;
        }
        long bits = mix64(nodeHash[i] ^ key) >>> 11;
        double s = equalWeights ? 0 : score(weight[i], bits << 11);
        if (load != null && load[i] >= cap[i]) {
          if (over < 0 || s > overScore || (s == overScore && bits > overBits)) {
            over = i;
            overBits = bits;
            overScore = s;
          }
        } else if (best < 0 || s > bestScore || (s == bestScore && bits > bestBits)) {
          best = i;
          bestBits = bits;
          bestScore = s;
        }
      }
      int chosen = best >= 0 ? best : over;
      out[j] = ids[chosen];
      if (load != null) {
        load[chosen]++;
      }
      if (want < 2) {
        int t = tier(chosen, out, j, zoneMask, rackMask);
        zonesUsed += t == 0 ? 1 : 0;
        racksUsed += t <= 1 ? 1 : 0;
      }
      if (smallLabels) {
        zoneMask |= 1L << zone[chosen];
        rackMask |= 1L << rack[chosen];
      }
    }
    return count;
  }

  /** Identity compare: {@code out} holds this instance's own {@link NodeId} objects. */
  private boolean isChosen(int i, NodeId[] out, int j) {
    for (int c = 0; c < j; c++) {
      if (out[c] == ids[i]) {
        return true;
      }
    }
    return false;
  }

  /** 0: zone not used by {@code out[0..j)}; 1: zone used, rack not; 2: rack used. */
  private int tier(int i, NodeId[] out, int j, long zoneMask, long rackMask) {
    if (smallLabels) {
      if ((rackMask & (1L << rack[i])) != 0) {
        return 2;
      }
      return (zoneMask & (1L << zone[i])) != 0 ? 1 : 0;
    }
    boolean zoneUsed = false;
    for (int c = 0; c < j; c++) {
      int other = Arrays.binarySearch(ids, out[c]);
      if (rack[other] == rack[i]) {
        return 2;
      }
      zoneUsed |= zone[other] == zone[i];
    }
    return zoneUsed ? 1 : 0;
  }

  @Override
  public String toString() {
    return "RendezvousHashing{members=" + ids.length + ", zone-aware=" + zoneAware + "}";
  }
}
