package io.partkit.kvstore.migration;

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
    super("migration of partition " + migration.partition() + " from " + replicas(migration, true)
        + " to " + replicas(migration, false) + " (epoch " + migration.targetEpoch()
        + ") rolled back: " + reason, cause);
    this.migration = migration;
  }

  /** The primary, or the whole list when the partition has (or gets) backups. */
  private static String replicas(Migration m, boolean source) {
    boolean lists = m.sourceReplicas().size() > 1 || m.targetReplicas().size() > 1;
    if (!lists) {
      return (source ? m.source() : m.target()).toString();
    }
    return (source ? m.sourceReplicas() : m.targetReplicas()).toString();
  }

  /** The migration that was rolled back. */
  public Migration migration() {
    return migration;
  }
}
