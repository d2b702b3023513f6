package io.partkit.bench;

import static io.partkit.bench.Svg.esc;
import static io.partkit.bench.Svg.number;

import io.partkit.bench.BenchResult.LookupRow;
import io.partkit.bench.BenchResult.PlacementRow;
import io.partkit.bench.BenchResult.PlanningRow;
import io.partkit.bench.BenchResult.SkewRow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Writes a {@link BenchResult} as a report folder: {@code index.html} (self-contained: inline CSS
 * and SVG charts, no script, no external reference, so it works offline and prints), and the same
 * figures as {@code results.json} and CSV files ({@code placements.csv}, {@code lookups.csv},
 * {@code planning.csv}, {@code skew.csv}), and with {@code --live} {@code live.json}.
 */
public final class Report {

  private Report() {}

  /**
   * Writes the report into {@code dir} (created if needed) and returns the path of
   * {@code index.html}.
   *
   * @throws IOException if a file cannot be written
   */
  public static Path write(BenchResult result, Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.json"), json(result), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("placements.csv"), placementsCsv(result), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("lookups.csv"), lookupsCsv(result), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("planning.csv"), planningCsv(result), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("skew.csv"), skewCsv(result), StandardCharsets.UTF_8);
    if (!result.live().isEmpty()) {
      Files.writeString(dir.resolve("live.json"), LiveReport.json(result.live()),
          StandardCharsets.UTF_8);
    }
    Path index = dir.resolve("index.html");
    Files.writeString(index, html(result), StandardCharsets.UTF_8);
    return index;
  }

  // ---------------------------------------------------------------- HTML

