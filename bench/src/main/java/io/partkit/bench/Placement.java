package io.partkit.bench;

import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import java.util.Optional;

/**
 * One subject's placement for one membership view, in the one shape the harness measures: keys
 * map to partitions (or ranges, or buckets) and partitions to ordered replicas, given as indices
 * into {@link #view()}'s members.
 */
interface Placement {

  /** The members the placement was computed for. */
  MembershipView view();

  /** Replicas per partition (primary first). */
  int replicationFactor();

  /** Number of partitions, token ranges or buckets. */
  int partitionCount();

  /** Replica {@code rank} of {@code partition}, as an index into {@link #view()}'s members. */
  int replica(int partition, int rank);

  /**
   * The partition of each key, in the subject's real key -> partition function. Subjects whose
   * key -> partition mapping does not depend on membership may cache the answer per array.
   */
  int[] partitionsOf(long[] keys);

  /**
   * The exact placement when the subject's key space is a partkit {@code PartitionScheme} (hash
   * ranges), so ownership and movement can be computed exactly instead of sampled.
   */
  Optional<PartitionAssignment> exact();

  /** The lookup a client does on the hot path: key -> primary owner, in the subject's own types. */
  Lookup lookup();
}
