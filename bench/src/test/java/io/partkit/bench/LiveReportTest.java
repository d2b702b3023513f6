package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partkit.bench.LiveResult.ClientFigures;
import io.partkit.bench.LiveResult.LiveRow;
import io.partkit.bench.LiveResult.LiveSeries;
import io.partkit.bench.LiveResult.Mark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The live section: live.json's exact fields, the table, the findings and the charts. */
class LiveReportTest {

  private static final ClientFigures STEADY = new ClientFigures(3, 1000, 0.4, 1.5, 9, 0);
  private static final ClientFigures DURING = new ClientFigures(1.2, 950, 0.6, 7.5, 40, 2);

  private static LiveResult live() {
    List<LiveRow> rows = List.of(
        new LiveRow("kv", "fixed", "join", 50_000, 2, 0.1667, 0.1641, 1_000_000, 11, 840,
            STEADY, DURING, true, ""),
        new LiveRow("kv", "rendezvous", "join", 50_000, 2, 0.1700, 0.2500, 1_500_000, 16, 1200,
            STEADY, DURING, true, ""),
        LiveRow.notMeasured("kv", "tokenring", "join", 50_000, 2, 0.1667,
            "this system does not split replicated ranges"));
    LiveSeries series = new LiveSeries("kv", "fixed", new double[] {1000, 990, 1001},
        new double[] {1.2, 8.0, 1.1}, new long[] {0, 2, 0},
        List.of(new Mark(0.8, "join"), new Mark(1.9, "rebalanced")));
    return new LiveResult(rows, List.of(series), Map.of("keys", "50,000"));
  }

  @Test
  void liveJsonHasExactlyTheDocumentedFieldsPerRow(@TempDir Path dir) throws Exception {
    BenchResult r = new BenchResult(BenchOptions.defaults().withSizes(List.of(10)), Map.of(),
        Map.of(), List.of(), List.of(), List.of(), List.of(), 1.0, List.of()).withLive(live());
    Report.write(r, dir);
    JsonNode json = new ObjectMapper().readTree(Files.readString(dir.resolve("live.json")));
    assertThat(json.isArray()).isTrue();
    assertThat(json.size()).isEqualTo(3);
    for (JsonNode row : json) {
      List<String> names = new ArrayList<>();
      row.fieldNames().forEachRemaining(names::add);
      assertThat(names).containsExactlyElementsOf(LiveReport.FIELDS);
    }
    JsonNode fixed = json.get(0);
    assertThat(fixed.get("system").asText()).isEqualTo("kv");
    assertThat(fixed.get("measured_moved_share").asDouble()).isEqualTo(0.1641);
    assertThat(fixed.get("p99_ms_during").asDouble()).isEqualTo(7.5);
    assertThat(fixed.get("errors_during").asLong()).isEqualTo(2);
    assertThat(json.get(2).get("measured_moved_share").isNull()).isTrue();
    assertThat(json.get(2).get("predicted_moved_share").asDouble()).isEqualTo(0.1667);
  }

  @Test
  void anUnmeasuredRowIsAProblemAndTheReportSaysWhy(@TempDir Path dir) throws Exception {
    BenchResult r = new BenchResult(BenchOptions.defaults().withSizes(List.of(10)), Map.of(),
        Map.of(), List.of(), List.of(), List.of(), List.of(), 1.0, List.of()).withLive(live());
    assertThat(r.problems()).singleElement().asString()
        .contains("kv/tokenring join").contains("does not split replicated ranges");
    String html = Files.readString(Report.write(r, dir));
    assertThat(html).contains("id=\"live\"", "id=\"live-table\"", "id=\"live-kv-fixed\"")
        .contains("<td>[1]</td>", "<ol class=\"notes\" id=\"live-notes\"><li>this system does "
            + "not split replicated ranges</li></ol>");
  }

  @Test
  void findingsNameWhatDisagreesWithItsPrediction() {
    String findings = LiveReport.findings(live());
    assertThat(findings).contains("1 of 2 measured events moved within 10%")
        .contains("kv/rendezvous join (25.0% against 17.0%)")
        .contains("kv/fixed moved least").contains("4 client operation(s) failed");
  }

  @Test
  void aRunWithoutLiveWritesNoLiveJson(@TempDir Path dir) throws Exception {
    BenchResult r = new BenchResult(BenchOptions.defaults().withSizes(List.of(10)), Map.of(),
        Map.of(), List.of(), List.of(), List.of(), List.of(), 1.0, List.of());
    String html = Files.readString(Report.write(r, dir));
    assertThat(dir.resolve("live.json")).doesNotExist();
    assertThat(html).doesNotContain("id=\"live\"");
  }

  @Test
  void predictionsFollowTheStepsOfARunningCluster() {
    List<String> six = List.of("n1", "n2", "n3", "n4", "n5", "n6");
    List<String> five = six.subList(0, 5);
    double[] fixed = LivePrediction.of("partkit:fixed", 64, 2)
        .copiesMovedShares(List.of(six, five, six));
    assertThat(fixed[0]).isZero();
    // a join of the sixth node creates about a sixth of all copies on it, a leave a fifth
    assertThat(fixed[2]).isBetween(0.14, 0.19);
    assertThat(fixed[1]).isBetween(0.14, 0.22);
    double[] hazelcast = LivePrediction.of("hazelcast", 271, 2)
        .copiesMovedShares(List.of(six, five, six));
    assertThat(hazelcast[2]).isBetween(0.12, 0.30);
  }
}