  static String html(BenchResult r) {
    List<String> subjects = new ArrayList<>(r.subjects().keySet());
    List<Integer> sizes = r.options().sizes();
    List<String> series = sizes.stream().map(n -> n + " nodes").toList();
    int largest = sizes.stream().mapToInt(Integer::intValue).max().orElse(0);
    int maxRf = r.options().replicas().stream().mapToInt(Integer::intValue).max().orElse(1);
    StringBuilder h = new StringBuilder(64 * 1024);
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>partkit bench report</title><style>").append(CSS).append("</style></head><body>");
    h.append("<h1>partkit: partitioning strategies compared</h1>");
    h.append("<p class=\"lead\">Every subject went through the same harness in one run on this "
        + "machine: ").append(subjects.size()).append(" subjects, clusters of ")
        .append(esc(sizes.toString())).append(" members, ")
        .append(esc(r.options().weights().stream().map(Weights::label).toList().toString()))
        .append(" weights, replication factors ").append(esc(r.options().replicas().toString()))
        .append(String.format(Locale.ROOT, ", in %.0f s.", r.seconds())).append("</p>");
    if (r.options().quick()) {
      h.append("<p class=\"warn\" id=\"quick\"><b>Quick run</b> (<code>--quick</code>): fewer "
          + "sizes, sampled keys and lookup rounds than the full report, for a first look. "
          + "Run <code>partkit bench</code> without it for the figures to rely on.</p>");
    }
    List<LookupRow> flagged = r.lookups().stream().filter(LookupRow::flagged).toList();
    if (!flagged.isEmpty()) {
      h.append("<p class=\"warn\" id=\"unreliable\"><b>").append(flagged.size())
          .append(" of ").append(r.lookups().size()).append(" lookup rows are flagged as "
              + "unreliable</b> (marked &#9888; below): their timed rounds disagree by more than ")
          .append(Math.round(LookupRow.SPREAD_LIMIT * 100)).append("% or they came out faster "
              + "than the bare hash alone. Load average ")
          .append(esc(r.environment().getOrDefault(Bench.LOAD_AT_START, "unknown")))
          .append(" at the start, ")
          .append(esc(r.environment().getOrDefault(Bench.LOAD_AT_END, "unknown")))
          .append(" at the end: rerun on a quiet machine before comparing lookup costs.</p>");
    }

    h.append("<h2 id=\"reading\">Reading: which strategy to choose when</h2>");
    h.append(reading(r, largest));

    h.append("<h2 id=\"balance\">Balance</h2><p>Key space held by the most loaded member over "
        + "the average (weight-normalized; 1.0 is perfect), primary copies. Exact where the "
        + "placement is over hash ranges, else sampled (see the table).</p>");
    for (Weights w : r.options().weights()) {
      h.append(Svg.barChart("chart-balance-" + w.label(), "Key space max/avg, " + w.label()
              + " weights, primaries", "max/avg (1.0 = perfect)", series,
          groups(r, subjects, sizes, w.label(), 1, PlacementRow::keysMaxAvg), 1.0, "perfect",
          false));
    }
    if (maxRf > 1) {
      h.append(Svg.barChart("chart-balance-rf" + maxRf, "Key space max/avg, all " + maxRf
              + " replicas, equal weights", "max/avg (1.0 = perfect)", series,
          groups(r, subjects, sizes, "equal", maxRf, PlacementRow::replicaKeysMaxAvg), 1.0,
          "perfect", false));
    }
    h.append(Svg.barChart("chart-partitions", "Partitions (ranges, buckets) per member, "
            + "max/avg, equal weights", "max/avg (1.0 = perfect)", series,
        groups(r, subjects, sizes, "equal", 1, PlacementRow::partitionsMaxAvg), 1.0, "perfect",
        false));

    h.append("<h2 id=\"movement\">Movement</h2><p>Share of the key space whose primary moved "
        + "when one member joined (n to n+1) or left (n to n-1), over the least any placement "
        + "must move: 1/(n+1) on a join, 1/n on a leave (by weight with mixed weights). "
        + "1.0 is optimal.</p>");
    h.append(Svg.barChart("chart-join", "Moved on one join, x optimum, equal weights, RF 1",
        "moved share / optimal share", series,
        groups(r, subjects, sizes, "equal", 1, p -> p.joinMoved() / p.joinOptimal()), 1.0,
        "optimum", false));
    h.append(Svg.barChart("chart-leave", "Moved on one leave, x optimum, equal weights, RF 1",
        "moved share / optimal share", series,
        groups(r, subjects, sizes, "equal", 1, p -> p.leaveMoved() / p.leaveOptimal()), 1.0,
        "optimum", false));
    h.append(Svg.barChart("chart-churn", "Moved between members that stayed, one join, "
            + "equal weights, RF 1", "share of the key space (0 is ideal)", series,
        groups(r, subjects, sizes, "equal", 1, PlacementRow::joinMovedBetweenStaying),
        Double.NaN, "", false));

    h.append("<h2 id=\"lookup\">Lookup cost</h2><p>Key -&gt; primary lookup over Zipf-skewed "
        + "8-byte keys, over the bare Murmur3 x64_128 hash of the same keys (1.0 = the hash "
        + "alone). Each row is ").append(r.options().lookupRounds()).append(" timed rounds, "
        + "each lookup round right after a round of the bare hash, so every ratio compares "
        + "figures from the same moment; bars show the median ratio, the table the least and "
        + "greatest round. A row is flagged (&#9888;) when its rounds' ratios spread more than ")
        .append(Math.round(LookupRow.SPREAD_LIMIT * 100)).append("% of their median, or when "
            + "it comes out faster than the hash alone (a measurement artifact). In-process "
            + "harness with warm-up; the JMH benchmark <code>LookupBenchmark</code> is the "
            + "authoritative measurement.</p>");
    List<Svg.Group> lookupGroups = new ArrayList<>();
    for (String s : subjects) {
      double[] v = new double[sizes.size()];
      for (int i = 0; i < sizes.size(); i++) {
        int n = sizes.get(i);
        v[i] = r.lookups().stream().filter(l -> l.subject().equals(s) && l.nodes() == n)
            .mapToDouble(LookupRow::ratio).findFirst().orElse(Double.NaN);
      }
      lookupGroups.add(new Svg.Group(s, v));
    }
    h.append(Svg.barChart("chart-lookup", "Lookup over the bare hash, median of rounds",
        "lookup ns / bare hash ns", series, lookupGroups, 1.0, "bare Murmur3 hash", true));

    h.append("<h2 id=\"planning\">Planning cost</h2><p>Time to compute a full assignment "
        + "(median of repetitions after a warm-up), equal weights, RF ").append(maxRf)
        .append("; allocation in the table.</p>");
    List<Svg.Group> planGroups = new ArrayList<>();
    for (String s : subjects) {
      double[] v = new double[sizes.size()];
      for (int i = 0; i < sizes.size(); i++) {
        int n = sizes.get(i);
        v[i] = r.planning().stream().filter(p -> p.subject().equals(s) && p.nodes() == n)
            .mapToDouble(PlanningRow::millis).findFirst().orElse(Double.NaN);
      }
      planGroups.add(new Svg.Group(s, v));
    }
    h.append(Svg.barChart("chart-planning", "Planning: ms per full assignment", "milliseconds",
        series, planGroups, Double.NaN, "", true));

    if (!r.skew().isEmpty()) {
      h.append(skewSection(r));
    }

    if (!r.live().isEmpty()) {
      h.append(LiveReport.html(r.live()));
    }

    h.append("<h2 id=\"tables\">Every figure</h2>");
    h.append(placementTable(r));
    h.append(lookupTable(r));
    h.append(planningTable(r));

    h.append("<h2 id=\"subjects\">Subjects</h2><table><tr><th>subject</th><th>what runs</th></tr>");
    r.subjects().forEach((k, v) -> h.append("<tr><td>").append(esc(k)).append("</td><td>")
        .append(esc(v)).append("</td></tr>"));
    h.append("</table>");
    if (!r.problems().isEmpty()) {
      h.append("<h2 id=\"problems\">Not measured</h2><ul class=\"problems\">");
      r.problems().forEach(p -> h.append("<li>").append(esc(p)).append("</li>"));
      h.append("</ul>");
    }
    h.append("<h2 id=\"machine\">Machine, JVM and seeds</h2><table>");
    r.environment().forEach((k, v) -> h.append("<tr><th>").append(esc(k)).append("</th><td>")
        .append(esc(v)).append("</td></tr>"));
    h.append("</table><p class=\"foot\">The same figures: <a href=\"results.json\">results.json"
        + "</a>, <a href=\"placements.csv\">placements.csv</a>, <a href=\"lookups.csv\">"
        + "lookups.csv</a>, <a href=\"planning.csv\">planning.csv</a>, <a href=\"skew.csv\">"
        + "skew.csv</a>.</p></body></html>\n");
    return h.toString();
  }

