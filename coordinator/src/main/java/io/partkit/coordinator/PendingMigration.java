package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import java.util.List;

/**
 * A migration recorded durably before it runs, with what the partition's replica list becomes
 * when the migration commits (primary first: {@code targetReplicas.get(0)} is the migration's
 * target). The coordinator needs the whole list to commit the table after a crash.
 *
 * @param migration the move ({@link Migration#targetEpoch()} is the epoch that commits it)
 * @param targetReplicas the partition's replicas at the target epoch, primary first
 */
public record PendingMigration(Migration migration, List<NodeId> targetReplicas) {

  /**
   * @throws IllegalArgumentException if the list is empty or does not start with the target
   */
  public PendingMigration {
    requireNonNull(migration, "migration");
    targetReplicas = List.copyOf(targetReplicas);
    if (targetReplicas.isEmpty() || !targetReplicas.get(0).equals(migration.target())) {
      throw new IllegalArgumentException("target replicas of partition " + migration.partition()
          + " must start with the target " + migration.target() + ": " + targetReplicas);
    }
    if (migration.targetReplicas().size() > 1
        && !migration.targetReplicas().equals(targetReplicas)) {
      throw new IllegalArgumentException("target replicas of partition " + migration.partition()
          + " are " + targetReplicas + " but the migration moves them to "
          + migration.targetReplicas());
    }
  }
}
