package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import io.partkit.stats.LoadStatistics;
import java.util.Optional;

/**
 * The load figures of a {@link RebalancePlan} made with a {@link LoadSource}: what load-aware
 * planning saw, what it changed on top of the strategy's placement, and why it did or did not.
 *
 * @param applied whether measured loads were used (they were read, describe the table in force
 *     and the strategy keeps what they lead to); when false, {@link #reason()} says why and the
 *     plan is the count-only one
 * @param reason one line for an operator: why loads were ignored, or what the moves achieved
 * @param before load per node under the table in force; empty when the loads could not be read
 *     or do not describe that table (then the next two are empty too)
 * @param countOnly load per node under the strategy's placement alone, the plan without loads
 * @param after load per node under the proposed table (equal to {@code countOnly} without
 *     moves)
 * @param moves partitions whose replicas the load-aware step changed on top of the strategy's
 *     placement (each also appears in the plan's migrations, unless it only undoes a strategy
 *     move)
 * @param movedLoad the summed load of the partitions whose primary those moves changed
 */
public record LoadPlan(boolean applied, String reason, Optional<LoadStatistics> before,
    Optional<LoadStatistics> countOnly, Optional<LoadStatistics> after, int moves,
    double movedLoad) {

  /**
   * @throws IllegalArgumentException if {@code moves} or {@code movedLoad} is negative
   */
  public LoadPlan {
    requireNonNull(reason, "reason");
    requireNonNull(before, "before");
    requireNonNull(countOnly, "countOnly");
    requireNonNull(after, "after");
    if (moves < 0 || !(movedLoad >= 0)) {
      throw new IllegalArgumentException("moves and movedLoad must be >= 0: " + moves + ", "
          + movedLoad);
    }
  }

  /** A plan whose loads were not applied, for {@code reason}. */
  static LoadPlan ignored(String reason) {
    return new LoadPlan(false, reason, Optional.empty(), Optional.empty(), Optional.empty(), 0,
        0);
  }
}