  /** Skewed and sequential keys: a chart of keys per node and the table of every figure. */
  private static String skewSection(BenchResult r) {
    StringBuilder h = new StringBuilder();
    SkewRow any = r.skew().get(0);
    h.append("<h2 id=\"skew\">Skewed and sequential keys: hash against range</h2><p>The same ")
        .append(any.keys()).append(" keys per workload inserted in ").append(SkewBench.BATCHES)
        .append(" batches on ").append(any.nodes()).append(" equal nodes, RF 1; every key routed"
            + " through the final table. Hashing spreads any keys but scatters consecutive ones;"
            + " ranges keep them together but follow the keys' distribution until they split (at"
            + " the median key, above keys / (4 x nodes) keys per range). A scan reads ")
        .append(any.scanKeys()).append(" keys consecutive in byte order.</p>");
    List<String> workloads = r.skew().stream().map(SkewRow::workload).distinct().toList();
    List<String> subjects = r.skew().stream().map(SkewRow::subject).distinct().toList();
    List<Svg.Group> groups = new ArrayList<>();
    for (String s : subjects) {
      double[] v = new double[workloads.size()];
      for (int i = 0; i < v.length; i++) {
        String w = workloads.get(i);
        v[i] = r.skew().stream().filter(x -> x.subject().equals(s) && x.workload().equals(w))
            .mapToDouble(SkewRow::keysMaxAvg).findFirst().orElse(Double.NaN);
      }
      groups.add(new Svg.Group(s, v));
    }
    h.append(Svg.barChart("chart-skew", "Keys on the most loaded node over the average",
        "max / avg keys per node", workloads, groups, 1.0, "perfect balance", true));
    h.append("<table class=\"data\"><tr><th>workload</th><th>subject</th><th>partitions</th>"
        + "<th>splits</th><th>merges</th><th>keys max/avg</th><th>keys stddev/avg</th>"
        + "<th>partitions per scan</th><th>nodes per scan</th><th>note</th></tr>");
    for (SkewRow x : r.skew()) {
      h.append("<tr><td>").append(esc(x.workload())).append("</td><td>")
          .append(esc(x.subject())).append("</td>");
      cells(h, x.partitions(), x.splits(), x.merges(), x.keysMaxAvg(), x.keysStdDev(),
          x.scanPartitions(), x.scanNodes(), x.note());
      h.append("</tr>");
    }
    return h.append("</table>").toString();
  }

