package io.partkit.coordinator;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The consistent core of the "Fixed Partitions" pattern: it owns membership and the partition
 * table, and is the only party that changes them.
 *
 * <h2>What every implementation guarantees</h2>
 * <ul>
 *   <li><b>Membership by heartbeat.</b> Members {@link #join} and then {@link #heartbeat}; one
 *       silent for longer than the configured timeout is marked failed and leaves the view.
 *       Time is injected, so failure detection is testable without sleeping.
 *   <li><b>No table before quorum.</b> Nothing is assigned until the view has the configured
 *       minimum number of members; {@link #rebalance()} before that fails with
 *       "not enough members: have N, need M".
 *   <li><b>Durable, linearizable, monotonic.</b> The table is stored in a linearizable store under
 *       an epoch that strictly increases with every committed change, by compare-and-set, so two
 *       racing coordinators never both commit over the same epoch and a table is never lost or
 *       rolled back across restarts.
 *   <li><b>Dry runs.</b> {@link #plan()} returns exactly what {@link #rebalance()} would do for
 *       the membership, and changes nothing (it does not show the rejoin of replicas that lost
 *       records, which needs the data plane's report: see {@link #rebalance()}).
 *   <li><b>Published.</b> Every committed table reaches {@link #watch} listeners in epoch order,
 *       so clients route from a cached table and only ask again when a node redirects them with a
 *       newer epoch.
 * </ul>
 */
public interface Coordinator extends AutoCloseable {

  /**
   * Adds a member, or renews one that re-registers under the same id (new address or weight).
   *
   * @return the membership after the change
   */
  MembershipView join(Member member);

  /**
   * Records that a member is alive.
   *
   * @throws IllegalStateException if the member is unknown or was already declared failed (it
   *     must {@link #join} again)
   */
  void heartbeat(NodeId member);

  /** Removes a member on its own request. */
  MembershipView leave(NodeId member);

  /** The live members now. */
  MembershipView membership();

  /** The committed table, once there is one. */
  Optional<PartitionAssignment> table();

  /**
   * What a rebalance would do now, without doing it.
   *
   * @throws IllegalStateException if there are fewer members than the minimum cluster size, or
   *     the strategy changes the partition scheme in a way the rebalance would refuse (one that
   *     is not a split, or any with a migration executor that does not split partitions)
   */
  RebalancePlan plan();

  /**
   * Computes and commits a new table for the current membership, running the migrations it
   * takes; returns the plan that was carried out. First, replicas that the migration executor
   * reports as having lost acknowledged records (when it has that ability, {@link
   * io.partkit.spi.MigrationExecutor.ReportsLostReplicas}) rejoin: their partitions move to the
   * same replicas with them last, committed like any plan; the plan returned is then the one for
   * the membership, or the rejoin's when that one changes nothing.
   *
   * @throws IllegalStateException if there are fewer members than the minimum cluster size
   */
  RebalancePlan rebalance();

  /**
   * Calls {@code listener} with the current table (if any) and then with every newly committed
   * table, in epoch order.
   *
   * @return a handle whose {@code close()} stops the notifications
   */
  AutoCloseable watch(Consumer<PartitionAssignment> listener);

  /** Releases resources; a leader steps down so that a standby can take over. */
  @Override
  void close();
}
