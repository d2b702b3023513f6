package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.hash.KeyHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * An immutable, versioned placement: key -> partition ({@link PartitionScheme}) -> ordered
 * replicas, primary first. It is what a {@link Partitioner} computes, what a coordinator
 * stores under an epoch and publishes, and what clients route with.
 *
 * <p>Lookups ({@link #partitionOf}, {@link #primary}, {@link #primaryOf}, {@link #replicas}) are
 * thread-safe and allocate nothing ({@code String} keys aside, see
 * {@link io.partkit.spi.hash.KeyHash}): one hash, one reduction or ring-index read, one array read.
 * Replica lists are built once, when the assignment is.
 *
 * <p>Every partition has the same number of replicas, {@link #replicationFactor()}, all distinct.
 */
public final class PartitionAssignment {

  private final String strategy;
  private final long epoch;
  private final long membershipVersion;
  private final PartitionScheme scheme;
  private final NodeId[] nodes;
  private final int replicationFactor;
  /** {@code table[p * replicationFactor + r]}: index into {@link #nodes} of replica r of p. */
  private final int[] table;
  private final NodeId[] primaries;
  private final List<List<NodeId>> replicaLists;
  /**
   * For a token ring: an index from hash straight to the primary's index in {@link #nodes}, so
   * most lookups read one entry of it and the small {@code nodes} array, rather than a
   * partition and then the primary of that partition (a second read, cache-missing on large
   * rings); null for hash slots.
   */
  private final RingIndex ring;
  /**
   * The lookup path, flattened out of the scheme: the key hash and, for hash slots, the slot
   * count (0 for a ring). The hot path then reads final fields of this object and one array
   * element, with no call through the {@link PartitionScheme} interface.
   */
  private final KeyHash keyHash;
  private final long slotCount;
  /** The scheme when it is key ranges, routed by the keys' bytes; null otherwise. */
  private final KeyRanges ranges;

  private PartitionAssignment(String strategy, long epoch, long membershipVersion,
      PartitionScheme scheme, NodeId[] nodes, int replicationFactor, int[] table,
      RingIndex ring) {
    this.strategy = strategy;
    this.epoch = epoch;
    this.membershipVersion = membershipVersion;
    this.scheme = scheme;
    this.nodes = nodes;
    this.replicationFactor = replicationFactor;
    this.table = table;
    int partitions = scheme.partitionCount();
    this.primaries = new NodeId[partitions];
    List<List<NodeId>> lists = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      NodeId[] replicas = new NodeId[replicationFactor];
      for (int r = 0; r < replicationFactor; r++) {
        replicas[r] = nodes[table[p * replicationFactor + r]];
      }
      primaries[p] = replicas[0];
      lists.add(List.of(replicas));
    }
    this.replicaLists = List.copyOf(lists);
    this.keyHash = scheme.keyHash();
    this.slotCount = scheme instanceof HashSlots slots ? slots.count() : 0;
    this.ranges = scheme instanceof KeyRanges r ? r : null;
    if (ring == null && scheme instanceof TokenRanges t) {
      int[] primaryNode = new int[partitions];
      for (int p = 0; p < partitions; p++) {
        primaryNode[p] = table[p * replicationFactor];
      }
      ring = new RingIndex(t.tokensShared(), primaryNode);
    }
    this.ring = ring;
  }

  /**
   * An assignment from replica lists, one per partition in partition order.
   *
   * @param strategy name of the strategy that computed it (recorded, not interpreted)
   * @param epoch version of the table; a coordinator makes it strictly increasing, >= 0
   * @param membershipVersion version of the {@link MembershipView} it was computed from
   * @param scheme how keys map to partitions
   * @param replicas for each partition, its replicas, primary first; all lists the same size
   *     (at least one), no node twice in one list
   * @throws IllegalArgumentException naming the first offending partition when the lists do not
   *     match the scheme's partition count, differ in size, are empty or repeat a node
   */
  public static PartitionAssignment of(String strategy, long epoch, long membershipVersion,
      PartitionScheme scheme, List<? extends List<NodeId>> replicas) {
    requireNonNull(strategy, "strategy");
    requireNonNull(scheme, "scheme");
    requireNonNull(replicas, "replicas");
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
    }
    int partitions = scheme.partitionCount();
    if (replicas.size() != partitions) {
      throw new IllegalArgumentException("expected replicas for " + partitions
          + " partitions, got " + replicas.size());
    }
    int rf = replicas.get(0).size();
    if (rf < 1) {
      throw new IllegalArgumentException("partition 0 has no replicas");
    }
    // Index nodes in first-seen order, then renumber in id order: one hash lookup per replica
    // rather than a sorted-set insertion, which matters for rings of 10^5..10^6 ranges.
    HashMap<NodeId, Integer> firstSeen = new HashMap<>();
    List<NodeId> distinct = new ArrayList<>();
    int[] table = new int[partitions * rf];
    for (int p = 0; p < partitions; p++) {
      List<NodeId> list = replicas.get(p);
      if (list.size() != rf) {
        throw new IllegalArgumentException("partition " + p + " has " + list.size()
            + " replicas, expected " + rf + " like partition 0");
      }
      for (int r = 0; r < rf; r++) {
        NodeId node = requireNonNull(list.get(r), "replica");
        for (int earlier = 0; earlier < r; earlier++) {
          if (list.get(earlier).equals(node)) {
            throw new IllegalArgumentException(
                "partition " + p + " lists node " + node + " twice: " + list);
          }
        }
        Integer index = firstSeen.get(node);
        if (index == null) {
          index = distinct.size();
          firstSeen.put(node, index);
          distinct.add(node);
        }
        table[p * rf + r] = index;
      }
    }
    NodeId[] nodes = distinct.toArray(NodeId[]::new);
    Arrays.sort(nodes);
    int[] renumber = new int[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      renumber[firstSeen.get(nodes[i])] = i;
    }
    for (int i = 0; i < table.length; i++) {
      table[i] = renumber[table[i]];
    }
    return new PartitionAssignment(strategy, epoch, membershipVersion, scheme, nodes, rf, table,
        null);
  }

  /** Name of the strategy that computed this assignment. */
  public String strategy() {
    return strategy;
  }

  /** The table's version: strictly increasing across the tables a coordinator commits. */
  public long epoch() {
    return epoch;
  }

  /** Version of the membership view this was computed from. */
  public long membershipVersion() {
    return membershipVersion;
  }

  /** How keys map to partitions. */
  public PartitionScheme scheme() {
    return scheme;
  }

  /** Number of partitions. */
  public int partitionCount() {
    return scheme.partitionCount();
  }

  /** Replicas per partition (primary included). */
  public int replicationFactor() {
    return replicationFactor;
  }

  /** Every node that holds at least one replica, sorted. */
  public List<NodeId> nodes() {
    return List.of(nodes);
  }

  /** The partition of a key given as bytes (exact for every scheme, key ranges included). */
  public int partitionOf(byte[] key) {
    return scheme.partitionOfKey(key);
  }

  /** The partition of a {@code long} key (its 8 big-endian bytes). */
  public int partitionOf(long key) {
    return scheme.partitionOfLongKey(key);
  }

  /** The partition of a {@code String} key (its UTF-8 bytes). */
  public int partitionOf(String key) {
    return scheme.partitionOfKey(requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8));
  }

  /** The partition of a key whose hash, by the scheme's key hash, is known. */
  public int partitionOfHash(long hash) {
    return scheme.partitionOf(hash);
  }

  /** The primary owner of a partition. */
  public NodeId primary(int partition) {
    return primaries[partition];
  }

  /** The replicas of a partition, primary first, unmodifiable. */
  public List<NodeId> replicas(int partition) {
    return replicaLists.get(partition);
  }

  /** Replica {@code rank} (0 = primary) of a partition. */
  public NodeId replica(int partition, int rank) {
    return nodes[table[partition * replicationFactor + rank]];
  }

  /** The primary owner of a key given as bytes. */
  public NodeId primaryOf(byte[] key) {
    if (ranges != null) {
      return primaries[ranges.partitionOfKey(key)]; // by the key's bytes, not its projection
    }
    return primaryOfHash(keyHash.hash(key));
  }

  /** The primary owner of a {@code long} key. */
  public NodeId primaryOf(long key) {
    if (ranges != null) {
      return primaries[ranges.partitionOfLongKey(key)];
    }
    return primaryOfHash(keyHash.hashLong(key));
  }

  /** The primary owner of a {@code String} key. */
  public NodeId primaryOf(String key) {
    if (ranges != null) {
      return primaries[partitionOf(key)];
    }
    return primaryOfHash(keyHash.hash(key));
  }

  /**
   * The primary owner of a key whose hash, by the scheme's key hash, is known (for
   * {@link KeyRanges}, its projection: see there for where that is not exact).
   */
  public NodeId primaryOfHash(long hash) {
    if (slotCount != 0) {
      // HashSlots.partitionOf without the call through the PartitionScheme interface, which
      // measured ~0.5 ns of a ~4.5 ns lookup (JMH, LookupBenchmark, fixed at 1000 nodes)
      return primaries[HashSlots.slotOf(hash, slotCount)];
    }
    if (ring != null) {
      return nodes[ring.valueOf(hash)];
    }
    return primaries[scheme.partitionOf(hash)]; // key ranges
  }


  /** The partitions whose primary is {@code node}, ascending. */
  public int[] primaryPartitionsOf(NodeId node) {
    return java.util.stream.IntStream.range(0, primaries.length)
        .filter(p -> primaries[p].equals(node)).toArray();
  }

  /** The same placement under another epoch (a coordinator stamps the epoch it commits). */
  public PartitionAssignment withEpoch(long newEpoch) {
    if (newEpoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0: " + newEpoch);
    }
    return new PartitionAssignment(strategy, newEpoch, membershipVersion, scheme, nodes,
        replicationFactor, table, ring);
  }

  /** True when both map every key to the same replicas in the same order (epochs aside). */
  public boolean samePlacementAs(PartitionAssignment other) {
    return scheme.equals(other.scheme) && replicaLists.equals(other.replicaLists);
  }

  /** Per partition, its replica list (a copy of the table as lists). */
  public List<List<NodeId>> replicaTable() {
    return replicaLists;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionAssignment other && epoch == other.epoch
        && membershipVersion == other.membershipVersion && strategy.equals(other.strategy)
        && samePlacementAs(other);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(epoch) * 31 + scheme.hashCode() * 17 + Arrays.hashCode(table);
  }

  @Override
  public String toString() {
    return "PartitionAssignment{strategy=" + strategy + ", epoch=" + epoch + ", partitions="
        + partitionCount() + ", replicationFactor=" + replicationFactor + ", nodes="
        + nodes.length + "}";
  }
}
