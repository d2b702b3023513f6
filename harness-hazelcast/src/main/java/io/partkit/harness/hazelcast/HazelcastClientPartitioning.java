package io.partkit.harness.hazelcast;

import com.hazelcast.partition.PartitioningStrategy;
import io.partkit.backend.hazelcast.PartkitPartitioningStrategy;

/**
 * partkit's {@link PartkitPartitioningStrategy} (271 partitions) in the form a Hazelcast client
 * takes it: a class with a public no-argument constructor, named in the client property
 * {@code hazelcast.partitioning.strategy.class}
 * ({@code ClientProperty.PARTITIONING_STRATEGY_CLASS}; not
 * {@code hazelcast.client.partitioning.strategy.class}, which 5.7 ignores).
 * A client has no per-map partitioning setting, and it is the client that picks the partition an
 * operation goes to, so without this the members' per-map strategy never sees a key written
 * through a client: the keys land in Hazelcast's own partitions (the placement check catches it).
 */
public final class HazelcastClientPartitioning implements PartitioningStrategy<Object> {

  private static final long serialVersionUID = 1L;
  private static final PartkitPartitioningStrategy STRATEGY =
      PartkitPartitioningStrategy.defaults();

  /** Instantiated by the Hazelcast client from its class name. */
  public HazelcastClientPartitioning() {}

  @Override
  public Object getPartitionKey(Object key) {
    return STRATEGY.getPartitionKey(key);
  }
}
