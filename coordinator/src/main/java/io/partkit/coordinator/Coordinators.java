package io.partkit.coordinator;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.time.Duration;
import java.time.InstantSource;

/**
 * Builds coordinators.
 *
 * <pre>{@code
 * ClusterCoordinator coordinator = Coordinators.builder()
 *     .store(MetadataStores.embedded(Path.of("/var/lib/partkit/table.json")))
 *     .strategy("fixed", PartitionerConfig.of("partitions", 271, "replicas", 2))
 *     .minClusterSize(3)
 *     .heartbeatTimeout(Duration.ofSeconds(10))
 *     .migrationExecutor(executor)
 *     .maxConcurrentMigrations(4)
 *     .autoRebalance(true)
 *     .loadSource(table -> loadsMeasuredUnder(table)) // optional: load-aware plans
 *     .build();
 * }</pre>
 */
public final class Coordinators {

  private Coordinators() {}

  /** A builder with the defaults listed on each method. */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings of one coordinator; every setter checks its argument at once. */
  public static final class Builder {
    MetadataStore store;
    Partitioner partitioner;
    int minClusterSize = 1;
    Duration heartbeatTimeout = Duration.ofSeconds(10);
    InstantSource clock = InstantSource.system();
    MigrationExecutor migrationExecutor;
    int maxConcurrentMigrations = 1;
    boolean autoRebalance;
    boolean leaderElection = true;
    LoadSource loadSource;
    int maxLoadMoves = 32;
    double loadImbalanceThreshold = 1.10;
    String name = "coordinator-" + ProcessHandle.current().pid();

    private Builder() {}

    /** Where the table, migrations and members live. Required. */
    public Builder store(MetadataStore store) {
      this.store = requireNonNull(store, "store");
      return this;
    }

    /**
     * The strategy by name, loaded through {@link Partitioners#load()}.
     *
     * @throws io.partkit.spi.UnknownStrategyException if no provider has that name
     * @throws io.partkit.spi.InvalidConfigurationException if the provider rejects the config
     */
    public Builder strategy(String name, PartitionerConfig config) {
      requireNonNull(name, "name");
      requireNonNull(config, "config");
      this.partitioner = Partitioners.load().create(name, config);
      return this;
    }

    /** The strategy as an instance (instead of {@link #strategy(String, PartitionerConfig)}). */
    public Builder partitioner(Partitioner partitioner) {
      this.partitioner = requireNonNull(partitioner, "partitioner");
      return this;
    }

    /**
     * No table is computed before this many members are live. Default 1.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder minClusterSize(int members) {
      if (members < 1) {
        throw new IllegalArgumentException("minClusterSize must be >= 1: " + members);
      }
      this.minClusterSize = members;
      return this;
    }

    /**
     * A member silent for longer than this is declared failed. Default 10 s.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder heartbeatTimeout(Duration timeout) {
      requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("heartbeatTimeout must be positive: " + timeout);
      }
      this.heartbeatTimeout = timeout;
      return this;
    }

    /** The clock failure detection runs on. Default {@link InstantSource#system()}. */
    public Builder clock(InstantSource clock) {
      this.clock = requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Moves data when a partition changes primary (and its backups too, when it is a {@link
     * MigrationExecutor.MovesReplicas}). Its other abilities, the nested interfaces of {@link
     * MigrationExecutor} it implements, decide what else the coordinator asks of it. Without one
     * the coordinator only manages the table (commits each new table at once), for data planes
     * that move data themselves.
     */
    public Builder migrationExecutor(MigrationExecutor executor) {
      this.migrationExecutor = requireNonNull(executor, "executor");
      return this;
    }

    /**
     * At most this many migrations run at once (one wave). Default 1.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxConcurrentMigrations(int k) {
      if (k < 1) {
        throw new IllegalArgumentException("maxConcurrentMigrations must be >= 1: " + k);
      }
      this.maxConcurrentMigrations = k;
      return this;
    }

    /**
     * Makes rebalancing load-aware: every {@link Coordinator#plan()} and
     * {@link Coordinator#rebalance()} reads the measured load of each partition of the table in
     * force from {@code source} and moves primaries from the most loaded nodes to the least
     * loaded, on top of the strategy's placement, by at most {@link #maxLoadMoves} partitions;
     * {@link RebalancePlan#load()} has the figures. Without one (the default) plans count
     * partitions only. See docs/load-aware-rebalancing.md for which strategies keep the moves.
     */
    public Builder loadSource(LoadSource source) {
      this.loadSource = requireNonNull(source, "source");
      return this;
    }

    /**
     * At most this many partitions change for load in one plan (each is a migration, throttled
     * in waves like any other). Default 32.
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxLoadMoves(int moves) {
      if (moves < 1) {
        throw new IllegalArgumentException("maxLoadMoves must be >= 1: " + moves);
      }
      this.maxLoadMoves = moves;
      return this;
    }

    /**
     * Load counts as balanced when the most loaded node's load per unit of weight is at most
     * this many times the mean: no load move is made then, and moves stop once it is reached.
     * Default 1.10 (Cruise Control's default balance thresholds are of this order).
     *
     * @throws IllegalArgumentException if below 1.0 or not finite
     */
    public Builder loadImbalanceThreshold(double maxOverMean) {
      if (!(maxOverMean >= 1.0) || Double.isInfinite(maxOverMean)) {
        throw new IllegalArgumentException(
            "loadImbalanceThreshold is a max/mean ratio, a finite number >= 1.0: " + maxOverMean);
      }
      this.loadImbalanceThreshold = maxOverMean;
      return this;
    }

    /** Rebalance by itself on every membership change (on the leader). Default false. */
    public Builder autoRebalance(boolean enabled) {
      this.autoRebalance = enabled;
      return this;
    }

    /**
     * Campaign for leadership on the store and act only while leading. Default true. Without it
     * every coordinator acts, and compare-and-set alone keeps the table consistent.
     */
    public Builder leaderElection(boolean enabled) {
      this.leaderElection = enabled;
      return this;
    }

    /** This coordinator's name in the election and in logs. Default {@code coordinator-<pid>}. */
    public Builder name(String name) {
      requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return this;
    }

    /**
     * Starts the coordinator: campaigns (if enabled) and, once leading, resumes pending
     * migrations.
     *
     * @throws IllegalStateException if the store or the strategy is missing
     */
    public ClusterCoordinator build() {
      if (store == null) {
        throw new IllegalStateException("a coordinator needs a store: call store(...)");
      }
      if (partitioner == null) {
        throw new IllegalStateException(
            "a coordinator needs a strategy: call strategy(name, config) or partitioner(...)");
      }
      return FixedPartitionsCoordinator.start(this);
    }
  }
}