  private static List<Svg.Group> groups(BenchResult r, List<String> subjects, List<Integer> sizes,
      String weights, int replicas, ToDoubleFunction<PlacementRow> f) {
    List<Svg.Group> groups = new ArrayList<>();
    for (String s : subjects) {
      double[] v = new double[sizes.size()];
      for (int i = 0; i < sizes.size(); i++) {
        v[i] = row(r, s, sizes.get(i), weights, replicas).filter(PlacementRow::measured)
            .map(f::applyAsDouble).orElse(Double.NaN);
      }
      groups.add(new Svg.Group(s, v));
    }
    return groups;
  }

  private static Optional<PlacementRow> row(BenchResult r, String subject, int nodes,
      String weights, int replicas) {
    return r.placements().stream().filter(p -> p.subject().equals(subject) && p.nodes() == nodes
        && p.weights().equals(weights) && p.replicas() == replicas).findFirst();
  }

  /** The short reading: per subject its headline figures, then when to choose what. */
  private static String reading(BenchResult r, int n) {
    StringBuilder h = new StringBuilder();
    h.append("<p>At ").append(n).append(" members, equal weights, primaries:</p><table>"
        + "<tr><th>subject</th><th>key space max/avg</th><th>mixed weights max/avg</th>"
        + "<th>moved on join / optimum</th><th>moved on leave / optimum</th>"
        + "<th>lookup / bare hash</th></tr>");
    List<String[]> ranked = new ArrayList<>();
    for (String s : r.subjects().keySet()) {
      Optional<PlacementRow> eq = row(r, s, n, "equal", 1).filter(PlacementRow::measured);
      Optional<PlacementRow> mixed = row(r, s, n, "mixed", 1).filter(PlacementRow::measured);
      Optional<LookupRow> lookup = r.lookups().stream()
          .filter(l -> l.subject().equals(s) && l.nodes() == n).findFirst();
      h.append("<tr><td>").append(esc(s)).append("</td><td>")
          .append(eq.map(p -> number(p.keysMaxAvg())).orElse("n/a")).append("</td><td>")
          .append(mixed.map(p -> number(p.keysMaxAvg())).orElse("n/a")).append("</td><td>")
          .append(eq.map(p -> number(p.joinMoved() / p.joinOptimal())).orElse("n/a"))
          .append("</td><td>")
          .append(eq.map(p -> number(p.leaveMoved() / p.leaveOptimal())).orElse("n/a"))
          .append("</td><td>").append(lookup.map(l -> number(l.ratio()) + "x"
              + (l.flagged() ? " <span class=\"flag\" title=\"" + esc(l.flags())
                  + "\">&#9888;</span>" : "")).orElse("n/a"))
          .append("</td></tr>");
      eq.ifPresent(p -> ranked.add(new String[] {s, Double.toString(p.keysMaxAvg()),
          Double.toString(p.joinMoved() / p.joinOptimal())}));
    }
    h.append("</table><ul>");
    ranked.sort(Comparator.comparingDouble(a -> Double.parseDouble(a[1])));
    if (!ranked.isEmpty()) {
      h.append("<li><b>Most even</b> at ").append(n).append(" members: ")
          .append(esc(ranked.get(0)[0])).append(" (max/avg ")
          .append(number(Double.parseDouble(ranked.get(0)[1]))).append("); least even: ")
          .append(esc(ranked.get(ranked.size() - 1)[0])).append(" (")
          .append(number(Double.parseDouble(ranked.get(ranked.size() - 1)[1])))
          .append("). The hottest member sets a cluster's capacity: at max/avg m it fills "
              + "up when the cluster is 1/m full.</li>");
    }
    List<String> present = new ArrayList<>(r.subjects().keySet());
    if (present.contains("fixed")) {
      h.append("<li><b>A partition table</b> (<i>fixed</i>) reaches the best spread P fixed "
          + "partitions allow, ceil(P/N)/(P/N), and moves only what a join or leave must: "
          + "choose it when a coordinator can store and publish the table (a sharded service "
          + "with a consistent store).</li>");
    }
    if (present.contains("rendezvous") || present.contains("ignite-rendezvous")) {
      h.append("<li><b>Rendezvous</b> (HRW) needs no stored table: every client computes the "
          + "same owners from the membership alone and nothing moves between members that "
          + "stay. Plain HRW over fixed partitions pays with a hot hottest member once members "
          + "hold few partitions each (Ignite's function shows the same); a load bound caps it "
          + "at the price of extra movement on joins and leaves (see the movement charts).</li>");
    }
    if (present.stream().anyMatch(s -> s.startsWith("tokenring") || s.startsWith("cassandra"))) {
      h.append("<li><b>Token rings</b> fit Cassandra-compatible systems and range scans. "
          + "Random tokens spread about 1/sqrt(tokens per member), so they need many of them; "
          + "an allocator spreads 16 tokens per member more evenly than 256 random ones. "
          + "A ring lookup reads a bucket index over the hash's top bits, then searches the "
          + "few tokens of that bucket: close to a table read, dearer by the search and the "
          + "range-to-owner step.</li>");
    }
    if (present.contains("guava-jump")) {
      h.append("<li><b>Jump hash</b> is perfectly even and minimal for numbered buckets only: "
          + "no weights, no replicas, and only the last bucket can leave.</li>");
    }
    if (present.contains("hazelcast") || present.contains("ignite-rendezvous")) {
      h.append("<li><b>Native placements</b> (Ignite's rendezvous function, Hazelcast's table) "
          + "have no weights; their rows show what a partkit strategy changes at your size.</li>");
    }
    h.append("</ul>");
    return h.toString();
  }

