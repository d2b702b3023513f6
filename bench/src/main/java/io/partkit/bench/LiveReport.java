package io.partkit.bench;

import static io.partkit.bench.Svg.esc;
import static io.partkit.bench.Svg.number;

import io.partkit.bench.LiveResult.ClientFigures;
import io.partkit.bench.LiveResult.LiveRow;
import io.partkit.bench.LiveResult.LiveSeries;
import io.partkit.bench.LiveResult.Mark;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The live section of the report ({@code partkit bench --live}): the subject x event table, a
 * finding per question with what it means for choosing, a per-second chart per subject, and
 * {@code live.json}.
 */
final class LiveReport {

  /** Measured within this share of the prediction counts as agreeing. */
  static final double AGREEMENT = 0.10;

  /** live.json's fields, in order; scripts read them by these names. */
  static final List<String> FIELDS = List.of("system", "placement", "event", "keys",
      "predicted_moved_share", "measured_moved_share", "bytes_moved", "partitions_moved",
      "rebalance_ms", "ops_per_s_steady", "ops_per_s_during", "p99_ms_steady", "p99_ms_during",
      "errors_during");

  private LiveReport() {}

  /** {@code live.json}: an array, one object per subject and event, exactly {@link #FIELDS}. */
  static String json(LiveResult live) {
    StringBuilder j = new StringBuilder("[");
    for (int i = 0; i < live.rows().size(); i++) {
      LiveRow r = live.rows().get(i);
      j.append(i == 0 ? "\n  {" : ",\n  {");
      List<String> values = List.of(Report.str(r.system()), Report.str(r.placement()),
          Report.str(r.event()), Long.toString(r.keys()), Report.num(r.predictedMovedShare()),
          Report.num(r.measuredMovedShare()), count(r.bytesMoved()), count(r.partitionsMoved()),
          count(r.rebalanceMs()), Report.num(r.steady().opsPerSecond()),
          Report.num(r.during().opsPerSecond()), Report.num(r.steady().p99Ms()),
          Report.num(r.during().p99Ms()), count(r.during().errors()));
      for (int k = 0; k < FIELDS.size(); k++) {
        j.append(k == 0 ? "" : ", ").append(Report.str(FIELDS.get(k))).append(": ")
            .append(values.get(k));
      }
      j.append('}');
    }
    return j.append(live.rows().isEmpty() ? "]\n" : "\n]\n").toString();
  }

  /** The section of {@code index.html}. */
  static String html(LiveResult live) {
    StringBuilder h = new StringBuilder();
    h.append("<h2 id=\"live\">On running clusters: what a rebalance moves and costs</h2>");
    h.append("<p>Each subject is a real cluster on this machine; the events ran one after "
        + "another, each after the previous rebalance completed. Moved data is what the nodes "
        + "received to create copies, by the system's own counters; the prediction is the "
        + "share of copies the placement algorithm creates on a node that did not hold them "
        + "(the movement section's computation, all copies). Client figures: the steady "
        + "state just before the event, and from the event until the system said its "
        + "rebalance was complete; latency from each operation's intended start.</p>");
    h.append("<table class=\"setup\">");
    live.setup().forEach((k, v) -> h.append("<tr><th>").append(esc(k)).append("</th><td>")
        .append(esc(v)).append("</td></tr>"));
    h.append("</table>");
    h.append(findings(live));
    h.append(table(live));
    for (LiveSeries s : live.series()) {
      h.append(chart(s));
    }
    h.append("<p class=\"foot\">The same figures: <a href=\"live.json\">live.json</a>.</p>");
    return h.toString();
  }

