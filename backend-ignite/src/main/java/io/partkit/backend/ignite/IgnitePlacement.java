package io.partkit.backend.ignite;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Ignite 2.x's native placement, {@code RendezvousAffinityFunction}, reproduced exactly, so that
 * partkit's statistics and benchmarks can measure it next to partkit's strategies and so that a
 * client can predict where Ignite keeps a key without a node.
 *
 * <h2>The algorithm (Ignite 2.18, {@code RendezvousAffinityFunction})</h2>
 * <ul>
 *   <li><b>Key to partition</b> ({@link #partition(Object, int)}): {@code h = key.hashCode()};
 *       when the partition count is a power of two, {@code (h ^ (h >>> 16)) & (parts - 1)}, else
 *       {@code abs(h % parts)}. This is <em>Ignite's</em> definition and it rests on Java's
 *       {@code hashCode()}: stable for {@code String}, {@code Integer}, {@code Long} and the like,
 *       but not partkit's stable key hash and not stable for arbitrary objects (Ignite replaces
 *       the hash code of binary objects with its own). partkit's adapter
 *       ({@link PartkitAffinityFunction}) uses partkit's Murmur3 instead.
 *   <li><b>Partition to nodes</b> ({@link #replicas}): every node gets the score
 *       {@code mix64((consistentId.hashCode() & 0xFFFFFFFFL) | ((long) partition << 32))} with
 *       Thomas Wang's 64-bit integer mix ("64 bit mix functions", also in Ignite's source); nodes
 *       are ranked by score, lowest (signed) first. The first is the primary; backups follow in
 *       rank order. With {@code exclude-neighbors}, a candidate on the same host as any replica
 *       chosen so far is skipped, and when that leaves too few replicas while the cluster has
 *       enough nodes, the skipped candidates fill up in rank order.
 *   <li>Ties: the mix is a bijection, so two nodes tie only when their consistent ids have equal
 *       {@code hashCode()}s ({@code "Aa"} and {@code "BB"}). Ignite then orders them by their
 *       per-start node UUID, i.e. randomly; here they are ordered by {@link NodeId}.
 * </ul>
 *
 * <p>Compatibility: the consistent id is the {@link NodeId}'s string (Ignite hashes the
 * {@code consistentId} object, so this matches Ignite when consistent ids are strings equal to
 * the node ids). Neighbors are members whose {@link Member#address()} has the same host part
 * (before the last {@code ':'}); Ignite groups by the MAC addresses a node reports, which agree
 * with the host for one node per machine interface set. A member with an empty address has no
 * neighbors. Ignite's backup filters and REPLICATED mode (backups = {@code Integer.MAX_VALUE},
 * which lists backups in topology order) are not modeled.
 *
 * <p>{@link #assignment(MembershipView)} gives Ignite's exact partition -> replicas table as a
 * partkit {@link PartitionAssignment} (strategy name {@value #NAME}), for
 * {@link io.partkit.stats.PlacementStatistics} and {@link io.partkit.stats.Movement}. Its
 * {@link HashSlots} scheme is a stand-in with the same partition count (Ignite's partitions are
 * equally likely for well-hashed keys, which is what the statistics assume): route keys with
 * {@link #partition(Object)}, not with {@link PartitionAssignment#partitionOf}.
 *
 * <p>It is deliberately not a registered partkit {@link io.partkit.spi.Partitioner}: Ignite's
 * function ignores zone labels and weights, which that contract requires a strategy to honor.
 *
 * <p>Immutable and thread-safe.
 */
public final class IgnitePlacement {

  /** Strategy name recorded on {@link #assignment assignments}. */
  public static final String NAME = "ignite-rendezvous";

  /** Ignite's default partition count ({@code RendezvousAffinityFunction.DFLT_PARTITION_COUNT}). */
  public static final int DEFAULT_PARTITIONS = 1024;

  /** Ignite's limit ({@code CacheConfiguration.MAX_PARTITIONS_COUNT}). */
  public static final int MAX_PARTITIONS = 65_000;

  /** Most backups accepted here (Ignite's REPLICATED mode, all nodes, is not modeled). */
  public static final int MAX_BACKUPS = 255;

  private final int partitions;
  private final int replicas;
  private final boolean excludeNeighbors;
  private final HashSlots scheme;

  private IgnitePlacement(int partitions, int backups, boolean excludeNeighbors) {
    this.partitions = partitions;
    this.replicas = backups + 1;
    this.excludeNeighbors = excludeNeighbors;
    this.scheme = HashSlots.of(partitions);
  }

  /**
   * Ignite's placement with {@code partitions} partitions and {@code backups} backups, without
   * neighbor exclusion (Ignite's defaults are 1024 and 0).
   *
   * @throws IllegalArgumentException if partitions is outside 1..{@value #MAX_PARTITIONS} or
   *     backups outside 0..{@value #MAX_BACKUPS}
   */
  public static IgnitePlacement of(int partitions, int backups) {
    if (partitions < 1 || partitions > MAX_PARTITIONS) {
      throw new IllegalArgumentException(
          "partitions must be in 1.." + MAX_PARTITIONS + ": " + partitions);
    }
    if (backups < 0 || backups > MAX_BACKUPS) {
      throw new IllegalArgumentException("backups must be in 0.." + MAX_BACKUPS + ": " + backups);
    }
    return new IgnitePlacement(partitions, backups, false);
  }

  /** This placement with Ignite's {@code excludeNeighbors} flag set as given. */
  public IgnitePlacement withExcludeNeighbors(boolean exclude) {
    return new IgnitePlacement(partitions, replicas - 1, exclude);
  }

  /**
   * Ignite's partition of a key for {@code partitions} partitions (see the class comment).
   *
   * @throws IllegalArgumentException if the key is null or partitions is not positive
   */
  public static int partition(Object key, int partitions) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
    int h = key.hashCode();
    if ((partitions & (partitions - 1)) == 0) {
      return (h ^ (h >>> 16)) & (partitions - 1);
    }
    // Ignite's U.safeAbs: Math.abs, with Integer.MIN_VALUE (unreachable for a remainder) as 0
    return Math.abs(h % partitions);
  }

  /** Ignite's partition of a key under this placement's partition count. */
  public int partition(Object key) {
    return partition(key, partitions);
  }

  /**
   * A node's rank score for a partition: lower ranks first. Thomas Wang's 64-bit mix of the
   * consistent id's hash code (low word) and the partition (high word), as in Ignite.
   */
  public static long score(String consistentId, int partition) {
    long key = (consistentId.hashCode() & 0xFFFFFFFFL) | ((long) partition << 32);
    key = (~key) + (key << 21);
    key ^= key >>> 24;
    key += (key << 3) + (key << 8);
    key ^= key >>> 14;
    key += (key << 2) + (key << 4);
    key ^= key >>> 28;
    key += key << 31;
    return key;
  }

  /**
   * The replicas Ignite assigns to {@code partition} on {@code view}, primary first.
   *
   * @throws IllegalArgumentException if the view is empty
   * @throws IndexOutOfBoundsException if the partition is outside 0..partitions-1
   */
  public List<NodeId> replicas(int partition, MembershipView view) {
    requireNonNull(view, "view");
    if (view.isEmpty()) {
      throw new IllegalArgumentException("the membership view must not be empty");
    }
    if (partition < 0 || partition >= partitions) {
      throw new IndexOutOfBoundsException(
          "partition must be in 0.." + (partitions - 1) + ": " + partition);
    }
    return List.of(rank(partition, view.members(), hosts(view.members())));
  }

  private NodeId[] rank(int partition, List<Member> members, String[] hosts) {
    int n = members.size();
    if (n == 1) {
      return new NodeId[] {members.get(0).id()};
    }
    // members are sorted by id, so a stable sort on the score breaks ties by id
    Integer[] order = new Integer[n];
    long[] scores = new long[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
      scores[i] = score(members.get(i).id().value(), partition);
    }
    Arrays.sort(order, (a, b) -> Long.compare(scores[a], scores[b]));
    int wanted = Math.min(replicas, n);
    List<Integer> chosen = new ArrayList<>(wanted);
    chosen.add(order[0]);
    if (!excludeNeighbors) {
      for (int k = 1; k < wanted; k++) {
        chosen.add(order[k]);
      }
    } else {
      Set<String> usedHosts = new HashSet<>();
      usedHosts.add(hosts[order[0]]);
      for (int k = 1; k < n && chosen.size() < wanted; k++) {
        if (usedHosts.add(hosts[order[k]])) {
          chosen.add(order[k]);
        }
      }
      // Ignite's second pass: not enough hosts, so fill up with the skipped nodes in rank order
      for (int k = 1; k < n && chosen.size() < wanted; k++) {
        if (!chosen.contains(order[k])) {
          chosen.add(order[k]);
        }
      }
    }
    NodeId[] result = new NodeId[chosen.size()];
    for (int r = 0; r < result.length; r++) {
      result[r] = members.get(chosen.get(r)).id();
    }
    return result;
  }

  /** A host key per member: the address's host part, or a key of its own when unknown. */
  private static String[] hosts(List<Member> members) {
    String[] hosts = new String[members.size()];
    for (int i = 0; i < hosts.length; i++) {
      String address = members.get(i).address();
      int colon = address.lastIndexOf(':');
      String host = colon < 0 ? address : address.substring(0, colon);
      // '\0' cannot occur in an address, so an id-based key never equals a real host
      hosts[i] = host.isEmpty() ? "\0" + members.get(i).id().value() : host;
    }
    return hosts;
  }

  /** Replicas per partition: backups + 1 (fewer when the cluster is smaller). */
  public int replicationFactor() {
    return replicas;
  }

  /** Ignite's partition count. */
  public int partitions() {
    return partitions;
  }

  /** Whether same-host nodes are kept apart (Ignite's {@code excludeNeighbors}). */
  public boolean excludeNeighbors() {
    return excludeNeighbors;
  }

  /**
   * Ignite's whole table for {@code view}, as a partkit assignment at epoch 1 (see the class
   * comment for its scheme).
   *
   * @throws IllegalArgumentException if the view is empty
   */
  public PartitionAssignment assignment(MembershipView view) {
    requireNonNull(view, "view");
    if (view.isEmpty()) {
      throw new IllegalArgumentException("the membership view must not be empty");
    }
    List<Member> members = view.members();
    String[] hosts = hosts(members);
    List<List<NodeId>> table = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      table.add(List.of(rank(p, members, hosts)));
    }
    return PartitionAssignment.of(NAME, 1, view.version(), scheme, table);
  }

  @Override
  public String toString() {
    return "IgnitePlacement{partitions=" + partitions + ", replicas=" + replicas
        + ", excludeNeighbors=" + excludeNeighbors + "}";
  }
}