  private static String placementTable(BenchResult r) {
    StringBuilder h = new StringBuilder("<h3>Balance and movement</h3><table class=\"data\">"
        + "<tr><th>subject</th><th>nodes</th><th>weights</th><th>RF</th><th>method</th>"
        + "<th>partitions</th><th>partitions max/avg</th><th>partitions stddev</th>"
        + "<th>keys max/avg</th><th>keys stddev</th><th>replica keys max/avg</th>"
        + "<th>replica keys stddev</th><th>join moved</th><th>join optimal</th>"
        + "<th>join moved between stayers</th><th>join replica copies new</th>"
        + "<th>leave moved</th><th>leave optimal</th><th>leave moved between stayers</th>"
        + "<th>leave replica copies new</th><th>note</th></tr>");
    for (PlacementRow p : r.placements()) {
      h.append("<tr><td>").append(esc(p.subject())).append("</td>");
      cells(h, p.nodes(), p.weights(), p.replicas(), p.method(),
          p.partitions() == 0 ? "" : p.partitions(), p.partitionsMaxAvg(), p.partitionsStdDev(),
          p.keysMaxAvg(), p.keysStdDev(), p.replicaKeysMaxAvg(), p.replicaKeysStdDev(),
          p.joinMoved(), p.joinOptimal(), p.joinMovedBetweenStaying(), p.joinReplicaMoved(),
          p.leaveMoved(), p.leaveOptimal(), p.leaveMovedBetweenStaying(), p.leaveReplicaMoved(),
          p.note());
      h.append("</tr>");
    }
    return h.append("</table>").toString();
  }

  private static String lookupTable(BenchResult r) {
    StringBuilder h = new StringBuilder("<h3>Lookup cost</h3><table class=\"data\"><tr>"
        + "<th>subject</th><th>nodes</th><th>rounds</th><th>ns per lookup (median)</th>"
        + "<th>least</th><th>greatest</th><th>bare Murmur3 ns (median)</th><th>least</th>"
        + "<th>greatest</th><th>lookup / bare hash (median of rounds)</th><th>least</th>"
        + "<th>greatest</th><th>flags</th><th>method</th></tr>");
    for (LookupRow l : r.lookups()) {
      h.append(l.flagged() ? "<tr class=\"flagged\"><td>&#9888; " : "<tr><td>")
          .append(esc(l.subject())).append("</td>");
      cells(h, l.nodes(), l.rounds(), l.nanosPerLookup(), l.lookupMin(), l.lookupMax(),
          l.bareHashNanos(), l.bareHashMin(), l.bareHashMax(), l.ratio(), l.ratioMin(),
          l.ratioMax(), l.flags(), l.method());
      h.append("</tr>");
    }
    return h.append("</table>").toString();
  }

