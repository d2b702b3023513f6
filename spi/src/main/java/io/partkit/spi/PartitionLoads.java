package io.partkit.spi;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * The measured load of every partition of one table: what a store reports and what load-aware
 * planning (rebalancing, range splits) reads. Counts of partitions per node say nothing about a
 * partition that takes most of the traffic; this does.
 *
 * <p>A load is a non-negative, finite, dimensionless number whose meaning the source states
 * (operations per second, bytes, or a weighted mix of them): a planner only adds and compares
 * loads, so all loads of one instance must be in the same unit. The loads are tied to the
 * {@link #epoch()} of the table they were measured under, because partition numbers mean nothing
 * across a scheme change (a split renumbers partitions).
 *
 * <p>Immutable and thread-safe.
 */
public final class PartitionLoads {

  private final long epoch;
  private final double[] loads;
  private final double total;

  private PartitionLoads(long epoch, double[] loads) {
    this.epoch = epoch;
    this.loads = loads;
    double sum = 0;
    for (double load : loads) {
      sum += load;
    }
    this.total = sum;
  }

  /**
   * Loads measured under the table of {@code epoch}, partition {@code p}'s at index {@code p}.
   *
   * @throws IllegalArgumentException if there are no partitions, or a load is negative, NaN or
   *     infinite (the message names the partition)
   */
  public static PartitionLoads of(long epoch, double[] loads) {
    requireNonNull(loads, "loads");
    if (loads.length == 0) {
      throw new IllegalArgumentException("partition loads: expected at least one partition");
    }
    double[] copy = loads.clone();
    for (int p = 0; p < copy.length; p++) {
      if (!(copy[p] >= 0) || Double.isInfinite(copy[p])) {
        throw new IllegalArgumentException("partition loads: partition " + p + " has load "
            + copy[p] + "; expected a finite number >= 0");
      }
    }
    return new PartitionLoads(epoch, copy);
  }

  /** Every partition of {@code partitionCount} with load 1: what counting partitions assumes. */
  public static PartitionLoads uniform(long epoch, int partitionCount) {
    if (partitionCount < 1) {
      throw new IllegalArgumentException(
          "partition loads: expected at least one partition, got " + partitionCount);
    }
    double[] ones = new double[partitionCount];
    Arrays.fill(ones, 1.0);
    return new PartitionLoads(epoch, ones);
  }

  /** The epoch of the table these loads were measured under. */
  public long epoch() {
    return epoch;
  }

  public int partitionCount() {
    return loads.length;
  }

  /**
   * @throws IndexOutOfBoundsException if {@code partition} is not in {@code 0..count-1}
   */
  public double load(int partition) {
    if (partition < 0 || partition >= loads.length) {
      throw new IndexOutOfBoundsException(
          "partition must be in 0.." + (loads.length - 1) + ": " + partition);
    }
    return loads[partition];
  }

  /** The sum of all partitions' loads. */
  public double total() {
    return total;
  }

  /** Whether these loads describe {@code table}: same epoch and same partition count. */
  public boolean describes(PartitionAssignment table) {
    return table.epoch() == epoch && table.partitionCount() == loads.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionLoads other && other.epoch == epoch
        && Arrays.equals(other.loads, loads);
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(epoch) + Arrays.hashCode(loads);
  }

  @Override
  public String toString() {
    return "PartitionLoads{epoch=" + epoch + ", partitions=" + loads.length + ", total=" + total
        + "}";
  }
}
