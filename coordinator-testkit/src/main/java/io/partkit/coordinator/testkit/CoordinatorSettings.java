package io.partkit.coordinator.testkit;

import io.partkit.coordinator.LoadSource;
import io.partkit.spi.MigrationExecutor;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * What {@link CoordinatorContractKit} asks a coordinator to be built with; an implementation maps
 * each field to its own configuration.
 *
 * @param name the coordinator's name (in elections and logs)
 * @param minClusterSize members needed before a table is computed
 * @param heartbeatTimeout silence after which a member is declared failed
 * @param clock the clock failure detection runs on
 * @param executor moves data; empty for a metadata-only coordinator
 * @param maxConcurrentMigrations at most this many migrations at once
 * @param autoRebalance rebalance by itself on membership changes
 * @param leaderElection campaign for leadership and act only while leading
 * @param loadSource measured partition loads for load-aware plans; empty for count-only plans
 */
public record CoordinatorSettings(String name, int minClusterSize, Duration heartbeatTimeout,
    InstantSource clock, Optional<MigrationExecutor> executor, int maxConcurrentMigrations,
    boolean autoRebalance, boolean leaderElection, Optional<LoadSource> loadSource) {

  /** As before load-aware planning: without a load source. */
  public CoordinatorSettings(String name, int minClusterSize, Duration heartbeatTimeout,
      InstantSource clock, Optional<MigrationExecutor> executor, int maxConcurrentMigrations,
      boolean autoRebalance, boolean leaderElection) {
    this(name, minClusterSize, heartbeatTimeout, clock, executor, maxConcurrentMigrations,
        autoRebalance, leaderElection, Optional.empty());
  }

  /**
   * Name "c1", min size 1, 10 s timeout, no executor, K = 1, manual rebalance, with election,
   * no load source.
   */
  public static CoordinatorSettings defaults(InstantSource clock) {
    return new CoordinatorSettings("c1", 1, Duration.ofSeconds(10), clock, Optional.empty(), 1,
        false, true);
  }

  /** With a load source: plans are load-aware. */
  public CoordinatorSettings loadSource(LoadSource source) {
    return new CoordinatorSettings(name, minClusterSize, heartbeatTimeout, clock, executor,
        maxConcurrentMigrations, autoRebalance, leaderElection, Optional.of(source));
  }

  /** With another name. */
  public CoordinatorSettings named(String n) {
    return new CoordinatorSettings(n, minClusterSize, heartbeatTimeout, clock, executor,
        maxConcurrentMigrations, autoRebalance, leaderElection, loadSource);
  }

  /** With another minimum cluster size. */
  public CoordinatorSettings minSize(int m) {
    return new CoordinatorSettings(name, m, heartbeatTimeout, clock, executor,
        maxConcurrentMigrations, autoRebalance, leaderElection, loadSource);
  }

  /** With an executor moving at most {@code k} partitions at once. */
  public CoordinatorSettings executor(MigrationExecutor e, int k) {
    return new CoordinatorSettings(name, minClusterSize, heartbeatTimeout, clock, Optional.of(e),
        k, autoRebalance, leaderElection, loadSource);
  }

  /** With or without automatic rebalancing. */
  public CoordinatorSettings autoRebalance(boolean on) {
    return new CoordinatorSettings(name, minClusterSize, heartbeatTimeout, clock, executor,
        maxConcurrentMigrations, on, leaderElection, loadSource);
  }

  /** With or without leader election. */
  public CoordinatorSettings leaderElection(boolean on) {
    return new CoordinatorSettings(name, minClusterSize, heartbeatTimeout, clock, executor,
        maxConcurrentMigrations, autoRebalance, on, loadSource);
  }
}
