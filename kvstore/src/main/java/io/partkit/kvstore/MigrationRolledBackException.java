package io.partkit.kvstore;

import io.partkit.spi.Migration;

/**
 * A migration did not complete and was rolled back: the source owns and serves the partition
 * again (or will, once a later {@link KvMigrationExecutor#activate} reaches it), the target holds
 * nothing.
 */
public final class MigrationRolledBackException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient Migration migration;

  MigrationRolledBackException(Migration migration, String reason, Throwable cause) {
    super("migration of partition " + migration.partition() + " from " + migration.source()
        + " to " + migration.target() + " (epoch " + migration.targetEpoch()
        + ") rolled back: " + reason, cause);
    this.migration = migration;
  }

  /** The migration that was rolled back. */
  public Migration migration() {
    return migration;
  }
}
