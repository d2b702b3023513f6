package io.partkit.bench;

import com.google.common.hash.Hashing;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.hash.KeyHash;
import java.util.Optional;

/**
 * Guava's {@code Hashing.consistentHash} (Lamping and Veach's jump consistent hash, 2014) over the
 * key's Murmur3 hash: the buckets-only reference. It maps keys to bucket numbers, not to named
 * members: it has no weights and no replicas, and only the highest bucket can leave, which is
 * why the report measures its leave as "the last member leaves".
 */
final class JumpHashSubject implements Subject {

  @Override
  public String name() {
    return "guava-jump";
  }

  @Override
  public String description() {
    return "Guava Hashing.consistentHash (jump hash) over Murmur3 x64_128 of the key; buckets only";
  }

  @Override
  public Optional<String> unsupported(int nodes, Weights weights, int replicas) {
    if (weights != Weights.EQUAL) {
      return Optional.of("jump hash has no weights");
    }
    if (replicas > 1) {
      return Optional.of("jump hash has no replicas");
    }
    return Optional.empty();
  }

  @Override
  public boolean leavesLast() {
    return true;
  }

  @Override
  public Placement place(MembershipView view, int replicas, Optional<Placement> previous) {
    return new JumpPlacement(view);
  }

  private static final class JumpPlacement implements Placement {
    private final MembershipView view;
    private final NodeId[] buckets;

    JumpPlacement(MembershipView view) {
      this.view = view;
      this.buckets = view.ids().toArray(NodeId[]::new);
    }

    @Override
    public MembershipView view() {
      return view;
    }

    @Override
    public int replicationFactor() {
      return 1;
    }

    @Override
    public int partitionCount() {
      return buckets.length;
    }

    @Override
    public int replica(int partition, int rank) {
      return partition;
    }

    @Override
    public int[] partitionsOf(long[] keys) {
      int[] out = new int[keys.length];
      for (int i = 0; i < keys.length; i++) {
        out[i] = Hashing.consistentHash(KeyHash.MURMUR3_128.hashLong(keys[i]), buckets.length);
      }
      return out;
    }

    @Override
    public Optional<PartitionAssignment> exact() {
      return Optional.empty();
    }

    @Override
    public Lookup lookup() {
      NodeId[] b = buckets;
      return key -> b[Hashing.consistentHash(KeyHash.MURMUR3_128.hashLong(key), b.length)];
    }
  }
}
