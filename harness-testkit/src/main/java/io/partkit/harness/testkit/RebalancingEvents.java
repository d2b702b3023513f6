package io.partkit.harness.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.partkit.harness.system.Capability.Rebalancing;
import io.partkit.harness.system.Capability.Received;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A system's rebalance in a test, as {@code partkit bench --live} measures one: an event (a join,
 * a leave, a crash), then the wait for the system's own word that every copy is in place, then
 * what its nodes say they received meanwhile. For the tests of a {@link Rebalancing} system.
 */
public final class RebalancingEvents {

  /** Something done to the cluster. */
  @FunctionalInterface
  public interface Event {
    void run() throws Exception;
  }

  private RebalancingEvents() {}

  /**
   * Runs {@code event}, waits until {@code system} is rebalanced (at most {@code deadline}) and
   * returns what the nodes running then received since just before it ({@link Received#since}).
   * No node restarts during these events, so a node's cumulative counters that went down fail
   * the test: a counter that resets would hide copies.
   */
  public static Received moved(Rebalancing system, Event event, String what, Duration deadline)
      throws Exception {
    Map<String, Received> before = system.received();
    event.run();
    awaitRebalanced(system, what, deadline);
    Map<String, Received> after = system.received();
    after.forEach((node, a) -> {
      Received b = before.getOrDefault(node, Received.NONE);
      assertTrue(a.keys() >= b.keys() && a.bytes() >= b.bytes()
          && a.partitions() >= b.partitions(),
          () -> node + "'s cumulative counters went down during the " + what + ": " + b
              + " before, " + a + " after");
    });
    return Received.since(before, after);
  }

  /**
   * Polls {@link Rebalancing#rebalancing()} until it is empty; fails, with what is still going
   * on, when {@code deadline} passes first.
   */
  public static void awaitRebalanced(Rebalancing system, String what, Duration deadline)
      throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    Optional<String> going = system.rebalancing();
    while (going.isPresent()) {
      if (System.nanoTime() > end) {
        fail("not rebalanced within " + deadline + " after the " + what + "; still: "
            + going.get());
      }
      Thread.sleep(200); // the polling interval of a condition with a deadline
      going = system.rebalancing();
    }
  }
}
