package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.bench.BenchResult.SkewRow;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The skewed-keys section on a small run: hashing balances every workload and scatters scans;
 * ranges keep scans together, and balance sequential and skewed keys only once they split.
 */
class SkewBenchTest {

  static final long SEED = 7;
  static final int KEYS = 20_000;
  static List<SkewRow> rows;
  static List<String> problems = new ArrayList<>();

  @BeforeAll
  static void run() {
    rows = SkewBench.run(KEYS, 256, SEED, Partitioners.load(), problems);
    rows.forEach(r -> System.out.println("seed " + SEED + ": " + r));
  }

  private static SkewRow row(String workload, String subject) {
    return rows.stream().filter(r -> r.workload().equals(workload)
        && r.subject().equals(subject)).findFirst().orElseThrow();
  }

  @Test
  void everySubjectIsMeasuredOnEveryWorkload() {
    assertThat(problems).isEmpty();
    assertThat(rows).hasSize(3 * 5).allSatisfy(r -> {
      assertThat(r.keys()).isEqualTo(KEYS);
      assertThat(r.nodes()).isEqualTo(SkewBench.NODES);
      assertThat(r.keysMaxAvg()).isGreaterThanOrEqualTo(1.0);
      assertThat(r.scanNodes()).isBetween(1.0, r.scanPartitions());
    });
  }

  @Test
  void hashingBalancesSequentialKeysButScattersScans() {
    SkewRow fixed = row("sequential", "fixed");
    assertThat(fixed.keysMaxAvg()).as("seed %d: %s", SEED, fixed).isLessThan(1.15);
    // 100 consecutive keys over 256 slots hit about 256 * (1 - (255/256)^100) = 83 slots
    assertThat(fixed.scanPartitions()).as("seed %d: %s", SEED, fixed).isBetween(70.0, 95.0);
    assertThat(fixed.scanNodes()).as("seed %d: %s", SEED, fixed).isGreaterThan(9.5);
    assertThat(fixed.splits()).isZero();
  }

  @Test
  void unsplitRangesPutSequentialKeysOnOneNodeAndSplitsSpreadThem() {
    SkewRow unsplit = row("sequential", "range, 16 even, no splits");
    // every counter below 2^56 starts with a zero byte: all in the first of 16 even ranges
    assertThat(unsplit.keysMaxAvg()).as("seed %d: %s", SEED, unsplit)
        .isEqualTo(SkewBench.NODES);
    SkewRow split = row("sequential", "range, 1 range, splits");
    assertThat(split.splits()).as("seed %d: %s", SEED, split).isGreaterThanOrEqualTo(30);
    assertThat(split.keysMaxAvg()).as("seed %d: %s", SEED, split).isLessThan(1.5);
    // ranges of about keys / 40 keys: a 100-key scan crosses a boundary now and then
    assertThat(split.scanPartitions()).as("seed %d: %s", SEED, split).isLessThan(1.5);
    SkewRow tenants = row("tenant-zipf", "range, 1 range, splits");
    assertThat(tenants.keysMaxAvg()).as("seed %d: %s", SEED, tenants).isLessThan(1.5);
    assertThat(row("tenant-zipf", "range, 16 even, no splits").keysMaxAvg())
        .as("seed %d", SEED).isGreaterThan(5.0); // "tenant-" keys share their first bytes
  }

  @Test
  void theReportHasTheSectionTheCsvAndTheJson() {
    BenchResult r = new BenchResult(BenchOptions.defaults(), Map.of(), Map.of(), List.of(),
        List.of(), List.of(), List.of(), 1.0, rows);
    assertThat(Report.html(r)).contains("id=\"skew\"", "id=\"chart-skew\"",
        "range, 1 range, splits", "skew.csv");
    assertThat(Report.skewCsv(r).lines()).hasSize(1 + rows.size()).first().asString()
        .startsWith("workload,subject,nodes,keys,partitions,splits,merges,keys_max_avg");
    assertThat(Report.json(r)).contains("\"skew\": [", "\"workload\": \"tenant-zipf\"");
    BenchResult without = new BenchResult(BenchOptions.defaults(), Map.of(), Map.of(),
        List.of(), List.of(), List.of(), List.of(), 1.0);
    assertThat(Report.html(without)).doesNotContain("id=\"skew\"");
  }
}
