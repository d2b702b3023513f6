package io.partkit.backend.hazelcast;

import com.hazelcast.partition.PartitioningStrategy;
import io.partkit.spi.HashSlots;

/**
 * A Hazelcast {@link PartitioningStrategy} that puts each key in the partition partkit's stable
 * key hash chooses: {@code HashSlots(partitionCount, MURMUR3_128)} of the key's bytes (see
 * {@link io.partkit.spi.HashSlots} and {@link io.partkit.spi.hash.KeyHash}).
 *
 * <p>Hazelcast hashes whatever partition key a strategy returns again, so the strategy returns,
 * for partkit's partition {@code p}, the small {@code Integer} that Hazelcast maps to {@code p}
 * ({@link HazelcastPlacement#partitionKeyFor}). The result: Hazelcast's partition id equals
 * partkit's partition, for every key, on every member and client that uses this strategy.
 *
 * <p>Keys must be {@code String}, {@code Long}, {@code Integer} or {@code byte[]} (partkit's
 * stable encodings); others are rejected. Members and clients must use the same partition count
 * (Hazelcast's {@code hazelcast.partition.count}, 271 by default) and the same strategy: per map
 * on members ({@code MapConfig.setPartitioningStrategyConfig}); a client has no per-map setting
 * and takes it through the client property {@code hazelcast.partitioning.strategy.class}
 * ({@code ClientProperty.PARTITIONING_STRATEGY_CLASS}), which names a class with a public
 * no-argument constructor (the harness's {@code HazelcastClientPartitioning} is one).
 *
 * <pre>{@code
 * config.getMapConfig("users").setPartitioningStrategyConfig(
 *     new PartitioningStrategyConfig(PartkitPartitioningStrategy.of(271)));
 * }</pre>
 *
 * <p>Immutable, thread-safe and serializable (only the partition count travels).
 */
public final class PartkitPartitioningStrategy implements PartitioningStrategy<Object> {

  private static final long serialVersionUID = 1L;

  private final int partitionCount;
  private final transient HashSlots scheme;
  private final transient HazelcastPlacement placement;

  private PartkitPartitioningStrategy(int partitionCount) {
    this.partitionCount = partitionCount;
    this.placement = HazelcastPlacement.of(partitionCount);
    this.scheme = HashSlots.of(partitionCount);
  }

  /**
   * The strategy for a cluster with {@code partitionCount} partitions.
   *
   * @throws IllegalArgumentException if partitionCount is outside
   *     1..{@value HazelcastPlacement#MAX_PARTITION_COUNT}
   */
  public static PartkitPartitioningStrategy of(int partitionCount) {
    return new PartkitPartitioningStrategy(partitionCount);
  }

  /** The strategy for Hazelcast's default 271 partitions. */
  public static PartkitPartitioningStrategy defaults() {
    return of(HazelcastPlacement.DEFAULT_PARTITION_COUNT);
  }

  /**
   * The partition key Hazelcast hashes: an {@code Integer} that it maps to
   * {@link #partitionOf(Object) partkit's partition} of the key.
   *
   * @throws IllegalArgumentException if the key is not a String, Long, Integer or byte[]
   */
  @Override
  public Object getPartitionKey(Object key) {
    return placement.partitionKeyFor(partitionOf(key));
  }

  /**
   * partkit's partition of a key, which is also the Hazelcast partition id the key lands in.
   *
   * @throws IllegalArgumentException if the key is not a String, Long, Integer or byte[]
   */
  public int partitionOf(Object key) {
    return scheme.partitionOf(scheme.keyHash().hashObject(key));
  }

  /** The key -> partition scheme, for building partkit assignments over the same partitions. */
  public HashSlots scheme() {
    return scheme;
  }

  /** The partition count. */
  public int partitionCount() {
    return partitionCount;
  }

  private Object readResolve() {
    return of(partitionCount);
  }

  @Override
  public String toString() {
    return "PartkitPartitioningStrategy{partitionCount=" + partitionCount + "}";
  }
}
