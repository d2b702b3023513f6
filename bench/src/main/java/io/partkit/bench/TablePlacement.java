package io.partkit.bench;

import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import java.util.Optional;
import java.util.function.ToIntFunction;

/**
 * A placement over a native system's fixed partitions: a membership-independent key -> partition
 * function (the real library's) and a replica table of member indices. Ownership is sampled
 * through the key -> partition function, which is computed once per sample and reused for every
 * view, since it does not depend on membership.
 */
final class TablePlacement implements Placement {

  /** A membership-independent key -> partition function that remembers its last sample. */
  static final class KeyPartitioner {
    private final ToIntFunction<Long> function;
    private long[] lastKeys;
    private int[] lastPartitions;

    KeyPartitioner(ToIntFunction<Long> function) {
      this.function = function;
    }

    synchronized int[] partitionsOf(long[] keys) {
      if (keys != lastKeys) {
        int[] out = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
          out[i] = function.applyAsInt(keys[i]);
        }
        lastKeys = keys;
        lastPartitions = out;
      }
      return lastPartitions;
    }
  }

  private final MembershipView view;
  private final int partitions;
  private final int replicas;
  private final int[] table;
  private final KeyPartitioner keyPartitioner;
  private final Lookup lookup;

  /**
   * @param table {@code table[p * replicas + r]}: member index of replica r of partition p
   */
  TablePlacement(MembershipView view, int partitions, int replicas, int[] table,
      KeyPartitioner keyPartitioner, Lookup lookup) {
    this.view = view;
    this.partitions = partitions;
    this.replicas = replicas;
    this.table = table;
    this.keyPartitioner = keyPartitioner;
    this.lookup = lookup;
  }

  @Override
  public MembershipView view() {
    return view;
  }

  @Override
  public int replicationFactor() {
    return replicas;
  }

  @Override
  public int partitionCount() {
    return partitions;
  }

  @Override
  public int replica(int partition, int rank) {
    return table[partition * replicas + rank];
  }

  @Override
  public int[] partitionsOf(long[] keys) {
    return keyPartitioner.partitionsOf(keys);
  }

  @Override
  public Optional<PartitionAssignment> exact() {
    return Optional.empty();
  }

  @Override
  public Lookup lookup() {
    return lookup;
  }
}
