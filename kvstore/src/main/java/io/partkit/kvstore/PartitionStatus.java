package io.partkit.kvstore;

import static java.util.Objects.requireNonNull;

/**
 * One node's view of one partition.
 *
 * @param partition the partition
 * @param state where it stands on the node
 * @param epoch the epoch the node holds it under (OWNED), the epoch of the move in progress
 *     (MIGRATING_OUT, RECEIVING, RECEIVED), or the last epoch the node knew for it (ABSENT, 0 if
 *     none)
 * @param keys number of keys held
 */
public record PartitionStatus(int partition, PartitionState state, long epoch, long keys) {

  /** Canonical constructor. */
  public PartitionStatus {
    requireNonNull(state, "state");
  }
}
