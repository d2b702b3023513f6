package io.partkit.spi;

import java.util.concurrent.CompletionStage;

/**
 * Moves one partition from its owner to a new owner, safely.
 *
 * <h2>The protocol every implementation follows</h2>
 * <ol>
 *   <li>The coordinator records the migration durably (so it survives a coordinator restart).
 *   <li>The source marks the partition migrating and stops accepting writes to it: writers get a
 *       retriable "moving" answer (the fence).
 *   <li>The data is streamed to the target; the target acknowledges once it holds all of it.
 *   <li>The coordinator commits the table with {@link Migration#targetEpoch()}; from then on the
 *       target accepts writes carrying that epoch and the source rejects all writes.
 *   <li>The source drops its copy.
 * </ol>
 * At no moment do two owners accept writes to one partition, and every acknowledged write
 * survives. An interrupted migration is resumed or rolled back by {@link #resume}.
 */
public interface MigrationExecutor {

  /**
   * Runs one migration to the end.
   *
   * @return completes when the new owner is committed, or exceptionally when the migration was
   *     rolled back (the source then owns and accepts writes again)
   */
  CompletionStage<Migration> migrate(Migration migration);

  /**
   * Completes or rolls back a migration that a crash interrupted, from whatever state was
   * recorded.
   */
  CompletionStage<Migration> resume(Migration migration);
}
