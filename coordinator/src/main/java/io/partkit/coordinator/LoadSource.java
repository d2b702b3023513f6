package io.partkit.coordinator;

import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import java.util.Optional;

/**
 * Where a coordinator reads the measured load of each partition, for load-aware rebalancing
 * ({@link Coordinators.Builder#loadSource}). A data plane adapter implements it (the replica
 * cores' migration executor reports per-partition load); a test gives fixed loads.
 *
 * <p>The coordinator calls it once per {@link Coordinator#plan()} and per
 * {@link Coordinator#rebalance()}, under its own lock: it should answer from what it has already
 * collected, not wait on the network. Loads that do not describe the table in force (another
 * epoch, another partition count) are not applied: the plan says why
 * ({@link LoadPlan#reason()}). A source that throws does not stop a rebalance either: the plan
 * falls back to counts and says so, because a rebalance after a node failure must not depend on
 * a metrics path.
 */
@FunctionalInterface
public interface LoadSource {

  /**
   * The loads measured under {@code table}, if the source has them.
   *
   * @param table the table in force
   * @return loads whose {@link PartitionLoads#epoch()} is {@code table}'s epoch, or empty when
   *     nothing has been measured under it yet
   */
  Optional<PartitionLoads> loads(PartitionAssignment table);
}
