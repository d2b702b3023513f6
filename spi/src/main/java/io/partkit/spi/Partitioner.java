package io.partkit.spi;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * A partitioning strategy: from a membership view (and the assignment in force) to the next
 * {@link PartitionAssignment}.
 *
 * <h2>What every implementation guarantees</h2>
 * <ul>
 *   <li><b>Pure and deterministic.</b> The output is a function of the configuration, the view's
 *       members (ids, weights, labels; never their order or addresses) and the previous
 *       assignment, and nothing else: no clock, no unseeded randomness, no
 *       {@code Object.hashCode()}. Every node that runs it gets the same table, on any JVM, in any
 *       release (placement is a persisted format: a changed algorithm is a new strategy name or
 *       option, never an edit).
 *   <li><b>Thread-safe.</b> One instance may be shared by any number of threads.
 *   <li><b>Replicas distinct.</b> Each partition gets {@code min(replicationFactor(), members)}
 *       distinct members, primary first, on distinct zones (then racks) while labels allow.
 *   <li><b>Minimal disruption.</b> Given a previous assignment, a strategy moves no more data than
 *       its documented bound; in particular on a join data moves only to the new member, and on a
 *       leave only off the leaving member (each strategy states where it deviates and why).
 * </ul>
 *
 * <p>The shape follows Ignite's {@code AffinityFunction} so that an adapter is thin:
 * {@link #fixedPartitionCount()} is its {@code partitions()}, {@link PartitionAssignment#partitionOf}
 * its {@code partition(key)}, and {@link #assign(MembershipView, Optional)} its
 * {@code assignPartitions(context)} over the sorted topology and the previous assignment.
 */
public interface Partitioner {

  /** The strategy's registered name ({@code "fixed"}, {@code "tokenring"}, ...). */
  String name();

  /** The validated configuration this instance was created with. */
  PartitionerConfig config();

  /** Replicas per partition that this instance aims for (primary included). */
  int replicationFactor();

  /**
   * Computes the assignment for {@code view}.
   *
   * @param view the live members; must not be empty
   * @param previous the assignment in force, if any. A strategy keeps what it can of it to move
   *     little; a previous assignment it cannot build on (another strategy's, another partition
   *     count) is treated as absent.
   * @return a new assignment with epoch {@code previous.epoch() + 1}, or 1 without a previous one
   * @throws IllegalArgumentException if the view is empty
   */
  PartitionAssignment assign(MembershipView view, Optional<PartitionAssignment> previous);

  /** The first assignment for {@code view}: {@code assign(view, Optional.empty())}. */
  default PartitionAssignment assign(MembershipView view) {
    return assign(view, Optional.empty());
  }

  /**
   * The partition count when it is fixed by configuration, independent of membership (fixed and
   * rendezvous strategies); empty when it follows membership (a token ring has one partition per
   * token). Adapters that must announce a partition count up front, like Ignite's
   * {@code AffinityFunction.partitions()}, need a strategy that has one.
   */
  default OptionalInt fixedPartitionCount() {
    return OptionalInt.empty();
  }
}
