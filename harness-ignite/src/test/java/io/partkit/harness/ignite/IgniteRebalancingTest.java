package io.partkit.harness.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Capability.Received;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.testkit.RebalancingEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real 4-node Ignite cluster (child JVMs) through the events of {@code partkit bench --live}:
 * a join, a graceful leave and a crash, each waited for with {@link IgniteSystem#rebalancing()}
 * and measured with {@link IgniteSystem#received()}, Ignite's own rebalance metrics.
 */
class IgniteRebalancingTest {

  private static final int KEYS = 5_000;
  private static final int VALUE_BYTES = 100;
  /** Ignite's rebalance and failure detection on two loaded cores: be generous. */
  private static final Duration REBALANCE_DEADLINE = Duration.ofSeconds(180);

  @ParameterizedTest
  @ValueSource(strings = {"partkit-fixed", "native"})
  void joinLeaveAndCrashAreRebalancedAndCountedByIgnite(String affinity) throws Exception {
    Path dir = Path.of("target", "ignite-rebalancing-test", affinity + "-" + System.nanoTime())
        .toAbsolutePath();
    OptionValues options = new IgniteProvider().options().check(
        Map.of("affinity", affinity, "backups", "1", "partitions", "64"), 4);
    NodeRuntime runtime = Runtimes.processes();
    IgniteSystem system = new IgniteSystem();
    try {
      system.start(new SystemContext(runtime, dir, 4, 7L, options));
      assertThat(system.placement()).isEqualTo(affinity);
      assertThat(system.copies()).isEqualTo(2);
      assertThat(system.partitions()).hasValue(64);

      system.leave("n4"); // the spare, before any data
      RebalancingEvents.awaitRebalanced(system, "the spare's leave", REBALANCE_DEADLINE);
      try (DataClient client = system.openDataClient()) {
        for (int from = 0; from < KEYS; from += 500) {
          Map<Long, byte[]> batch = new TreeMap<>();
          for (long k = from; k < from + 500; k++) {
            batch.put(k, value(k));
          }
          client.putAll(batch);
        }
      }
      long copies = (long) KEYS * system.copies();
      // a steady load during the events, as the bench runs one: it rewrites the same values
      AtomicBoolean loading = new AtomicBoolean(true);
      AtomicLong served = new AtomicLong();
      Thread load = new Thread(() -> steadyLoad(system, loading, served), "load");
      load.start();
      try {
        events(system, copies);
      } finally {
        loading.set(false);
        load.join(60_000);
      }
      assertThat(served.get()).as("operations the load got answered").isPositive();

      try (DataClient client = system.openDataClient()) {
        for (long k = 0; k < KEYS; k++) {
          assertThat(client.get(k)).as("key %d", k).isEqualTo(value(k));
        }
      }
    } finally {
      system.close();
      runtime.close();
    }
  }

  /** The bench's three events, each measured; {@code copies} is every key's copies. */
  private static void events(IgniteSystem system, long copies) throws Exception {
    Received join = RebalancingEvents.moved(system, () -> system.join("n4"), "join of n4",
        REBALANCE_DEADLINE);
    // a fourth node takes about a quarter of the copies, and only those are sent to it
    assertThat(join.keys()).as("keys received for the join: %s", join)
        .isBetween((long) (0.10 * copies), (long) (0.40 * copies));
    assertThat(join.bytes()).as("bytes of %s", join).isGreaterThanOrEqualTo(
        VALUE_BYTES * join.keys());
    assertThat(join.partitions()).as("partitions of %s", join).isPositive();

    Received leave = RebalancingEvents.moved(system, () -> system.leave("n2"),
        "graceful leave of n2", REBALANCE_DEADLINE);
    assertThat(leave.keys()).as("keys received for the leave: %s", leave).isPositive()
        .isLessThanOrEqualTo(copies);

    Received crash = RebalancingEvents.moved(system, () -> {
      String what = system.crash("n3");
      assertThat(what).contains("n3");
      // Ignite's failure detector has not removed n3 yet: not done
      assertThat(system.rebalancing()).as("right after the crash").isPresent();
    }, "crash of n3", REBALANCE_DEADLINE);
    // two nodes left with two copies: each receives the copies n3 shared with the other
    assertThat(crash.keys()).as("keys received for the crash: %s", crash).isPositive()
        .isLessThanOrEqualTo(copies);
    assertThat(system.received()).containsOnlyKeys("n1", "n4");
  }

  /** Reads and rewrites random keys until told to stop; a failed operation is not counted. */
  private static void steadyLoad(IgniteSystem system, AtomicBoolean loading, AtomicLong served) {
    Random random = new Random(11);
    try (DataClient client = system.openDataClient()) {
      while (loading.get()) {
        long k = random.nextInt(KEYS);
        try {
          if (random.nextBoolean()) {
            client.put(k, value(k));
          } else {
            client.get(k);
          }
          served.incrementAndGet();
        } catch (Exception e) {
          // a node going away may fail an operation: the load goes on, as the bench's does
        }
        pace();
      }
    }
  }

  /** A steady rate rather than a spin: two cores run the four nodes too. */
  private static void pace() {
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static byte[] value(long key) {
    byte[] v = new byte[VALUE_BYTES];
    Arrays.fill(v, (byte) key);
    v[0] = (byte) (key >> 8);
    v[1] = (byte) (key >> 16);
    return v;
  }
}