  private static String planningTable(BenchResult r) {
    StringBuilder h = new StringBuilder("<h3>Planning cost</h3><table class=\"data\"><tr>"
        + "<th>subject</th><th>nodes</th><th>RF</th><th>partitions</th><th>ms</th>"
        + "<th>MB allocated</th><th>repetitions</th></tr>");
    for (PlanningRow p : r.planning()) {
      h.append("<tr><td>").append(esc(p.subject())).append("</td>");
      cells(h, p.nodes(), p.replicas(), p.partitions(), p.millis(),
          p.allocatedBytes() / (1024.0 * 1024.0), p.repetitions());
      h.append("</tr>");
    }
    return h.append("</table>").toString();
  }

  private static void cells(StringBuilder h, Object... values) {
    for (Object v : values) {
      String text = v instanceof Double d ? (d.isNaN() ? "n/a" : number(d)) : String.valueOf(v);
      h.append(v instanceof Number ? "<td class=\"n\">" : "<td>").append(esc(text)).append("</td>");
    }
  }

  private static final String CSS = "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',"
      + "Roboto,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#222}"
      + "h1{font-size:24px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #ddd}"
      + "h3{font-size:16px}.lead{font-size:15px}code{background:#f4f4f4;padding:0 3px}"
      + "table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #ddd;"
      + "padding:3px 6px;text-align:left;vertical-align:top}th{background:#f6f6f6}"
      + "td.n{text-align:right;font-variant-numeric:tabular-nums}table.data{font-size:12px}"
      + "svg.chart{display:block;margin:12px 0 20px;max-width:100%;height:auto}"
      + ".ct{font-size:14px;font-weight:600}.lg,.lb{font-size:12px}.tick{font-size:11px;"
      + "fill:#555}.val{font-size:10px;fill:#333}.na{font-size:10px;fill:#999}"
      + ".grid{stroke:#e4e4e4}.ref{stroke:#222;stroke-dasharray:4 3;stroke-width:1.3}"
      + ".problems{color:#8a3b00}.foot{color:#666}"
      + ".warn{background:#fff3e0;border-left:4px solid #e65100;padding:6px 10px}"
      + "tr.flagged td{background:#fff3e0}.flag{color:#e65100}"
      + "@media print{body{max-width:none}svg.chart{page-break-inside:avoid}}";

  // ---------------------------------------------------------------- CSV and JSON

  static String placementsCsv(BenchResult r) {
    StringBuilder c = new StringBuilder("subject,nodes,weights,replicas,method,partitions,"
        + "partitions_max_avg,partitions_stddev,keys_max_avg,keys_stddev,replica_keys_max_avg,"
        + "replica_keys_stddev,join_moved,join_optimal,join_moved_between_staying,"
        + "join_replica_moved,leave_moved,leave_optimal,leave_moved_between_staying,"
        + "leave_replica_moved,note\n");
    for (PlacementRow p : r.placements()) {
      csv(c, p.subject(), p.nodes(), p.weights(), p.replicas(), p.method(), p.partitions(),
          p.partitionsMaxAvg(), p.partitionsStdDev(), p.keysMaxAvg(), p.keysStdDev(),
          p.replicaKeysMaxAvg(), p.replicaKeysStdDev(), p.joinMoved(), p.joinOptimal(),
          p.joinMovedBetweenStaying(), p.joinReplicaMoved(), p.leaveMoved(), p.leaveOptimal(),
          p.leaveMovedBetweenStaying(), p.leaveReplicaMoved(), p.note());
    }
    return c.toString();
  }

  static String lookupsCsv(BenchResult r) {
    StringBuilder c = new StringBuilder("subject,nodes,rounds,ns_per_lookup,ns_per_lookup_min,"
        + "ns_per_lookup_max,bare_hash_ns,bare_hash_ns_min,bare_hash_ns_max,ratio,ratio_min,"
        + "ratio_max,flagged,flags,method\n");
    for (LookupRow l : r.lookups()) {
      csv(c, l.subject(), l.nodes(), l.rounds(), l.nanosPerLookup(), l.lookupMin(),
          l.lookupMax(), l.bareHashNanos(), l.bareHashMin(), l.bareHashMax(), l.ratio(),
          l.ratioMin(), l.ratioMax(), l.flagged(), l.flags(), l.method());
    }
    return c.toString();
  }

  static String planningCsv(BenchResult r) {
    StringBuilder c = new StringBuilder(
        "subject,nodes,replicas,partitions,millis,allocated_bytes,repetitions\n");
    for (PlanningRow p : r.planning()) {
      csv(c, p.subject(), p.nodes(), p.replicas(), p.partitions(), p.millis(),
          p.allocatedBytes(), p.repetitions());
    }
    return c.toString();
  }

