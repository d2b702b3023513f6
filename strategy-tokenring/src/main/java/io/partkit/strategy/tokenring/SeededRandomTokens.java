package io.partkit.strategy.tokenring;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.hash.KeyHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Seeded random tokens: each token is a pure function of (seed, node id, vnode index), so the
 * ring is a function of the membership alone and never depends on join order or history, like
 * Cassandra's random token choice ({@code Murmur3Partitioner.getRandomToken}) made repeatable.
 *
 * <h2>Persisted format</h2>
 * The token of vnode {@code v} (0-based, {@code 0 <= v < weight * vnodes}) of node {@code id} is
 * <pre>
 *   bytes = seed as 8 bytes big-endian || v as 4 bytes big-endian || UTF-8 bytes of id
 *   h     = MurmurHash3 x64_128, seed 0, first 64-bit word of bytes
 *           (KeyHash.MURMUR3_128, = Guava murmur3_128().asLong())
 *   token = h == Long.MIN_VALUE ? Long.MAX_VALUE : h
 *           (Cassandra never uses its minimum token)
 * </pre>
 * Two vnodes drawing the same token (about {@code T^2 / 2^65} for T tokens: 2^-29 at 256k
 * tokens) are resolved in a fixed order: entries sorted by (token, node id, vnode index), each
 * takes its token or, if taken, the next free value clockwise. A node that gains weight keeps its
 * tokens and gets the next vnode indexes; one that loses weight drops its highest indexes.
 *
 * <p>Balance is that of random vnodes: the spread of ownership falls like 1/sqrt(vnodes).
 */
final class SeededRandomTokens implements TokenChooser {

  private final long seed;

  SeededRandomTokens(long seed) {
    this.seed = seed;
  }

  @Override
  public String name() {
    return "random";
  }

  /** The token of one vnode, before collision resolution (see the class comment). */
  static long token(long seed, NodeId node, int vnode) {
    byte[] id = node.value().getBytes(StandardCharsets.UTF_8);
    byte[] bytes = ByteBuffer.allocate(12 + id.length).putLong(seed).putInt(vnode).put(id).array();
    long h = KeyHash.MURMUR3_128.hash(bytes);
    return h == Long.MIN_VALUE ? Long.MAX_VALUE : h;
  }

  private record Entry(long token, int member, int vnode) {}

  @Override
  public Ring choose(MembershipView view, int vnodes, Optional<Ring> previous) {
    int total = 0;
    for (Member m : view.members()) {
      total += m.weight() * vnodes;
    }
    long[] tokens = new long[total];
    int k = 0;
    for (Member m : view.members()) {
      for (int v = 0; v < m.weight() * vnodes; v++) {
        tokens[k++] = token(seed, m.id(), v);
      }
    }
    long[] sorted = tokens.clone();
    Arrays.sort(sorted);
    if (hasDuplicate(sorted)) {
      return withCollisionsResolved(view, tokens, vnodes);
    }
    NodeId[] owners = new NodeId[total];
    k = 0;
    for (Member m : view.members()) {
      for (int v = 0; v < m.weight() * vnodes; v++) {
        owners[Arrays.binarySearch(sorted, tokens[k++])] = m.id();
      }
    }
    return new Ring(sorted, owners);
  }

  private static boolean hasDuplicate(long[] sorted) {
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        return true;
      }
    }
    return false;
  }

  /**
   * Slow path, taken with probability about 2^-29 at 256k tokens: entries in (token, node id,
   * vnode) order each take the next free value clockwise.
   */
  static Ring withCollisionsResolved(MembershipView view, long[] tokens, int vnodes) {
    Entry[] entries = new Entry[tokens.length];
    int k = 0;
    for (int i = 0; i < view.size(); i++) {
      for (int v = 0; v < view.member(i).weight() * vnodes; v++) {
        entries[k] = new Entry(tokens[k], i, v);
        k++;
      }
    }
    // members are in id order, so (token, member index, vnode) is (token, node id, vnode)
    Arrays.sort(entries, Comparator.comparingLong(Entry::token)
        .thenComparingInt(Entry::member).thenComparingInt(Entry::vnode));
    TreeMap<Long, NodeId> ring = new TreeMap<>();
    for (Entry e : entries) {
      long t = e.token();
      while (ring.containsKey(t)) {
        t = t == Long.MAX_VALUE ? Long.MIN_VALUE + 1 : t + 1; // clockwise, skipping the minimum
      }
      ring.put(t, view.member(e.member()).id());
    }
    long[] sorted = new long[ring.size()];
    NodeId[] owners = new NodeId[ring.size()];
    k = 0;
    for (Map.Entry<Long, NodeId> e : ring.entrySet()) {
      sorted[k] = e.getKey();
      owners[k] = e.getValue();
      k++;
    }
    return new Ring(sorted, owners);
  }
}
