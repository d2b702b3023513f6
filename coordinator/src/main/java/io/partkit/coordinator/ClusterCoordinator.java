package io.partkit.coordinator;

import io.partkit.spi.NodeId;
import java.util.List;

/**
 * partkit's {@link Coordinator}, with the operations an operator or a test needs beyond the SPI.
 * Built by {@link Coordinators#builder()}.
 *
 * <p>Failure detection runs on the injected clock: every operation first calls
 * {@link #checkFailures()}, so a test advances its clock and reads {@link #membership()} instead
 * of sleeping; a server calls {@code checkFailures()} from a timer.
 */
public interface ClusterCoordinator extends Coordinator {

  /**
   * Declares failed every member whose last heartbeat is older than the heartbeat timeout by the
   * injected clock, removes it, and (with auto-rebalance, on the leader) rebalances.
   *
   * @return the members declared failed by this call, sorted
   */
  List<NodeId> checkFailures();

  /**
   * Completes or rolls back the migrations a previous leader left pending, then commits what
   * completed and activates the committed table ({@link
   * io.partkit.spi.MigrationExecutor#activate}); with nothing pending, activates the committed
   * table again (a previous leader may have crashed between a commit and its activation). The
   * coordinator does this by itself when it starts and when it wins leadership; it is public so
   * an operator can retry after an executor error.
   *
   * @return the number of pending migrations found
   * @throws IllegalStateException if this coordinator is not the leader
   */
  int resumePending();

  /**
   * Reconfigures on suspicion, as PacificA's configuration manager does: takes out of their
   * partitions' replica sets the backups their primaries report they cannot reach within the
   * replica timeout ({@link
   * io.partkit.spi.MigrationExecutor.RemovesSuspectedReplicas#suspectedReplicas}), under the
   * table's compare-and-set at the next epoch (the rows stay: each is the set its partition
   * returns to), so that the primaries go on with the other replicas; with nothing to take out,
   * joins again the replicas taken out earlier that can be reached now ({@link
   * io.partkit.spi.MigrationExecutor.RestoresReplicas#restoreReplicas}), until the executor sees
   * every replica whole at the table's epoch. A server calls it from a timer, as it calls {@link
   * #checkFailures()}. Does nothing while migrations are pending, and nothing the executor has
   * no ability for: without a migration executor that is a {@code RestoresReplicas}, nothing at
   * all; with one that is not a {@code RemovesSuspectedReplicas}, only the restore. The executor's
   * node calls run without the coordinator's lock, which is taken only to decide and commit; a
   * decision about a table that changed while the nodes were asked is dropped.
   *
   * @return partition to the backups taken out by this call; empty when none was (or another
   *     coordinator changed the table first)
   * @throws IllegalStateException if this coordinator is not the leader
   */
  java.util.Map<Integer, java.util.Set<NodeId>> reviewReplicas();

  /** True while this coordinator leads (always true without leader election). */
  boolean isLeader();

  /** The store this coordinator keeps its state in. */
  MetadataStore store();
}
