package io.partkit.bench;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Cassandra-style random virtual nodes, the placement Cassandra used by default before 4.0's
 * token allocator: every member draws {@code vnodes x weight} uniformly random tokens (Cassandra
 * gives bigger machines a larger {@code num_tokens}), a key belongs to the first token at or after
 * its Cassandra Murmur3 token, and replicas are found by walking the ring clockwise to the next
 * distinct members ({@code SimpleStrategy}).
 *
 * <p>A member's tokens depend only on its id and the seed, so on a join every other member keeps
 * its tokens, as in Cassandra, and movement is exactly what random tokens cause. Expected spread:
 * about {@code 1/sqrt(vnodes)} (Dynamo paper; Cassandra's CASSANDRA-7032 measurements).
 */
final class VnodeSubject implements Subject {

  private final int vnodes;
  private final long seed;

  VnodeSubject(int vnodes, long seed) {
    if (vnodes < 1) {
      throw new IllegalArgumentException("vnodes must be >= 1: " + vnodes);
    }
    this.vnodes = vnodes;
    this.seed = seed;
  }

  @Override
  public String name() {
    return "cassandra-vnodes-" + vnodes;
  }

  @Override
  public String description() {
    return "Cassandra-style random tokens, num_tokens=" + vnodes
        + " x weight, Cassandra Murmur3 key tokens, SimpleStrategy ring walk";
  }

  @Override
  public Placement place(MembershipView view, int replicas, Optional<Placement> previous) {
    int total = 0;
    for (Member m : view.members()) {
      total += vnodes * m.weight();
    }
    long[] tokens = new long[total];
    int[] owner = new int[total];
    int k = 0;
    for (int i = 0; i < view.size(); i++) {
      Member m = view.member(i);
      SplittableRandom random = new SplittableRandom(seed ^ KeyHash.MURMUR3_128.hash(
          m.id().value().getBytes(StandardCharsets.UTF_8)));
      for (int t = 0; t < vnodes * m.weight(); t++) {
        tokens[k] = random.nextLong();
        owner[k] = i;
        k++;
      }
    }
    // sort tokens with their owners; drop the (astronomically rare) duplicate token
    Integer[] order = new Integer[total];
    for (int i = 0; i < total; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(tokens[a], tokens[b]));
    long[] sorted = new long[total];
    int[] sortedOwner = new int[total];
    int n = 0;
    for (int i = 0; i < total; i++) {
      long t = tokens[order[i]];
      if (n > 0 && sorted[n - 1] == t) {
        continue;
      }
      sorted[n] = t;
      sortedOwner[n] = owner[order[i]];
      n++;
    }
    sorted = Arrays.copyOf(sorted, n);
    int rf = Math.min(replicas, view.size());
    List<List<NodeId>> table = new ArrayList<>(n);
    NodeId[] chosen = new NodeId[rf];
    for (int p = 0; p < n; p++) {
      int found = 0;
      for (int step = 0; step < n && found < rf; step++) {
        NodeId candidate = view.member(sortedOwner[(p + step) % n]).id();
        boolean seen = false;
        for (int c = 0; c < found; c++) {
          seen |= chosen[c].equals(candidate);
        }
        if (!seen) {
          chosen[found++] = candidate;
        }
      }
      table.add(List.of(chosen.clone()));
    }
    PartitionAssignment assignment = PartitionAssignment.of(name(), 1, view.version(),
        TokenRanges.of(KeyHash.CASSANDRA_MURMUR3, sorted), table);
    return new AssignmentPlacement(view, assignment);
  }
}
