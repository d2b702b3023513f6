package io.partkit.harness.hazelcast;

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
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rebalancing capability on six real members (child JVMs, -Xmx256m) with one backup, as
 * {@code partkit bench --live} drives it: a spare leaves before any data, keys are preloaded,
 * then a join, a graceful leave and a crash, each followed by Hazelcast's own word that the
 * rebalance is done and what its members say they received to create copies.
 */
class HazelcastRebalancingTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration REBALANCE_DEADLINE = Duration.ofSeconds(180);
  private static final int KEYS = 5_000;
  private static final int VALUE_BYTES = 100;

  /** Hazelcast's own placement, and partkit's key-to-partition strategy under Hazelcast's. */
  @ParameterizedTest
  @CsvSource({"hazelcast, native", "partkit, partkit"})
  void countsWhatMembersReceiveAndSaysWhenTheRebalanceIsDone(String partitioning, String placement)
      throws Exception {
    OptionValues options = new HazelcastProvider().options()
        .check(Map.of("backups", "1", "partitioning", partitioning), 6);
    Path dir = Path.of("target", "hz-rebalancing-" + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.processes()) {
      HazelcastSystem hz = new HazelcastSystem();
      try {
        hz.start(new SystemContext(runtime, dir, 6, 7L, options));
        assertThat(hz.placement()).isEqualTo(placement);
        assertThat(hz.copies()).isEqualTo(2);
        assertThat(hz.partitions()).hasValue(271);

        hz.leave("h6"); // the spare, before any data
        RebalancingEvents.awaitRebalanced(hz, "spare's leave", REBALANCE_DEADLINE);
        assertThat(hz.received()).as("members that run").doesNotContainKey("h6").hasSize(5);

        try (DataClient data = hz.openDataClient()) {
          Map<Long, byte[]> batch = new LinkedHashMap<>();
          for (long k = 0; k < KEYS; k++) {
            batch.put(k, value(k));
            if (batch.size() == 500) {
              data.putAll(batch);
              batch.clear();
            }
          }
        }
        long copies = (long) KEYS * hz.copies();

        Received joined = RebalancingEvents.moved(hz, () -> hz.join("h6"), "join of h6",
            REBALANCE_DEADLINE);
        assertThat(joined.keys()).as("keys received for the join, of " + copies + " copies")
            .isBetween((long) (0.10 * copies), (long) (0.35 * copies));
        assertThat(joined.bytes()).as("bytes, as Hazelcast counts the entries")
            .isGreaterThanOrEqualTo((long) VALUE_BYTES * joined.keys());
        long partitionCopies = 271L * hz.copies();
        assertThat(joined.partitions()).as("partition copies received, of " + partitionCopies)
            .isBetween((long) (0.10 * partitionCopies), (long) (0.35 * partitionCopies));

        Received left = RebalancingEvents.moved(hz, () -> hz.leave("h2"), "leave of h2",
            REBALANCE_DEADLINE);
        assertThat(left.keys()).as("keys received for h2's leave").isPositive();
        assertThat(left.partitions()).isPositive();

        Received crashed = RebalancingEvents.moved(hz, () -> {
          assertThat(hz.crash("h3")).contains("kill -9");
          // the failure detector needs seconds to notice: done now would be a lie
          assertThat(hz.rebalancing()).as("right after the crash").isPresent();
        }, "crash of h3", REBALANCE_DEADLINE);
        assertThat(crashed.keys()).as("keys received to re-create h3's copies").isPositive();
        assertThat(crashed.partitions()).isPositive();
        assertThat(hz.received()).as("h3 is gone for good").doesNotContainKey("h3");

        try (DataClient data = hz.openDataClient()) {
          for (long k = 0; k < KEYS; k++) {
            assertThat(data.get(k)).as("key " + k).isEqualTo(value(k));
          }
        }
      } finally {
        hz.close();
      }
    }
  }

  private static byte[] value(long key) {
    byte[] v = new byte[VALUE_BYTES];
    Arrays.fill(v, (byte) key);
    v[0] = (byte) (key >>> 8);
    return v;
  }
}
