package io.partkit.kvstore.migration;

/**
 * How far one migration got. Each step is recorded durably where it takes effect, so the record
 * and the fact can never disagree after a crash: PLANNED and COMMITTED in the coordinator's
 * metadata store (the pending migration, the table at the target epoch), FENCED, COPIED and
 * SOURCE_DROPPED in the write-ahead logs of the nodes (the source's MIGRATING_OUT state, the
 * target's RECEIVED state, the source's tombstone).
 */
public enum MigrationStep {
  /** Recorded as pending in the metadata store; nothing done on the nodes yet. */
  PLANNED,
  /**
   * The target holds a copy taken while the source still served writes (RECEIVING), and the
   * source records which keys are written from then on. Not durable, and not a step a crash
   * returns to: after a restart of either node the move copies in full under the fence.
   */
  PRECOPIED,
  /** The source refuses writes (MIGRATING_OUT) and its data is frozen. */
  FENCED,
  /** The target holds all the data durably and acknowledged it (RECEIVED): ready to commit. */
  COPIED,
  /** The table making the target the owner is committed; the target serves the partition. */
  COMMITTED,
  /** The source dropped its copy; the migration is over. */
  SOURCE_DROPPED,
  /** Undone: the source owns and serves the partition again, the target holds nothing. */
  ROLLED_BACK
}
