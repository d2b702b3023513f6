package io.partkit.harness.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.runtime.FileTrees;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.SystemContext;
import io.partkit.verification.history.OpType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replica system's placement check on real processes, three nodes with two copies of each
 * partition: it holds on a settled cluster with keys written, and names the copies of a node
 * whose data directory was deleted under it without telling the system (its process still
 * runs, so the control still counts it a level member: a misplacement only the check sees).
 */
class KvPlacementCheckTest {

  /** A busy, shared machine: every wait is for a condition, with this much room. */
  private static final Duration LONG = Duration.ofSeconds(120);

  @Test
  void holdsOnASettledClusterAndNamesTheCopiesOfANodeWhoseDataWasDeleted() throws Exception {
    OptionValues options = new KvProvider().options()
        .check(Map.of("replicas", "2", "partitions", "4"), 3);
    Path dir = Path.of("target", "replica-placement-" + System.nanoTime()).toAbsolutePath();
    try (NodeRuntime runtime = Runtimes.processes()) {
      KvSystem replica = new KvSystem();
      try {
        replica.start(new SystemContext(runtime, dir, 3, 35L, options));
        replica.awaitRecovered(LONG);
        try (Client client = replica.openClient()) {
          for (long key = 0; key < 40; key++) {
            Outcome o = client.invoke(new Operation(Operation.WRITE, key, key + 100));
            assertThat(o.type()).as("write of key " + key + ": " + o).isEqualTo(OpType.OK);
          }
        }
        PlacementCheck settled = replica.checkPlacement(LONG).orElseThrow();
        assertThat(settled.misplaced()).isEmpty();
        assertThat(settled.checked()).as("partitions checked").isEqualTo(4);
        assertThat(settled.rule()).contains("2 copies");

        FileTrees.delete(dir.resolve("data").resolve("n2")); // n2 runs on, told nothing
        PlacementCheck planted = replica.checkPlacement(Duration.ofSeconds(2)).orElseThrow();
        assertThat(planted.ok()).as("n2's copies are gone from its disk").isFalse();
        assertThat(planted.misplaced()).as(planted.misplaced().toString())
            .allMatch(line -> line.contains("n2") && line.contains("nothing of it"));
      } finally {
        replica.close();
      }
    }
  }
}
