package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.PartitionAssignment;
import java.util.List;
import java.util.Optional;

/**
 * The table and the migrations pending towards its next epoch, as read at one point in time.
 *
 * @param table the committed table, if any
 * @param pending migrations recorded from {@link #epoch()} and not committed yet; empty when none
 * @param revision the store's revision at the time of the read (etcd's header revision; a change
 *     counter in the embedded store): it only grows, and is for logs and watches, not for CAS
 */
public record MetadataSnapshot(Optional<PartitionAssignment> table, List<PendingMigration> pending,
    long revision) {

  /** Canonical constructor: copies the list. */
  public MetadataSnapshot {
    requireNonNull(table, "table");
    pending = List.copyOf(pending);
  }

  /** The epoch of the table, or {@link MetadataStore#NO_TABLE} when there is none. */
  public long epoch() {
    return table.map(PartitionAssignment::epoch).orElse(MetadataStore.NO_TABLE);
  }
}
