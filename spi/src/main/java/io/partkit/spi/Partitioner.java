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
 *       members (ids, weights, labels; never their order or addresses), the previous assignment
 *       and the replica count asked for, and nothing else: no clock, no unseeded randomness, no
 *       {@code Object.hashCode()}. Every node that runs it gets the same table, on any JVM, in any
 *       release (placement is a persisted format: a changed algorithm is a new strategy name or
 *       option, never an edit).
 *   <li><b>Thread-safe.</b> One instance may be shared by any number of threads.
 *   <li><b>Replicas distinct.</b> Each partition gets {@code min(replicas, members)} distinct
 *       members, primary first, on distinct zones (then racks) while labels allow.
 *   <li><b>Replicas per call.</b> {@code place(view, previous, r)} equals what an instance
 *       configured with {@code replicas = r} places: the configured {@code replicas} is only the
 *       default ({@link #replicationFactor()}), so a caller whose replica count comes from
 *       elsewhere (Ignite's cache backups) needs one instance, not one per count.
 *   <li><b>Minimal disruption.</b> Given a previous assignment, a strategy moves no more data than
 *       its documented bound; in particular on a join data moves only to the new member, and on a
 *       leave only off the leaving member (each strategy states where it deviates and why).
 *   <li><b>No epochs.</b> A strategy decides placement, never the table's version: {@link #place}
 *       returns epoch 0, and whoever publishes the table stamps it
 *       ({@link PartitionAssignment#withEpoch}): a coordinator with the epoch it commits, a
 *       caller without one through {@link #assign(MembershipView, Optional)}.
 * </ul>
 *
 * <p>The shape follows Ignite's {@code AffinityFunction} so that an adapter is thin:
 * {@link #fixedScheme()} gives its {@code partitions()} and {@code partition(key)} without
 * assigning, and {@link #place} its {@code assignPartitions(context)} over the sorted topology,
 * the previous assignment and {@code backups + 1}.
 */
public interface Partitioner {

  /** The most replicas per partition (primary included) any partkit strategy places. */
  int MAX_REPLICAS = 7;

  /** The strategy's registered name ({@code "fixed"}, {@code "tokenring"}, ...). */
  String name();

  /** The validated configuration this instance was created with. */
  PartitionerConfig config();

  /**
   * Replicas per partition (primary included) that {@link #assign(MembershipView, Optional)}
   * aims for: the {@code replicas} option, 1 when absent.
   */
  int replicationFactor();

  /**
   * Computes the placement for {@code view}: the table without an epoch.
   *
   * @param view the live members; must not be empty
   * @param previous the assignment in force, if any. A strategy keeps what it can of it to move
   *     little; a previous assignment it cannot build on (another strategy's, another partition
   *     count) is treated as absent. Its epoch plays no part.
   * @param replicas replicas per partition, primary included, in {@code 1..MAX_REPLICAS}; each
   *     partition gets {@code min(replicas, view.size())}
   * @return a new assignment at epoch 0, for the caller to stamp
   * @throws IllegalArgumentException if the view is empty or {@code replicas} is out of range
   */
  PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
      int replicas);

  /**
   * The next table for a caller that keeps no epochs of its own: {@link #place} with
   * {@link #replicationFactor()}, stamped {@code previous.epoch() + 1}, or 1 without a previous
   * assignment (also when the previous one cannot be built on: the version still grows). A
   * coordinator that numbers its commits calls {@link #place} and stamps its own epoch.
   *
   * @throws IllegalArgumentException if the view is empty
   */
  default PartitionAssignment assign(MembershipView view, Optional<PartitionAssignment> previous) {
    PartitionAssignment placed = place(view, previous, replicationFactor());
    // the one place a version is derived from a previous table; see "No epochs" above
    return placed.withEpoch(previous.map(a -> a.epoch() + 1).orElse(1L));
  }

  /** The first assignment for {@code view}: {@code assign(view, Optional.empty())}, epoch 1. */
  default PartitionAssignment assign(MembershipView view) {
    return assign(view, Optional.empty());
  }

  /**
   * The key -> partition scheme when it is fixed by configuration, independent of membership
   * (fixed and rendezvous strategies: every assignment they return has this scheme); empty when
   * it follows membership (a token ring has one partition per token). A caller that must route
   * keys or announce a partition count before any assignment exists, like Ignite's
   * {@code AffinityFunction.partition(key)} and {@code partitions()}, needs a strategy that has
   * one.
   */
  default Optional<PartitionScheme> fixedScheme() {
    return Optional.empty();
  }

  /** {@link #fixedScheme()}'s partition count, when there is a fixed scheme. */
  default OptionalInt fixedPartitionCount() {
    Optional<PartitionScheme> scheme = fixedScheme();
    return scheme.isPresent() ? OptionalInt.of(scheme.get().partitionCount()) : OptionalInt.empty();
  }
}