  private static String table(LiveResult live) {
    StringBuilder h = new StringBuilder("<table id=\"live-table\"><tr><th>subject</th>"
        + "<th>event</th><th>keys</th><th>predicted moved</th><th>measured moved</th>"
        + "<th>measured / predicted</th><th>bytes moved</th><th>partitions moved</th>"
        + "<th>rebalance ms</th><th>ops/s steady</th><th>ops/s during</th>"
        + "<th>p50 ms steady / during</th><th>p99 ms steady / during</th>"
        + "<th>max ms steady / during</th><th>errors during</th><th>note</th></tr>");
    // a note is said once under the table, each row pointing at it: the reasons are long
    List<String> notes = new ArrayList<>();
    for (LiveRow r : live.rows()) {
      h.append("<tr").append(r.measured() ? "" : " class=\"unmeasured\"").append("><td>")
          .append(esc(r.subject())).append("</td><td>").append(esc(r.event())).append("</td>");
      cell(h, String.format(Locale.ROOT, "%,d", r.keys()));
      cell(h, percent(r.predictedMovedShare()));
      cell(h, percent(r.measuredMovedShare()));
      cell(h, number(r.ratio()));
      cell(h, r.bytesMoved() < 0 ? "n/a" : String.format(Locale.ROOT, "%,d", r.bytesMoved()));
      cell(h, r.partitionsMoved() < 0 ? "n/a" : Long.toString(r.partitionsMoved()));
      cell(h, r.rebalanceMs() < 0 ? "n/a" : String.format(Locale.ROOT, "%,d", r.rebalanceMs()));
      cell(h, number(r.steady().opsPerSecond()));
      cell(h, number(r.during().opsPerSecond()));
      cell(h, pair(r.steady().p50Ms(), r.during().p50Ms()));
      cell(h, pair(r.steady().p99Ms(), r.during().p99Ms()));
      cell(h, pair(r.steady().maxMs(), r.during().maxMs()));
      cell(h, r.during().errors() < 0 ? "n/a" : Long.toString(r.during().errors()));
      if (r.note().isEmpty()) {
        cell(h, "");
      } else {
        if (!notes.contains(r.note())) {
          notes.add(r.note());
        }
        cell(h, "[" + (notes.indexOf(r.note()) + 1) + "]");
      }
      h.append("</tr>");
    }
    h.append("</table>");
    if (!notes.isEmpty()) {
      h.append("<ol class=\"notes\" id=\"live-notes\">");
      notes.forEach(n -> h.append("<li>").append(esc(n)).append("</li>"));
      h.append("</ol>");
    }
    return h.toString();
  }

  /**
   * The findings, each with a sentence on what it means for choosing: does the system move what
   * its placement predicts, which placement moves least, and what the clients feel.
   */
  static String findings(LiveResult live) {
    List<LiveRow> measured = live.rows().stream().filter(LiveRow::measured).toList();
    StringBuilder h = new StringBuilder("<div class=\"reading\">");
    if (measured.isEmpty()) {
      return h.append("<p>Nothing could be measured live; the table says why.</p></div>")
          .toString();
    }
    List<LiveRow> off = measured.stream().filter(r -> !agrees(r)).toList();
    h.append("<p><b>Moved as predicted:</b> ").append(measured.size() - off.size())
        .append(" of ").append(measured.size()).append(" measured events moved within ")
        .append(Math.round(AGREEMENT * 100)).append("% of what their placement predicts");
    if (off.isEmpty()) {
      h.append(". The offline movement figures can be trusted for these systems: choose by "
          + "them.</p>");
    } else {
      h.append("; not: ");
      List<String> names = new ArrayList<>();
      for (LiveRow r : off) {
        names.add(r.subject() + " " + r.event() + " (" + percent(r.measuredMovedShare())
            + " against " + percent(r.predictedMovedShare()) + ")");
      }
      h.append(esc(String.join(", ", names))).append(". Where a system moves more than its "
          + "placement needs, the offline figures understate its cost: the notes say why, "
          + "and the measured share is the one to plan with.</p>");
    }
    for (String event : events(measured)) {
      List<LiveRow> rows = measured.stream().filter(r -> r.event().equals(event)).toList();
      LiveRow least = rows.stream().min(Comparator.comparingDouble(LiveRow::measuredMovedShare))
          .orElseThrow();
      LiveRow most = rows.stream().max(Comparator.comparingDouble(LiveRow::measuredMovedShare))
          .orElseThrow();
      LiveRow fastest = rows.stream().min(Comparator.comparingLong(LiveRow::rebalanceMs))
          .orElseThrow();
      LiveRow slowest = rows.stream().max(Comparator.comparingLong(LiveRow::rebalanceMs))
          .orElseThrow();
      h.append("<p><b>").append(esc(event)).append(":</b> ").append(esc(least.subject()))
          .append(" moved least (").append(percent(least.measuredMovedShare())).append(" of "
              + "copies), ").append(esc(most.subject())).append(" most (")
          .append(percent(most.measuredMovedShare())).append("); rebalancing took ")
          .append(String.format(Locale.ROOT, "%,d", fastest.rebalanceMs())).append(" ms on ")
          .append(esc(fastest.subject())).append(" up to ")
          .append(String.format(Locale.ROOT, "%,d", slowest.rebalanceMs())).append(" ms on ")
          .append(esc(slowest.subject())).append(". ");
      h.append(rows.size() > 1 && most.measuredMovedShare() > 1.2 * least.measuredMovedShare()
          ? "Data moved is network and disk work on every " + esc(event) + ". On a join, "
              + "less than the joiner's fair share means it took less than its share of the "
              + "data; on a leave or a kill, moving less means the node held less than its "
              + "share: read the difference with the balance section before preferring it."
          : "The placements move about the same here: choose on balance and lookup cost "
              + "instead.");
      h.append("</p>");
    }
    Optional<LiveRow> worst = measured.stream().filter(r -> Double.isFinite(r.during().p99Ms())
            && Double.isFinite(r.steady().p99Ms()) && r.steady().p99Ms() > 0)
        .max(Comparator.comparingDouble(r -> r.during().p99Ms() / r.steady().p99Ms()));
    long errors = measured.stream().mapToLong(r -> Math.max(0, r.during().errors())).sum();
    h.append("<p><b>What clients feel:</b> ");
    worst.ifPresent(r -> h.append("the largest p99 rise was on ").append(esc(r.subject()))
        .append(" during its ").append(esc(r.event())).append(" (")
        .append(number(r.steady().p99Ms())).append(" ms steady, ")
        .append(number(r.during().p99Ms())).append(" ms during); "));
    h.append(errors).append(" client operation(s) failed during rebalances in all. ")
        .append(errors == 0 ? "A rebalance cost latency, not availability, on these systems."
            : "Clients of the subjects with errors must retry through a rebalance.")
        .append("</p></div>");
    return h.toString();
  }

