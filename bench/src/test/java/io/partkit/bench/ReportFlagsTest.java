package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.bench.BenchResult.LookupRow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the report says about unreliable lookup rows, the load average and a quick run. */
class ReportFlagsTest {

  private static BenchResult result(BenchOptions options) {
    LookupRow steady = LookupRow.of("fixed", 10, new double[] {12, 12.1, 11.9},
        new double[] {10, 10, 10}, "in-process harness");
    LookupRow artifact = LookupRow.of("rendezvous-bounded", 10, new double[] {6.2, 6.2, 6.2},
        new double[] {10, 10, 10}, "in-process harness");
    return new BenchResult(options.withSizes(List.of(10)),
        Map.of(Bench.LOAD_AT_START, "3.91 2.50 1.20 (2 cores)",
            Bench.LOAD_AT_END, "4.10 2.80 1.30 (2 cores)"),
        Map.of("fixed", "partkit fixed", "rendezvous-bounded", "partkit rendezvous"), List.of(),
        List.of(steady, artifact), List.of(), List.of(), 1.0);
  }

  @Test
  void aFlaggedRowIsMarkedInTheHtmlWithTheLoadAverage() {
    String html = Report.html(result(BenchOptions.defaults()));
    assertThat(html).contains("id=\"unreliable\"").contains("1 of 2 lookup rows are flagged")
        .contains("3.91 2.50 1.20 (2 cores) at the start")
        .contains("<tr class=\"flagged\"><td>&#9888; rendezvous-bounded")
        .contains("faster than the bare hash (0.62x)")
        .doesNotContain("<tr class=\"flagged\"><td>&#9888; fixed")
        .doesNotContain("id=\"quick\"");
    assertThat(html).contains("load average at start (1, 5, 15 min)");
  }

  @Test
  void csvAndJsonCarryTheRoundsAndTheFlag() {
    BenchResult r = result(BenchOptions.defaults());
    List<String> csv = Report.lookupsCsv(r).lines().toList();
    assertThat(csv.get(0)).isEqualTo("subject,nodes,rounds,ns_per_lookup,ns_per_lookup_min,"
        + "ns_per_lookup_max,bare_hash_ns,bare_hash_ns_min,bare_hash_ns_max,ratio,ratio_min,"
        + "ratio_max,flagged,flags,method");
    assertThat(csv.get(1)).startsWith("fixed,10,3,12.0,11.9,12.1,").contains(",false,,");
    assertThat(csv.get(2)).startsWith("rendezvous-bounded,10,3,").contains(",true,");
    String json = Report.json(r);
    assertThat(json).contains("\"flagged\": true").contains("\"flagged\": false")
        .contains("\"lookups_flagged\": 1").contains("\"lookup_spread_limit\": 0.2")
        .contains("\"quick\": false");
  }

  @Test
  void aQuickRunSaysSo() {
    BenchResult r = result(BenchOptions.quickRun());
    assertThat(Report.html(r)).contains("id=\"quick\"").contains("<b>Quick run</b>");
    assertThat(Report.json(r)).contains("\"quick\": true");
  }

  @Test
  void theRingLookupIsDescribedAsTheBucketIndexItIs() {
    BenchResult r = new BenchResult(BenchOptions.defaults().withSizes(List.of(10)), Map.of(),
        Map.of("tokenring-random", "partkit tokenring"), List.of(), List.of(), List.of(),
        List.of(), 1.0);
    assertThat(Report.html(r)).contains("bucket index").doesNotContain("search over all tokens");
  }
}
