package io.partkit.harness.system;

import com.hazelcast.partition.PartitioningStrategy;
import io.partkit.backend.hazelcast.PartkitPartitioningStrategy;

/**
 * partkit's {@link PartkitPartitioningStrategy} (271 partitions) in the form a Hazelcast client
 * takes it: a class with a public no-argument constructor, named in the client property
 * {@code hazelcast.client.partitioning.strategy.class}. A client has no per-map partitioning
 * setting, and it is the client that picks the partition an operation goes to, so without this
 * the members' per-map strategy would never see a key written through a client.
 */
public final class HazelcastClientPartitioning implements PartitioningStrategy<Object> {

  private static final long serialVersionUID = 1L;
  private static final PartkitPartitioningStrategy STRATEGY = PartkitPartitioningStrategy.defaults();

  /** Instantiated by the Hazelcast client from its class name. */
  public HazelcastClientPartitioning() {}

  @Override
  public Object getPartitionKey(Object key) {
    return STRATEGY.getPartitionKey(key);
  }
}
