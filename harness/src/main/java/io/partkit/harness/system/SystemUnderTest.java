package io.partkit.harness.system;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real system the harness runs: it starts its nodes on the runtime, hands out recording clients
 * and lets the nemesis kill, pause, restart and (where it has membership) move nodes in and out.
 *
 * <p>Every method but {@link #openClient} is called from one thread at a time (the run's
 * control thread or the nemesis); clients are used by one worker each.
 */
public interface SystemUnderTest extends AutoCloseable {

  /** The name on the command line: {@code kv}, {@code etcd}. */
  String name();

  /**
   * Starts the cluster and waits until it serves.
   *
   * @throws io.partkit.harness.runtime.SetupException if it cannot (what failed, how to fix it)
   */
  void start(SystemContext context);

  /** The nodes a fault may hit (data nodes; names as given to the runtime). */
  List<String> nodes();

  /**
   * The node that plays a special role now, for faults aimed at it: the kv coordinator, the etcd
   * raft leader. Empty when there is none (or it cannot be found now).
   */
  default Optional<String> leader() {
    return Optional.empty();
  }

  /** {@code kill -9} of {@code node}'s process. */
  void kill(String node);

  /** Starts a killed node again with the same data and address. A no-op when it runs. */
  void restart(String node);

  /** {@code SIGSTOP}. */
  void pause(String node);

  /** {@code SIGCONT}. */
  void resume(String node);

  /** True when nodes can leave and join during a run, so data moves between them. */
  default boolean supportsMembership() {
    return false;
  }

  /**
   * Takes {@code node} out of the cluster (its data moves to the others); it keeps running.
   *
   * @throws UnsupportedOperationException when {@link #supportsMembership()} is false
   */
  default void leave(String node) {
    throw new UnsupportedOperationException(name() + " has no membership changes");
  }

  /** Brings a node that left back in (data moves to it). */
  default void join(String node) {
    throw new UnsupportedOperationException(name() + " has no membership changes");
  }

  /**
   * Starts a membership change and waits until one of the migrations it starts has fenced its
   * source, so a fault can hit it mid-flight. Empty when the system moves no data.
   */
  default Optional<Migration> startMigration(Duration timeout) {
    return Optional.empty();
  }

  /** A migration caught in flight: the fault targets its source, its target or the leader. */
  record Migration(int partition, String source, String target) {}

  /**
   * Why this system, started with {@code options} on {@code nodes} nodes, cannot be expected to
   * keep every acknowledged write when a node is lost for good (its process and its disk), or
   * empty when it can: then {@link #lose} and {@link #replace} work.
   */
  default Optional<String> cannotLoseNodes(Map<String, String> options, int nodes) {
    return Optional.of(name() + " is not run with copies on several nodes by this harness");
  }

  /** The options it takes ({@code --option KEY=VALUE}), checked before anything starts. */
  default SystemOptions options() {
    return SystemOptions.of(name());
  }

  /**
   * Why {@link #startMigration} cannot catch a migration in flight when the system runs with
   * {@code options}, or empty when it can (asked before anything starts, for the migration
   * nemesis).
   */
  default Optional<String> cannotCatchMigrations(Map<String, String> options) {
    return Optional.empty();
  }

  /**
   * Loses {@code node} for good: kills its process, deletes its data, and declares it failed,
   * so the system must serve its data from the other copies.
   *
   * @return what was done, for the history (a system may do less when losing this node now
   *     would leave fewer nodes than copies: it then says so)
   */
  default String lose(String node) {
    throw new UnsupportedOperationException(name() + " cannot lose nodes");
  }

  /** A new, empty node takes the place of a lost one (same name and address). */
  default void replace(String node) {
    throw new UnsupportedOperationException(name() + " cannot lose nodes");
  }

  /** Waits until every node serves again after the faults were healed (bounded by timeout). */
  default void awaitRecovered(Duration timeout) {}

  /**
   * Checks, after the run has recovered and every key was read, that the system stored each key
   * where a placement rule predicts (for a system that runs partkit's placement inside a product:
   * partkit's offline prediction against the live cluster). Empty when the system has no
   * placement to check. A misplaced key makes the run invalid.
   */
  default Optional<PlacementCheck> checkPlacement() {
    return Optional.empty();
  }

  /** A new client (one per worker). */
  Client openClient();

  /** Stops every node. */
  @Override
  void close();
}
