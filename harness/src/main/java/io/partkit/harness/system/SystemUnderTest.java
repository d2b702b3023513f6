package io.partkit.harness.system;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real system the harness runs: it starts its nodes on the runtime, hands out recording clients
 * and stops. What faults it can take is what {@link Capability} interfaces it implements (kill,
 * pause, membership, ...); systems made of node processes extend {@link NodeProcessSystem}, which
 * offers kill and pause. A system is found by name through its {@link SystemProvider}.
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

  /** A migration caught in flight: the fault targets its source, its target or the leader. */
  record Migration(int partition, String source, String target) {}

  /** Waits until every node serves again after the faults were healed (bounded by timeout). */
  default void awaitRecovered(Duration timeout) {}

  /** A new client (one per worker). */
  Client openClient();

  /** Stops every node. */
  @Override
  void close();
}
