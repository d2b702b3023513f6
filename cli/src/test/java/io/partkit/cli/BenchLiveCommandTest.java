package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code partkit bench --live --quick --systems kv}: real clusters of the replica cores under a
 * partkit coordinator, one per strategy (fixed, rendezvous), each through a join, a graceful
 * leave and a kill under client load; live.json has exactly the documented fields per row, and
 * what the nodes say they moved with the fixed strategy agrees with what its placement
 * predicts.
 */
class BenchLiveCommandTest {

  private static final List<String> FIELDS = List.of("system", "placement", "event", "keys",
      "predicted_moved_share", "measured_moved_share", "bytes_moved", "partitions_moved",
      "rebalance_ms", "ops_per_s_steady", "ops_per_s_during", "p99_ms_steady", "p99_ms_during",
      "errors_during");

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cmd = Main.commandLine(new BenchCommand());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    return cmd.execute(args);
  }

  @Test
  void kvStrategiesOnRunningClustersMoveWhatTheirPlacementPredicts(@TempDir Path dir)
      throws Exception {
    Path report = dir.resolve("report");
    int code = run("--live", "--quick", "--systems", "kv", "--subjects", "fixed", "--sizes",
        "10", "--replicas", "1", "--lookup-ms", "10", "--lookup-rounds", "1", "--live-dir",
        dir.resolve("clusters").toString(), "--out", report.toString());
    JsonNode live = new ObjectMapper().readTree(Files.readString(report.resolve("live.json")));
    // fixed and rendezvous under a coordinator, three events each
    assertThat(live.size()).as(err.toString()).isEqualTo(2 * 3);
    for (JsonNode row : live) {
      List<String> names = new ArrayList<>();
      row.fieldNames().forEachRemaining(names::add);
      assertThat(names).containsExactlyElementsOf(FIELDS);
      assertThat(row.get("system").asText()).isEqualTo("kv");
      assertThat(row.get("keys").asLong()).isEqualTo(50_000);
    }
    for (JsonNode row : live) {
      if (!row.get("placement").asText().equals("fixed")) {
        continue;
      }
      String what = "fixed " + row.get("event").asText() + ": " + row + "\n" + err;
      double predicted = row.get("predicted_moved_share").asDouble();
      double measured = row.get("measured_moved_share").asDouble();
      assertThat(predicted).as(what).isBetween(0.05, 0.5);
      assertThat(measured).as(what).isCloseTo(predicted,
          org.assertj.core.data.Percentage.withPercentage(10));
      assertThat(row.get("bytes_moved").asLong()).as(what)
          .isGreaterThanOrEqualTo((long) (measured * 50_000 * 2 * 100));
      assertThat(row.get("partitions_moved").asLong()).as(what).isPositive();
      assertThat(row.get("rebalance_ms").asLong()).as(what).isNotNegative();
      assertThat(row.get("ops_per_s_steady").asDouble()).as(what).isPositive();
    }
    String html = Files.readString(report.resolve("index.html"));
    assertThat(html).contains("id=\"live-table\"", "id=\"live-kv-fixed\"");
    // every row the store could not run says why, and only those make the exit code 1
    boolean allMeasured = true;
    for (JsonNode row : live) {
      allMeasured &= !row.get("measured_moved_share").isNull();
    }
    assertThat(code).as(err.toString()).isEqualTo(allMeasured ? 0 : 1);
  }

  @Test
  void liveOptionsWithoutLiveOrWithAnUnknownSystemAreUsageErrorsBeforeAnythingRuns(
      @TempDir Path dir) {
    Path report = dir.resolve("report");
    assertThat(run("--systems", "kv", "--out", report.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("--systems, --live-keys, --live-rate, --live-dir, "
        + "--runtime and the ssh flags need --live");
    assertThat(run("--live", "--systems", "kv,cassandra", "--out", report.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("unknown system 'cassandra' (known: [kv, ignite, "
        + "hazelcast])");
    assertThat(run("--live", "--live-keys", "5", "--out", report.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("live keys must be in 1000..10000000: 5");
    assertThat(run("--live", "--runtime", "nowhere", "--out", report.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("nowhere");
    assertThat(report).doesNotExist();
  }
}
