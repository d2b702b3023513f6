package io.partkit.bench;

import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.impl.MemberImpl;
import com.hazelcast.internal.partition.InternalPartition;
import com.hazelcast.internal.partition.PartitionReplica;
import com.hazelcast.internal.partition.PartitionStateGenerator;
import com.hazelcast.internal.partition.impl.InternalPartitionImpl;
import com.hazelcast.internal.partition.membergroup.SingleMemberGroup;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.internal.util.HashUtil;
import com.hazelcast.spi.partitiongroup.MemberGroup;
import com.hazelcast.version.MemberVersion;
import io.partkit.spi.MembershipView;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Hazelcast 5.x's placement without running members, for every cluster size: key -> partition is
 * the real one (the key serialized by Hazelcast's serializer, its partition hash, then
 * {@code HashUtil.hashToIndex}); partition -> member is Hazelcast's own
 * {@code PartitionStateGeneratorImpl.arrange}, the code the master runs on every membership change,
 * fed the previous table with departed members removed (what {@code removeUnknownAndLiteMembers}
 * leaves it before repartitioning). {@link HazelcastMembersSubject} checks it on real members.
 *
 * <p>Hazelcast has no member weights; replica {@code i} is replica index {@code i} of the table.
 */
final class HazelcastSubject implements Subject {

  static final MemberVersion VERSION = MemberVersion.of("5.7.0");

  private final int partitions;
  private final TablePlacement.KeyPartitioner keyPartitioner;
  private final SerializationService serialization;
  /**
   * A member keeps its address across views: Hazelcast identifies a replica by address and UUID,
   * so deriving the port from the position in the view would turn every member after a leaver
   * into a stranger.
   */
  private final Map<String, Integer> ports = new HashMap<>();

  HazelcastSubject(int partitions) {
    this.partitions = partitions;
    this.serialization = new DefaultSerializationServiceBuilder().build();
    this.keyPartitioner = new TablePlacement.KeyPartitioner(this::partitionOf);
  }

  /** Hazelcast's key -> partition: serializer, partition hash, hashToIndex. */
  int partitionOf(Object key) {
    return HashUtil.hashToIndex(serialization.toData(key).getPartitionHash(), partitions);
  }

  TablePlacement.KeyPartitioner keyPartitioner() {
    return keyPartitioner;
  }

  @Override
  public String name() {
    return "hazelcast";
  }

  @Override
  public String description() {
    return "Hazelcast 5.7 key -> partition (serializer + hashToIndex), " + partitions
        + " partitions; partition -> member by PartitionStateGeneratorImpl, no members running";
  }

  @Override
  public Optional<String> unsupported(int nodes, Weights weights, int replicas) {
    return weights == Weights.EQUAL ? Optional.empty()
        : Optional.of("Hazelcast has no member weights");
  }

  @Override
  public synchronized Placement place(MembershipView view, int replicas,
      Optional<Placement> previous) {
    List<MemberGroup> groups = new ArrayList<>(view.size());
    Map<UUID, Integer> index = new HashMap<>();
    for (int i = 0; i < view.size(); i++) {
      String id = view.member(i).id().value();
      Member member = member(id, ports.computeIfAbsent(id, k -> 5701 + ports.size()));
      groups.add(new SingleMemberGroup(member));
      index.put(member.getUuid(), i);
    }
    InternalPartition[] current = null;
    if (previous.isPresent() && previous.get() instanceof HazelcastTable before) {
      current = new InternalPartition[partitions];
      for (int p = 0; p < partitions; p++) {
        PartitionReplica[] kept = before.replicas[p].clone();
        for (int r = 0; r < kept.length; r++) {
          if (kept[r] != null && !index.containsKey(kept[r].uuid())) {
            kept[r] = null;
          }
        }
        current[p] = new InternalPartitionImpl(p, null, kept, 1, null);
      }
    }
    if (current == null) {
      current = new InternalPartition[partitions];
      for (int p = 0; p < partitions; p++) {
        current[p] = new InternalPartitionImpl(p, null,
            new PartitionReplica[InternalPartition.MAX_REPLICA_COUNT], 0, null);
      }
    }
    PartitionReplica[][] arranged = generator().arrange(groups, current);
    return HazelcastTable.of(view, partitions, replicas, arranged, index, keyPartitioner,
        this::partitionOf);
  }

  /**
   * Hazelcast's own generator. The class is package-private in Hazelcast (only its interface is
   * public), so it is instantiated reflectively; on the class path that needs no JVM flag.
   */
  static PartitionStateGenerator generator() {
    try {
      var constructor = Class.forName(
          "com.hazelcast.internal.partition.impl.PartitionStateGeneratorImpl")
          .getDeclaredConstructor();
      constructor.setAccessible(true);
      return (PartitionStateGenerator) constructor.newInstance();
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("cannot create Hazelcast's PartitionStateGeneratorImpl", e);
    }
  }

  /** A member with the given port and a UUID derived from its partkit id. */
  static Member member(String id, int port) {
    try {
      return new MemberImpl(new Address("127.0.0.1", port), VERSION, false,
          UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8)));
    } catch (UnknownHostException e) {
      throw new IllegalStateException("127.0.0.1 does not resolve", e);
    }
  }

  /** A Hazelcast partition table as a placement; keeps the raw replicas for the next arrange. */
  static final class HazelcastTable implements Placement {
    final PartitionReplica[][] replicas;
    private final TablePlacement delegate;

    private HazelcastTable(PartitionReplica[][] replicas, TablePlacement delegate) {
      this.replicas = replicas;
      this.delegate = delegate;
    }

    static HazelcastTable of(MembershipView view, int partitions, int replicas,
        PartitionReplica[][] arranged, Map<UUID, Integer> index,
        TablePlacement.KeyPartitioner keyPartitioner, java.util.function.ToIntFunction<Object> f) {
      int rf = Math.min(replicas, view.size());
      int[] table = new int[partitions * rf];
      Object[] primaries = new Object[partitions];
      for (int p = 0; p < partitions; p++) {
        for (int r = 0; r < rf; r++) {
          PartitionReplica replica = arranged[p][r];
          if (replica == null) {
            throw new IllegalStateException("Hazelcast left replica " + r + " of partition " + p
                + " unassigned with " + view.size() + " members");
          }
          table[p * rf + r] = index.get(replica.uuid());
        }
        primaries[p] = arranged[p][0];
      }
      return new HazelcastTable(arranged, new TablePlacement(view, partitions, rf, table,
          keyPartitioner, key -> primaries[f.applyAsInt(key)]));
    }

    @Override
    public MembershipView view() {
      return delegate.view();
    }

    @Override
    public int replicationFactor() {
      return delegate.replicationFactor();
    }

    @Override
    public int partitionCount() {
      return delegate.partitionCount();
    }

    @Override
    public int replica(int partition, int rank) {
      return delegate.replica(partition, rank);
    }

    @Override
    public int[] partitionsOf(long[] keys) {
      return delegate.partitionsOf(keys);
    }

    @Override
    public Optional<io.partkit.spi.PartitionAssignment> exact() {
      return Optional.empty();
    }

    @Override
    public Lookup lookup() {
      return delegate.lookup();
    }
  }
}