  static boolean agrees(LiveRow r) {
    double ratio = r.ratio();
    return Double.isFinite(ratio) && Math.abs(ratio - 1) <= AGREEMENT;
  }

  private static Set<String> events(List<LiveRow> rows) {
    Set<String> events = new LinkedHashSet<>();
    rows.forEach(r -> events.add(r.event()));
    return events;
  }

  private static final int WIDTH = 900;
  private static final int LEFT = 60;
  private static final int PANEL = 110;
  private static final int TOP = 30;

  /** Two panels over one time axis: completed operations per second, then p99; events marked. */
  static String chart(LiveSeries s) {
    double[] ops = s.opsPerSecond();
    double[] p99 = s.p99Ms();
    int seconds = Math.max(1, ops.length);
    int plotWidth = WIDTH - LEFT - 20;
    int height = TOP + 2 * PANEL + 60;
    StringBuilder h = new StringBuilder();
    String id = "live-" + s.subject().replaceAll("[^A-Za-z0-9]+", "-");
    h.append(String.format(Locale.ROOT, "<svg id=\"%s\" class=\"chart\" role=\"img\" "
        + "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">", esc(id), WIDTH, height, WIDTH,
        height));
    String title = s.subject() + ": clients second by second (ops/s above, p99 ms below)";
    h.append("<title>").append(esc(title)).append("</title>");
    h.append("<text x=\"0\" y=\"16\" class=\"ct\">").append(esc(title)).append("</text>");
    panel(h, ops, TOP, plotWidth, seconds, "ops/s", Svg.PALETTE[0]);
    panel(h, p99, TOP + PANEL + 20, plotWidth, seconds, "p99 ms", Svg.PALETTE[1]);
    for (Mark m : s.marks()) {
      double x = LEFT + m.second() / seconds * plotWidth;
      h.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
          + "class=\"ref\"/><text x=\"%.1f\" y=\"%d\" class=\"lg\">%s</text>", x, TOP, x,
          TOP + 2 * PANEL + 20, x + 2, TOP + 2 * PANEL + 34, esc(m.label())));
    }
    h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"tick\">0 s</text>"
        + "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%d s</text>", LEFT,
        height - 6, LEFT + plotWidth, height - 6, seconds));
    return h.append("</svg>").toString();
  }

  private static void panel(StringBuilder h, double[] values, int top, int plotWidth,
      int seconds, String unit, String colour) {
    double max = 0;
    for (double v : values) {
      if (Double.isFinite(v)) {
        max = Math.max(max, v);
      }
    }
    max = max <= 0 ? 1 : max * 1.1;
    h.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
        + "class=\"grid\"/><text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%s</text>"
        + "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%s</text>", LEFT,
        top + PANEL, LEFT + plotWidth, top + PANEL, LEFT - 4, top + 10, number(max), LEFT - 4,
        top + PANEL, unit));
    StringBuilder points = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (!Double.isFinite(values[i])) {
        continue;
      }
      double x = LEFT + (i + 0.5) / seconds * plotWidth;
      double y = top + PANEL - values[i] / max * PANEL;
      points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
    }
    h.append("<polyline fill=\"none\" stroke=\"").append(colour)
        .append("\" stroke-width=\"1.5\" points=\"").append(points.toString().trim())
        .append("\"/>");
  }

  private static void cell(StringBuilder h, String text) {
    h.append("<td>").append(esc(text)).append("</td>");
  }

  private static String pair(double steady, double during) {
    return number(steady) + " / " + number(during);
  }

  static String percent(double share) {
    return Double.isFinite(share) ? String.format(Locale.ROOT, "%.1f%%", share * 100) : "n/a";
  }

  private static String count(long v) {
    return v < 0 ? "null" : Long.toString(v);
  }
}
