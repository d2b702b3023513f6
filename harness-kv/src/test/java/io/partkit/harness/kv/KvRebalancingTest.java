package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Capability.Received;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.testkit.RebalancingEvents;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The replica system's rebalancing capability on six node processes with two copies of 32
 * partitions, as {@code partkit bench --live} drives it: a spare leaves before any data, 5,000
 * keys of 100 bytes are written, then a join, a graceful leave and a crash each run until the
 * system says every copy is in place, and what the nodes say they received for each is checked
 * against what the change must create. Every key reads back its value at the end. With a
 * coordinator deciding the table (its strategies {@code fixed} and {@code rendezvous}), and with
 * the control placing copies by {@code fixed} itself, where a crash is a {@code forget}.
 */
class KvRebalancingTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration LONG = Duration.ofSeconds(180);
  private static final int NODES = 6;
  private static final int KEYS = 5000;
  private static final int VALUE_BYTES = 100;

  @ParameterizedTest(name = "metadata={0} strategy={1}")
  @CsvSource({"coordinator,fixed", "coordinator,rendezvous", "log,fixed"})
  void aJoinALeaveAndACrashEachReportWhatTheNodesReceivedUntilEveryCopyIsInPlace(
      String metadata, String strategy) throws Exception {
    OptionValues options = new KvProvider().options().check(Map.of("replicas", "2",
        "partitions", "32", "metadata", metadata, "strategy", strategy), NODES);
    Path dir = Path.of("target", "replica-rebalancing-" + metadata + "-" + strategy + "-"
        + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.processes()) {
      KvSystem replica = new KvSystem();
      try {
        replica.start(new SystemContext(runtime, dir, NODES, 43L, options));
        assertThat(replica.placement()).isEqualTo(strategy);
        assertThat(replica.copies()).isEqualTo(2);
        assertThat(replica.partitions()).hasValue(32);
        replica.leave("n6"); // the spare, before any data
        RebalancingEvents.awaitRebalanced(replica, "the spare's leave", LONG);
        preload(replica);

        long copies = (long) KEYS * replica.copies();
        Received join = moved(replica, () -> replica.join("n6"), "the join of n6");
        // a sixth node takes about 1/6 of the copies, 32 partitions making it lumpy; the core
        // receives some copies twice (a primary handed over while a joining copy arrives: the
        // new primary sends it whole again), which kept it under twice that
        assertThat(join.keys()).as("keys received for the join of n6, of " + copies + " copies")
            .isBetween((long) (0.10 * copies), (long) (0.40 * copies));
        assertThat(join.bytes()).as("bytes: every entry has a 100-byte value")
            .isGreaterThanOrEqualTo(join.keys() * VALUE_BYTES);
        assertThat(join.partitions()).as("partition copies completed").isPositive();

        Received leave = moved(replica, () -> replica.leave("n2"), "the leave of n2");
        assertThat(leave.keys()).as("keys received for the leave of n2").isPositive();
        assertThat(leave.partitions()).isPositive();

        Received crash = moved(replica, () -> {
          replica.crash("n3");
          // n3's copies are still to be re-created: the system must not say it is done
          assertThat(replica.rebalancing()).as("right after the crash").isPresent();
        }, "the crash of n3");
        assertThat(crash.keys()).as("keys received to re-create n3's copies").isPositive();
        assertThat(crash.bytes()).isGreaterThanOrEqualTo(crash.keys() * VALUE_BYTES);
        assertThat(crash.partitions()).isPositive();
        assertThat(replica.received()).as("a crashed node is left out").doesNotContainKey("n3")
            .containsKeys("n1", "n2", "n4", "n5", "n6");

        try (DataClient client = replica.openDataClient()) {
          for (int i = 0; i < KEYS; i++) {
            assertThat(client.get(i)).as("key " + i).isEqualTo(value(i));
          }
        }
      } finally {
        replica.close();
      }
    }
  }

  /** What the running nodes received for {@code event}, printed for a reader comparing. */
  private static Received moved(KvSystem replica, RebalancingEvents.Event event,
      String what) throws Exception {
    Received moved = RebalancingEvents.moved(replica, event, what, LONG);
    System.out.println(replica.placement() + ": " + what + " received " + moved);
    return moved;
  }

  /** Every key, from four writers with a data client each. */
  private static void preload(KvSystem replica) throws Exception {
    int writers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = w;
        done.add(pool.submit(() -> {
          try (DataClient client = replica.openDataClient()) {
            for (int i = first; i < KEYS; i += writers) {
              client.put(i, value(i));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** 100 bytes that differ per key: its index, then filler. */
  private static byte[] value(int i) {
    ByteBuffer b = ByteBuffer.allocate(VALUE_BYTES).putInt(i);
    while (b.hasRemaining()) {
      b.put((byte) i);
    }
    return b.array();
  }
}