  static String skewCsv(BenchResult r) {
    StringBuilder c = new StringBuilder("workload,subject,nodes,keys,partitions,splits,merges,"
        + "keys_max_avg,keys_stddev,scan_keys,scan_partitions,scan_nodes,note\n");
    for (SkewRow x : r.skew()) {
      csv(c, x.workload(), x.subject(), x.nodes(), x.keys(), x.partitions(), x.splits(),
          x.merges(), x.keysMaxAvg(), x.keysStdDev(), x.scanKeys(), x.scanPartitions(),
          x.scanNodes(), x.note());
    }
    return c.toString();
  }

  private static void csv(StringBuilder c, Object... values) {
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        c.append(',');
      }
      Object v = values[i];
      if (v instanceof Double d) {
        c.append(d.isNaN() ? "" : Double.toString(d));
      } else {
        String s = String.valueOf(v);
        c.append(s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s);
      }
    }
    c.append('\n');
  }

  static String json(BenchResult r) {
    StringBuilder j = new StringBuilder("{\n  \"environment\": ");
    map(j, r.environment());
    j.append(",\n  \"subjects\": ");
    map(j, r.subjects());
    j.append(",\n  \"seconds\": ").append(num(r.seconds()));
    j.append(",\n  \"quick\": ").append(r.options().quick());
    j.append(",\n  \"lookup_spread_limit\": ").append(num(LookupRow.SPREAD_LIMIT));
    j.append(",\n  \"lookups_flagged\": ")
        .append(r.lookups().stream().filter(LookupRow::flagged).count());
    j.append(",\n  \"problems\": [");
    for (int i = 0; i < r.problems().size(); i++) {
      j.append(i == 0 ? "" : ", ").append(str(r.problems().get(i)));
    }
    j.append("],\n  \"placements\": [");
    String[] header = placementsCsv(r).lines().findFirst().orElseThrow().split(",");
    rows(j, header, placementsCsv(r));
    j.append("],\n  \"lookups\": [");
    rows(j, lookupsCsv(r).lines().findFirst().orElseThrow().split(","), lookupsCsv(r));
    j.append("],\n  \"planning\": [");
    rows(j, planningCsv(r).lines().findFirst().orElseThrow().split(","), planningCsv(r));
    j.append("],\n  \"skew\": [");
    rows(j, skewCsv(r).lines().findFirst().orElseThrow().split(","), skewCsv(r));
    return j.append("]\n}\n").toString();
  }

  /** JSON objects from the CSV rows (one source of truth for field names and values). */
  private static void rows(StringBuilder j, String[] header, String csv) {
    List<String> lines = csv.lines().skip(1).toList();
    for (int i = 0; i < lines.size(); i++) {
      List<String> cells = splitCsv(lines.get(i));
      j.append(i == 0 ? "\n    {" : ",\n    {");
      for (int k = 0; k < header.length; k++) {
        String v = k < cells.size() ? cells.get(k) : "";
        j.append(k == 0 ? "" : ", ").append(str(header[k])).append(": ");
        j.append(v.isEmpty() ? "null"
            : isNumber(v) || v.equals("true") || v.equals("false") ? v : str(v));
      }
      j.append('}');
    }
    if (!lines.isEmpty()) {
      j.append("\n  ");
    }
  }

  private static List<String> splitCsv(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (quoted) {
        if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cur.append('"');
          i++;
        } else if (ch == '"') {
          quoted = false;
        } else {
          cur.append(ch);
        }
      } else if (ch == '"') {
        quoted = true;
      } else if (ch == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(ch);
      }
    }
    out.add(cur.toString());
    return out;
  }

  private static boolean isNumber(String s) {
    return s.matches("-?\\d+(\\.\\d+)?([eE]-?\\d+)?") && !s.equals("Infinity");
  }

  private static void map(StringBuilder j, Map<String, String> m) {
    j.append('{');
    int i = 0;
    for (Map.Entry<String, String> e : m.entrySet()) {
      j.append(i++ == 0 ? "" : ", ").append(str(e.getKey())).append(": ").append(str(e.getValue()));
    }
    j.append('}');
  }

  static String num(double v) {
    return Double.isFinite(v) ? Double.toString(v) : "null";
  }

  static String str(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (ch < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
