package io.partkit.spi;

import java.util.Map;
import java.util.Set;
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
 *
 * <h2>Abilities</h2>
 * The three methods here are all a data plane must implement to have its partitions moved. What
 * a data plane may do beyond that is one nested interface per ability, which an executor
 * implements as well when it has it (as Jepsen's {@code jepsen.db} has separate Kill, Pause and
 * Primary protocols); the coordinator asks with {@code instanceof} and, without the ability,
 * leaves that work undone rather than calling something that refuses:
 * <ul>
 *   <li>{@link MovesReplicas}: migrations carry whole replica lists, backups included;
 *   <li>{@link ReportsLostReplicas}: copies that lost acknowledged records rejoin first;
 *   <li>{@link RestoresReplicas}: replicas the table names but that hold no copy are joined
 *       again;
 *   <li>{@link RemovesSuspectedReplicas}: backups their primaries cannot reach are taken out
 *       (and, being a {@link RestoresReplicas}, joined again later);
 *   <li>{@link SplitsPartitions}: a scheme change that splits partitions is carried out.
 * </ul>
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
   * An executor that moves every replica of a partition, not only its primary. The coordinator
   * hands it a migration for each partition whose replica list changes, backups included
   * ({@link Migration#sourceReplicas()} to {@link Migration#targetReplicas()}), and commits no
   * change of a row that such a migration did not complete. An executor without this ability
   * gets primary moves only ({@link Migration#source()} to {@link Migration#target()}); changes
   * of backups are then committed with the first wave, without it, and the coordinator never
   * asks it about backups.
   *
   * <p>It adds no method: it changes what {@link #migrate} and {@link #resume} are given. The
   * abilities that concern backups ({@link ReportsLostReplicas}, {@link RestoresReplicas},
   * {@link RemovesSuspectedReplicas}) extend it, since a data plane that does not move backups
   * leaves them to itself.
   */
  interface MovesReplicas extends MigrationExecutor {
  }

  /**
   * An executor that reports copies which lost acknowledged records, so that they rejoin before
   * anything else moves. Without this ability the coordinator asks no such report and plans
   * from the table as it is.
   */
  interface ReportsLostReplicas extends MovesReplicas {

    /**
     * The replicas of {@code committed} that the data plane reports as having lost acknowledged
     * records (a node whose log came back shorter than it had made durable): each holds its
     * partition as a copy that serves nothing until it is joined to the replica set again. For
     * each, the coordinator moves the partition to the same replicas with that node last, at the
     * next epoch, through {@link #migrate}: a survivor among the in-sync copies leads and the
     * node rejoins as a backup that catches up. Asked once per rebalance, before planning; a
     * report that throws is logged and the rebalance goes on (the next one asks again).
     *
     * @param committed the table as committed now
     * @param members the members now: only they are asked (a node declared failed, perhaps only
     *     paused, would hold the rebalance up until it timed out, and its copies move off anyway)
     * @return partition to the nodes that must rejoin it; empty when there are none
     */
    Map<Integer, Set<NodeId>> lostReplicas(PartitionAssignment committed, Set<NodeId> members);
  }

  /**
   * An executor that joins again, as backups that catch up, replicas a table names but that hold
   * no whole copy. The coordinator asks for it from {@code ClusterCoordinator.reviewReplicas()}
   * when no backup is to be taken out; without this ability a review does nothing.
   */
  interface RestoresReplicas extends MovesReplicas {

    /**
     * Joins again, as backups that catch up while the primary serves, the replicas {@code
     * committed} names that hold no copy (taken out by {@link
     * RemovesSuspectedReplicas#removeReplicas}, for example); a replica that cannot be reached yet
     * is tried again at a later call.
     *
     * @param committed the table as committed now
     * @return how many replicas {@code committed} names are not known to hold a whole copy after
     *     this call (taken out, unreachable, joining or catching up): with 0, the coordinator
     *     asks again only once the table changes or another coordinator leads
     */
    int restoreReplicas(PartitionAssignment committed);
  }

  /**
   * An executor whose primaries report backups they cannot reach, and that takes such a backup
   * out of its partition's replica set when the coordinator decides so (PacificA's primary asks
   * its configuration manager the same way). The report and the removal come together: a
   * suspicion nobody can act on is noise, and a removal needs someone to name what to remove.
   * It also restores ({@link RestoresReplicas}): a replica taken out must be able to return, or
   * its partition would stay a copy short for good. Without this ability the coordinator takes
   * no replica out.
   */
  interface RemovesSuspectedReplicas extends RestoresReplicas {

    /**
     * The backups their primaries suspect: a primary that could not replicate a write to a
     * backup, or have it confirm a read, within its replica timeout asks for it to be taken out
     * of the partition's replica set. The coordinator decides, under its compare-and-set, and
     * then calls {@link #removeReplicas}. Only a partition's primary in {@code committed} may
     * ask, and never for itself: the coordinator ignores any other entry.
     *
     * @param committed the table as committed now
     * @param members the members now: only they are asked
     * @return partition to the backups its primary suspects; empty when there are none
     */
    Map<Integer, Set<NodeId>> suspectedReplicas(PartitionAssignment committed,
        Set<NodeId> members);

    /**
     * Takes {@code removed} out of the replica set of {@code partition} at {@code committed}'s
     * epoch, which the coordinator has just committed for it with the same rows: the primary
     * goes on with the other replicas, and the removed ones lose their copy. The table keeps
     * naming them: {@link #restoreReplicas} joins them again as backups that catch up once they
     * can. A removal that throws is logged; the next review asks again.
     *
     * @param committed the table the coordinator has just committed, one epoch past the one
     *     {@link #suspectedReplicas} was asked about
     * @param partition the partition whose primary asked
     * @param removed the backups to take out, a non-empty subset of the primary's report
     */
    void removeReplicas(PartitionAssignment committed, int partition, Set<NodeId> removed);
  }

  /**
   * An executor that can renumber its data when the partition scheme is refined (every new
   * partition inside one old one, as a token-ring join or a key-range split makes). Without this
   * ability the coordinator refuses a change of partition scheme, in {@code plan()} and {@code
   * rebalance()} alike, and the table stays as it is.
   */
  interface SplitsPartitions extends MigrationExecutor {

    /**
     * Prepares the data plane for a table that re-cuts the hash space without moving data: every
     * partition of {@code split} lies inside one partition of {@code committed} and is owned by
     * that partition's replicas. The executor fences what the split renumbers: from the moment
     * this stage completes until an {@link #activate} decides, no node serves a request in either
     * numbering, so a client that already holds {@code split} cannot reach a node that still
     * holds the old numbering. The coordinator then commits {@code split} and calls {@link
     * #activate} with it, which re-numbers the data; if it does not commit it, the next {@link
     * #activate} (with a table that is not {@code split}) lifts the fence instead. Idempotent.
     *
     * @param committed the table as committed now
     * @param split the table to commit next, at a higher epoch, with the new scheme
     * @return completes when every node that holds data in the old numbering is fenced, or
     *     exceptionally (the coordinator then activates {@code committed} again and gives up)
     */
    CompletionStage<Void> prepareSplit(PartitionAssignment committed, PartitionAssignment split);
  }
}
