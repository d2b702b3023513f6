package io.partkit.spi;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Moves one partition from its owner to a new owner, safely. The coordinator decides (it owns the
 * table); the executor moves the data and tells the data plane what was decided. The executor
 * reads no coordinator state: everything it needs is passed to it.
 *
 * <h2>The protocol every implementation follows</h2>
 * <ol>
 *   <li>The coordinator records the migration durably (so it survives a coordinator restart),
 *       then calls {@link #migrate}.
 *   <li>The source marks the partition migrating and stops accepting writes to it: writers get a
 *       retriable "moving" answer (the fence).
 *   <li>The data is streamed to the target; the target acknowledges once it holds all of it.
 *       {@link #migrate} completes here: the migration is ready to commit. The target does not
 *       serve yet.
 *   <li>The coordinator commits the table with {@link Migration#targetEpoch()}, then calls
 *       {@link #activate} with it: from then on the target accepts writes carrying that epoch and
 *       the source rejects all writes.
 *   <li>The source drops its copy (part of {@link #activate}).
 * </ol>
 * At no moment do two owners accept writes to one partition, and every acknowledged write
 * survives. An interrupted migration is resumed or rolled back by {@link #resume}; a coordinator
 * that crashed between a commit and its activation is made good by the next leader's
 * {@link #activate}.
 */
public interface MigrationExecutor {

  /**
   * Runs one migration up to the point where it is ready to commit: the source is fenced (it
   * accepts no more writes to the partition) and the target holds all of the partition's data.
   * The target does not serve before {@link #activate} is called with a table that commits it.
   *
   * @return completes when the migration is ready to commit, or exceptionally when it was
   *     rolled back (the source then owns and accepts writes again)
   */
  CompletionStage<Migration> migrate(Migration migration);

  /**
   * Brings the data plane in line with a table the coordinator has just committed: the targets
   * of the migrations it commits start serving at its epoch and their sources drop their copies.
   * Every migration whose {@link #migrate} or {@link #resume} completed before this call is
   * decided by {@code committed}: if the table does not make its target the owner, the
   * coordinator abandoned it and the executor rolls it back. The coordinator calls this after
   * every table it commits, after abandoning a wave, and when it becomes the leader (after
   * resuming pending migrations), so that a crash between a commit and its activation is
   * finished by the next leader.
   *
   * <p>Idempotent: calling it again with the same table changes nothing. A failed activation
   * does not undo the commit (the table stays committed; the targets just do not serve yet): the
   * coordinator logs it, and the next call (the next commit, or the next leader) finishes it.
   *
   * @param committed the table as committed now
   * @return completes when the data plane serves {@code committed}, or exceptionally when part
   *     of it could not be reached (to be finished by a later call)
   */
  CompletionStage<Void> activate(PartitionAssignment committed);

  /**
   * Completes or rolls back a migration that a crash interrupted, from whatever state the data
   * plane recorded, given the table as committed now. If {@code committed} is at or past the
   * migration's target epoch, the table decided it: when it makes the target the owner the
   * migration is finished (the target serves, the source drops its copy) and the stage completes
   * normally; otherwise it is rolled back. If the table is older, the migration is brought to
   * ready-to-commit as by {@link #migrate}, or rolled back.
   *
   * @param committed the table as committed now, read by the coordinator
   * @return completes as {@link #migrate} does, or, for a migration already committed, when it
   *     is finished
   */
  CompletionStage<Migration> resume(Migration migration, PartitionAssignment committed);

  /**
   * Whether this executor moves every replica of a partition, not only its primary. If so, the
   * coordinator hands it a migration for each partition whose replica list changes, backups
   * included ({@link Migration#sourceReplicas()} to {@link Migration#targetReplicas()}), and a
   * change it did not complete is not committed; if not, it gets primary moves only and changes
   * of backups are committed without it.
   */
  default boolean movesReplicas() {
    return false;
  }

  /**
   * The replicas of {@code committed} that the data plane reports as having lost acknowledged
   * records (a node whose log came back shorter than it had made durable): each holds its
   * partition as a copy that serves nothing until it is joined to the replica set again. For
   * each, the coordinator moves the partition to the same replicas with that node last, at the
   * next epoch, through {@link #migrate}: a survivor among the in-sync copies leads and the node
   * rejoins as a backup that catches up. Asked once per rebalance, before planning; only for an
   * executor that {@link #movesReplicas() moves replicas}.
   *
   * @param committed the table as committed now
   * @param members the members now: only they are asked (a node declared failed, perhaps only
   *     paused, would hold the rebalance up until it timed out, and its copies move off anyway)
   * @return partition to the nodes that must rejoin it; empty by default
   */
  default Map<Integer, Set<NodeId>> lostReplicas(PartitionAssignment committed,
      Set<NodeId> members) {
    return Map.of();
  }

  /**
   * The backups their primaries suspect: a primary that could not replicate a write to a backup,
   * or have it confirm a read, within its replica timeout asks for it to be taken out of the
   * partition's replica set (PacificA's primary asks its configuration manager the same way). The
   * coordinator decides, under its compare-and-set, and then calls {@link #removeReplicas}.
   * Only a partition's primary in {@code committed} may ask, and never for itself.
   *
   * @param committed the table as committed now
   * @param members the members now: only they are asked
   * @return partition to the backups its primary suspects; empty by default
   */
  default Map<Integer, Set<NodeId>> suspectedReplicas(PartitionAssignment committed,
      Set<NodeId> members) {
    return Map.of();
  }

  /**
   * Takes {@code removed} out of the replica set of {@code partition} at {@code committed}'s
   * epoch, which the coordinator has just committed for it with the same rows: the primary goes
   * on with the other replicas, and the removed ones lose their copy. The table keeps naming
   * them: {@link #restoreReplicas} joins them again as backups that catch up once they can.
   *
   * @throws UnsupportedOperationException by default (an executor that reports no suspect)
   */
  default void removeReplicas(PartitionAssignment committed, int partition,
      Set<NodeId> removed) {
    throw new UnsupportedOperationException(getClass().getName() + " removes no replica");
  }

  /**
   * Joins again, as backups that catch up while the primary serves, the replicas {@code
   * committed} names that hold no copy (taken out by {@link #removeReplicas}); a replica that
   * cannot be reached yet is tried again at a later call.
   *
   * @return how many replicas {@code committed} names are not known to hold a whole copy after
   *     this call (taken out, unreachable, joining or catching up): with 0, the coordinator asks
   *     again only once the table changes; 0 by default
   */
  default int restoreReplicas(PartitionAssignment committed) {
    return 0;
  }

  /**
   * Prepares the data plane for a table that re-cuts the hash space without moving data: every
   * partition of {@code split} lies inside one partition of {@code committed} and is owned by
   * that partition's replicas (a token-ring join splits ranges). The executor fences what the
   * split renumbers: from the moment this stage completes until an {@link #activate} decides,
   * no node serves a request in either numbering, so a client that already holds {@code split}
   * cannot reach a node that still holds the old numbering. The coordinator then commits
   * {@code split} and calls {@link #activate} with it, which re-numbers the data; if it does not
   * commit it, the next {@link #activate} (with a table that is not {@code split}) lifts the
   * fence instead. Idempotent.
   *
   * <p>The default refuses: an executor that cannot renumber its data makes the coordinator
   * refuse a change of partition scheme, as it always did.
   *
   * @param committed the table as committed now
   * @param split the table to commit next, at a higher epoch, with the new scheme
   * @return completes when every node that holds data in the old numbering is fenced, or
   *     exceptionally (the coordinator then activates {@code committed} again and gives up)
   */
  default CompletionStage<Void> prepareSplit(PartitionAssignment committed,
      PartitionAssignment split) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getName()
        + " cannot renumber partitions: it needs a table with a fixed partition scheme"));
  }
}
