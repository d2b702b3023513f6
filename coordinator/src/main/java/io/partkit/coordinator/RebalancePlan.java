package io.partkit.coordinator;

import io.partkit.spi.Migration;
import io.partkit.spi.PartitionAssignment;
import io.partkit.stats.Movement;
import io.partkit.stats.PlacementStatistics;
import java.util.List;
import java.util.Optional;

/**
 * What a rebalance would do, computed without doing it (the dry run), or what it did.
 *
 * @param current the table in force, if any
 * @param proposed the table the rebalance leads to
 * @param migrations the primary moves it takes, in the order they would run
 * @param movement the share of data moved, next to the optimum (empty without a current table)
 * @param balanceBefore balance of the current table (empty without one)
 * @param balanceAfter balance of the proposed table
 * @param load the load figures, when the coordinator has a {@link LoadSource} (empty without
 *     one): load per node before and after, the moves load-aware planning made and their load,
 *     or why loads were not applied
 */
public record RebalancePlan(Optional<PartitionAssignment> current, PartitionAssignment proposed,
    List<Migration> migrations, Optional<Movement> movement,
    Optional<PlacementStatistics> balanceBefore, PlacementStatistics balanceAfter,
    Optional<LoadPlan> load) {

  /** Canonical constructor: copies the migration list. */
  public RebalancePlan {
    migrations = List.copyOf(migrations);
    java.util.Objects.requireNonNull(load, "load");
  }

  /** A plan without load figures (count-only planning). */
  public RebalancePlan(Optional<PartitionAssignment> current, PartitionAssignment proposed,
      List<Migration> migrations, Optional<Movement> movement,
      Optional<PlacementStatistics> balanceBefore, PlacementStatistics balanceAfter) {
    this(current, proposed, migrations, movement, balanceBefore, balanceAfter, Optional.empty());
  }

  /** True when applying the plan changes nothing. */
  public boolean isNoOp() {
    return current.isPresent() && current.get().samePlacementAs(proposed);
  }
}
