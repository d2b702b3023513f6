package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kv system's rebalancing capability on six node processes with two copies of 32
 * partitions, as {@code partkit bench --live} drives it: a spare leaves before any data, 5,000
 * keys of 100 bytes are written, then a join, a graceful leave and a crash each run until the
 * system says every copy is in place, and what the nodes say they received for each is checked
 * against what the change must create. Every key reads back its value at the end.
 */
class KvRebalancingTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration LONG = Duration.ofSeconds(120);
  private static final int NODES = 6;
  private static final int KEYS = 5000;
  private static final int VALUE_BYTES = 100;
  /**
   * Keys spread evenly over the 8-byte order (key i is i times this, as unsigned), so that key
   * ranges, cut evenly over the keys' first 8 bytes, each hold some: keys 0..4999 would all fall
   * in the first of 32 ranges.
   */
  private static final long STRIDE = Long.divideUnsigned(-1L, KEYS);

  @ParameterizedTest
  @ValueSource(strings = {"fixed", "rendezvous", "range"})
  void aJoinALeaveAndACrashEachReportWhatTheNodesReceivedUntilEveryCopyIsInPlace(
      String strategy) throws Exception {
    OptionValues options = new KvProvider().options().check(
        Map.of("replicas", "2", "partitions", "32", "strategy", strategy), NODES);
    Path dir = Path.of("target", "kv-rebalancing-" + strategy + "-" + System.nanoTime())
        .toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.processes()) {
      KvSystem kv = new KvSystem();
      try {
        kv.start(new SystemContext(runtime, dir, NODES, 41L, options));
        assertThat(kv.placement()).isEqualTo(strategy);
        assertThat(kv.copies()).isEqualTo(2);
        assertThat(kv.partitions()).hasValue(32);
        kv.leave("n6"); // the spare, before any data
        RebalancingEvents.awaitRebalanced(kv, "the spare's leave", LONG);
        preload(kv);

        long copies = (long) KEYS * kv.copies();
        Received join = moved(kv, () -> kv.join("n6"), "the join of n6");
        // a sixth node takes about 1/6 of the copies; 32 partitions make it lumpy
        assertThat(join.keys()).as("keys received for the join of n6, of " + copies + " copies")
            .isBetween((long) (0.10 * copies), (long) (0.25 * copies));
        assertThat(join.bytes()).as("bytes: every entry has a 100-byte value")
            .isGreaterThanOrEqualTo(join.keys() * VALUE_BYTES);
        assertThat(join.partitions()).as("partition copies completed").isPositive();

        Received leave = moved(kv, () -> kv.leave("n2"), "the leave of n2");
        assertThat(leave.keys()).as("keys received for the leave of n2").isPositive();
        assertThat(leave.partitions()).isPositive();

        Received crash = moved(kv, () -> {
          kv.crash("n3");
          // The removal is only sent: the coordinator has not re-created a copy yet, and the
          // table still names n3, so the system must not say it is done.
          assertThat(kv.rebalancing()).as("right after the crash").isPresent();
        }, "the crash of n3");
        assertThat(crash.keys()).as("keys received to re-create n3's copies").isPositive();
        assertThat(crash.bytes()).isGreaterThanOrEqualTo(crash.keys() * VALUE_BYTES);
        assertThat(kv.received()).as("a crashed node is left out").doesNotContainKey("n3");

        try (DataClient client = kv.openDataClient()) {
          for (int i = 0; i < KEYS; i++) {
            assertThat(client.get(key(i))).as("key " + i).isEqualTo(value(i));
          }
        }
      } finally {
        kv.close();
      }
    }
  }

  @Test
  void aTokenRingWithCopiesIsRefusedBeforeAnythingStartsNamingWhy() throws Exception {
    OptionValues options = new KvProvider().options().check(
        Map.of("replicas", "2", "strategy", "tokenring"), NODES);
    assertThat(KvSystem.strategyProblem(options)).hasValueSatisfying(why -> assertThat(why)
        .contains("strategy=tokenring", "replicas=2", "split", "merge"));
    Path dir = Path.of("target", "kv-tokenring-" + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.processes()) {
      KvSystem kv = new KvSystem();
      try {
        assertThatThrownBy(() -> kv.start(new SystemContext(runtime, dir, NODES, 1L, options)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("replicated partition");
      } finally {
        kv.close();
      }
    }
    assertThat(KvSystem.strategyProblem(new KvProvider().options().check(
        Map.of("replicas", "1", "strategy", "tokenring"), NODES))).as("joins only").isEmpty();
    assertThat(KvSystem.strategyProblem(new KvProvider().options().check(
        Map.of("replicas", "2", "strategy", "range"), NODES))).isEmpty();
    assertThatThrownBy(() -> new KvProvider().options().check(Map.of("strategy", "ring"), NODES))
        .hasMessageContaining("strategy=ring").hasMessageContaining("tokenring");
  }

  /** What the running nodes received for {@code event}, printed for a reader comparing. */
  private static Received moved(KvSystem kv, RebalancingEvents.Event event, String what)
      throws Exception {
    Received moved = RebalancingEvents.moved(kv, event, what, LONG);
    System.out.println(kv.placement() + ": " + what + " received " + moved);
    return moved;
  }

  /** Every key, from four writers with a data client each. */
  private static void preload(KvSystem kv) throws Exception {
    int writers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = w;
        done.add(pool.submit(() -> {
          try (DataClient client = kv.openDataClient()) {
            for (int i = first; i < KEYS; i += writers) {
              client.put(key(i), value(i));
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

  private static long key(int i) {
    return i * STRIDE;
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
