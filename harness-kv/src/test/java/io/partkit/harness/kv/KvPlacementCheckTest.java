package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.SystemContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The kv system's placement check, on real processes with two copies of each partition: it
 * holds on a settled cluster, names the partitions of a node that is down (its copies are not
 * where the table says), and holds again once that node is back and levelled.
 */
class KvPlacementCheckTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration LONG = Duration.ofSeconds(120);

  @Test
  void holdsOnASettledClusterAndNamesTheCopiesOfANodeThatIsDown() throws Exception {
    OptionValues options =
        new KvProvider().options().check(Map.of("replicas", "2", "partitions", "4"), 3);
    Path dir = Path.of("target", "kv-placement-" + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.processes()) {
      KvSystem kv = new KvSystem();
      try {
        kv.start(new SystemContext(runtime, dir, 3, 31L, options));
        PlacementCheck settled = kv.placementWithin(LONG);
        assertThat(settled.misplaced()).isEmpty();
        assertThat(settled.checked()).as("partitions checked").isEqualTo(4);
        assertThat(settled.rule()).contains("2 copies");

        kv.kill("n3");
        PlacementCheck down = kv.placementWithin(Duration.ofMillis(500));
        assertThat(down.ok()).as("n3's copies are gone while it is down").isFalse();
        assertThat(down.misplaced()).allMatch(line -> line.contains("n3"));

        kv.restart("n3");
        assertThat(kv.placementWithin(LONG).misplaced()).as("n3 back and levelled").isEmpty();
      } finally {
        kv.close();
      }
    }
  }
}
