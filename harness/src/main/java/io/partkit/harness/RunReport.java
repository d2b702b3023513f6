package io.partkit.harness;

import static io.partkit.verification.report.Html.escape;

import io.partkit.harness.check.LostWrites;
import io.partkit.harness.check.RunStats;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.KeyResult;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import io.partkit.verification.report.HtmlReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The run's {@code index.html}: one self-contained page (inline SVG and CSS, no script, no
 * external reference) with the verdict, a timeline of operations per worker with the nemesis
 * windows shaded, latency over time, throughput, the keys that failed, the lost writes, the
 * placement check where the system has one, and the checker's own picture of a counterexample.
 */
final class RunReport {

  private static final int WIDTH = 1100;
  private static final int LEFT = 70;
  /** Above this many operations the timeline and latency plots draw an even sample. */
  private static final int MAX_DRAWN = 12_000;

  private RunReport() {}

  private record Span(Op invoke, Op completion) {
    long start() {
      return invoke.time();
    }

    long end(long fallback) {
      return completion == null ? fallback : completion.time();
    }

    OpType type() {
      return completion == null ? OpType.INFO : completion.type();
    }
  }

  record Window(long start, long end, String what) {}

  static String render(VerifySpec spec, RunResult r, List<Op> ops) {
    long endTime = ops.isEmpty() ? 1 : Math.max(1, ops.get(ops.size() - 1).time());
    List<Span> spans = spans(ops);
    List<Window> windows = new ArrayList<>(windows(ops, endTime));
    windows.addAll(phases(ops)); // drawn as marks, listed with the faults
    StringBuilder h = new StringBuilder(64 * 1024);
    h.append("<!DOCTYPE html><html><head><meta charset='utf-8'><title>partkit verify: ")
        .append(escape(spec.system())).append(" ").append(escape(r.verdict().name()))
        .append("</title><style>body{font:14px sans-serif;margin:20px;color:#222}"
            + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
            + "text-align:left}.valid{color:#1a7f37}.invalid{color:#c62828}"
            + ".unknown{color:#b26a00}svg{background:#fafafa;border:1px solid #ddd}"
            + "iframe{width:100%;height:480px;border:1px solid #ddd}</style></head><body>");
    String cls = r.verdict().name().toLowerCase(Locale.ROOT);
    h.append("<h1>partkit verify: ").append(escape(spec.system())).append(" &mdash; <span class='")
        .append(cls).append("'>").append(cls).append("</span></h1>");
    h.append("<p>").append(escape(r.summary())).append("</p>");
    h.append("<p>nodes ").append(spec.nodes()).append(", runtime ")
        .append(escape(spec.runtime().toString()))
        .append(", nemesis ").append(escape(spec.nemeses().isEmpty() ? "none"
            : String.join(", ", spec.nemeses())))
        .append(", time ").append(spec.time().toSeconds()).append(" s, concurrency ")
        .append(spec.concurrency()).append(", rate ").append((long) spec.rate())
        .append(" ops/s, seed ").append(spec.seed())
        .append(spec.options().isEmpty() ? "" : ", options " + escape(spec.options().toString()))
        .append("</p>");
    stats(h, r.stats());
    h.append("<h2>Timeline</h2><p>Operations per worker lane (green ok, red fail, orange unknown,"
        + " whose bar runs to the end); shaded: a fault in force; dashed: the heal, recovery and"
        + " final-read phases begin.</p>");
    timeline(h, spec, spans, windows, endTime);
    h.append("<h2>Latency</h2><p>Each completed operation at its start time (log scale).</p>");
    latency(h, spans, windows, endTime);
    h.append("<h2>Throughput</h2><p>Ok completions per second.</p>");
    throughput(h, r.stats(), windows, endTime);
    keys(h, r.linearizability());
    lost(h, r.lostWrites());
    r.placement().ifPresent(p -> placement(h, p));
    counterexample(h, r.linearizability(), ops);
    h.append("<h2>Faults and phases</h2><table><tr><th>from (s)</th><th>to (s)</th>"
        + "<th>fault</th></tr>");
    for (Window w : windows) {
      h.append("<tr><td>").append(sec(w.start())).append("</td><td>").append(sec(w.end()))
          .append("</td><td>").append(escape(w.what())).append("</td></tr>");
    }
    h.append("</table><p>Files: <code>history.edn</code>, <code>results.edn</code>, one log per"
        + " node.</p></body></html>\n");
    return h.toString();
  }

  private static List<Span> spans(List<Op> ops) {
    Map<Object, Op> open = new HashMap<>();
    List<Span> spans = new ArrayList<>();
    for (Op op : ops) {
      if (!op.isClient()) {
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        open.put(op.process(), op);
      } else {
        Op inv = open.remove(op.process());
        if (inv != null) {
          spans.add(new Span(inv, op));
        }
      }
    }
    open.values().forEach(inv -> spans.add(new Span(inv, null)));
    return spans;
  }

  /**
   * The phases after the faults (heal, recover, final reads) as zero-length windows: a dashed
   * mark on every chart, where clients otherwise seemed to stop for no reason.
   */
  static List<Window> phases(List<Op> ops) {
    List<Window> marks = new ArrayList<>();
    for (Op op : ops) {
      if (!op.isClient() && op.type() == OpType.INFO && "phase".equals(op.f())) {
        marks.add(new Window(op.time(), op.time(), "phase: " + op.value()));
      }
    }
    return marks;
  }

  /**
   * Fault windows: from a start-* completion to the next heal ("stop*") completion. An attempt
   * that injected nothing or failed to start ({@code "nothing: ..."}, {@code "failed: ..."}) is
   * no fault: it was shaded from when it gave up to the next heal.
   */
  static List<Window> windows(List<Op> ops, long endTime) {
    List<Window> windows = new ArrayList<>();
    Op started = null;
    for (Op op : ops) {
      if (op.isClient() || op.type() != OpType.INFO) {
        continue;
      }
      String value = String.valueOf(op.value());
      if (op.f().startsWith("start-")
          && (value.startsWith("nothing: ") || value.startsWith("failed: "))) {
        continue;
      }
      if (op.f().startsWith("start-")) {
        if (started != null) {
          windows.add(new Window(started.time(), op.time(), String.valueOf(started.value())));
        }
        started = op;
      } else if (op.f().startsWith("stop") && started != null) {
        windows.add(new Window(started.time(), op.time(), String.valueOf(started.value())));
        started = null;
      }
    }
    if (started != null) {
      windows.add(new Window(started.time(), endTime, String.valueOf(started.value())));
    }
    return windows;
  }

  private static double x(long t, long endTime) {
    return LEFT + (WIDTH - LEFT - 10) * (double) t / endTime;
  }

  private static void shade(StringBuilder h, List<Window> windows, long endTime, int top,
      int height) {
    for (Window w : windows) {
      if (w.what().startsWith("phase: ")) {
        double xs = x(w.start(), endTime);
        h.append(String.format(Locale.ROOT,
            "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#555' stroke-dasharray='4,3'>"
                + "<title>%s</title></line><text x='%.1f' y='%d' font-size='10'>%s</text>",
            xs, top, xs, top + height, escape(w.what()), xs + 2, top + 22,
            escape(w.what().substring(7))));
        continue;
      }
      h.append(String.format(Locale.ROOT,
          "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#ffcdd2' opacity='0.45'>"
              + "<title>%s</title></rect>", x(w.start(), endTime), top,
          Math.max(1, x(w.end(), endTime) - x(w.start(), endTime)), height, escape(w.what())));
    }
  }

  private static void axis(StringBuilder h, long endTime, int y) {
    long seconds = Math.max(1, endTime / 1_000_000_000L);
    long tick = seconds <= 20 ? 1 : seconds <= 100 ? 5 : seconds <= 300 ? 30 : 60;
    for (long s = 0; s <= seconds; s += tick) {
      double xs = x(s * 1_000_000_000L, endTime);
      h.append(
          String.format(
              Locale.ROOT,
              "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#999'/>"
                  + "<text x='%.1f' y='%d' font-size='10' text-anchor='middle'>%ds</text>",
              xs,
              y,
              xs,
              y + 4,
              xs,
              y + 15,
              s));
    }
  }

  private static String color(OpType t) {
    return switch (t) {
      case OK -> "#2e7d32";
      case FAIL -> "#c62828";
      default -> "#ef6c00";
    };
  }

  private static void timeline(StringBuilder h, VerifySpec spec, List<Span> spans,
      List<Window> windows, long endTime) {
    int lanes = spec.concurrency() + 1; // the last lane: final reads and anything beyond
    int laneHeight = Math.max(6, Math.min(16, 320 / lanes));
    int height = lanes * laneHeight + 30;
    h.append("<svg width='").append(WIDTH).append("' height='").append(height).append("'>");
    shade(h, windows, endTime, 0, lanes * laneHeight);
    int every = Math.max(1, spans.size() / MAX_DRAWN);
    for (int i = 0; i < spans.size(); i += every) {
      Span s = spans.get(i);
      long p = (Long) s.invoke().process();
      int lane = p < spec.concurrency() ? (int) p : (int) Math.min(lanes - 1,
          p % Math.max(1, spec.concurrency()));
      double x1 = x(s.start(), endTime);
      double x2 = Math.max(x1 + 1, x(s.end(endTime), endTime));
      h.append(String.format(Locale.ROOT,
          "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='%s'><title>%s %s %s</title></rect>",
          x1, lane * laneHeight + 1, x2 - x1, laneHeight - 2, color(s.type()),
          escape(s.invoke().f()), escape(String.valueOf(s.invoke().key())),
          escape(s.completion() == null ? "unfinished" : s.completion().type().jepsenName())));
    }
    h.append("<text x='4' y='12' font-size='10'>workers</text>");
    axis(h, endTime, lanes * laneHeight + 2);
    h.append("</svg>");
  }

  private static void latency(StringBuilder h, List<Span> spans, List<Window> windows,
      long endTime) {
    int plot = 220;
    h.append("<svg width='").append(WIDTH).append("' height='").append(plot + 30).append("'>");
    shade(h, windows, endTime, 0, plot);
    double maxLog = Math.log10(100_000); // 100 s in ms
    double minLog = Math.log10(0.1);
    for (double ms : new double[] {0.1, 1, 10, 100, 1000, 10_000}) {
      double y = plot - plot * (Math.log10(ms) - minLog) / (maxLog - minLog);
      h.append(
          String.format(
              Locale.ROOT,
              "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
                  + "<text x='4' y='%.1f' font-size='10'>%s ms</text>",
              LEFT,
              y,
              WIDTH - 10,
              y,
              y + 3,
              ms < 1 ? "0.1" : String.valueOf((long) ms)));
    }
    int every = Math.max(1, spans.size() / MAX_DRAWN);
    for (int i = 0; i < spans.size(); i += every) {
      Span s = spans.get(i);
      if (s.completion() == null) {
        continue;
      }
      double ms = Math.max(0.1, (s.end(endTime) - s.start()) / 1e6);
      double y = plot - plot * (Math.min(maxLog, Math.log10(ms)) - minLog) / (maxLog - minLog);
      h.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='1.6' fill='%s'/>",
          x(s.start(), endTime), y, color(s.type())));
    }
    axis(h, endTime, plot + 2);
    h.append("</svg>");
  }

  private static void throughput(StringBuilder h, RunStats stats, List<Window> windows,
      long endTime) {
    int plot = 140;
    int[] perSecond = stats.okPerSecond();
    int max = 1;
    for (int n : perSecond) {
      max = Math.max(max, n);
    }
    h.append("<svg width='").append(WIDTH).append("' height='").append(plot + 30).append("'>");
    shade(h, windows, endTime, 0, plot);
    for (int s = 0; s < perSecond.length; s++) {
      double x1 = x(s * 1_000_000_000L, endTime);
      double x2 = x((s + 1) * 1_000_000_000L, endTime);
      double bar = (double) plot * perSecond[s] / max;
      h.append(String.format(Locale.ROOT,
          "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#1565c0'><title>%d s: %d ok"
              + "</title></rect>", x1, plot - bar, Math.max(1, x2 - x1 - 1), bar, s,
          perSecond[s]));
    }
    h.append("<text x='4' y='12' font-size='10'>").append(max).append("/s</text>");
    axis(h, endTime, plot + 2);
    h.append("</svg>");
  }

  private static void stats(StringBuilder h, RunStats s) {
    h.append("<table><tr><th>f</th><th>ok</th><th>fail</th><th>info</th></tr>");
    for (String f : s.counts().keySet()) {
      h.append("<tr><td>").append(escape(f)).append("</td><td>").append(s.count(f, OpType.OK))
          .append("</td><td>").append(s.count(f, OpType.FAIL)).append("</td><td>")
          .append(s.count(f, OpType.INFO)).append("</td></tr>");
    }
    double[] l = s.latencyMillis();
    h.append(String.format(Locale.ROOT, "</table><p>availability %.2f%% (answered %.2f%%: ok or"
        + " a cas that found another value, %d of those); ok latency p50 %.2f ms, p95 %.2f ms,"
        + " p99 %.2f ms, max %.1f ms; every operation's wait (ok, fail or info): longest"
        + " %.1f ms, %d over 1 s, %d over 2 s</p>", 100 * s.availability(), 100 * s.answered(),
        s.mismatches(), l[0], l[1], l[2], l[3], s.waits().longestMillis(), s.waits().over1s(),
        s.waits().over2s()));
  }

  private static void keys(StringBuilder h, Analysis a) {
    long valid = a.keys().stream().filter(k -> k.verdict() == Verdict.VALID).count();
    h.append("<h2>Keys</h2><p>").append(a.keys().size()).append(" keys checked as cas-registers: ")
        .append(valid).append(" linearizable");
    if (a.cause() != null) {
      h.append("; ").append(escape(a.cause()));
    }
    h.append(".</p>");
    if (a.keys().size() > 50 && valid == a.keys().size()) {
      return; // long runs list only the keys that need a look: here none (no empty table)
    }
    h.append("<table><tr><th>key</th><th>operations</th><th>verdict</th><th>why</th></tr>");
    for (KeyResult k : a.keys()) {
      if (k.verdict() == Verdict.VALID && a.keys().size() > 50) {
        continue; // long runs: list only the keys that need a look
      }
      String v = k.verdict().name().toLowerCase(Locale.ROOT);
      h.append("<tr><td>").append(escape(String.valueOf(k.key()))).append("</td><td>")
          .append(k.operations()).append("</td><td class='").append(v).append("'>").append(v)
          .append("</td><td>").append(escape(k.evidence() != null ? k.evidence().message()
              : Objects.toString(k.cause(), ""))).append("</td></tr>");
    }
    h.append("</table>");
  }

  private static void lost(StringBuilder h, LostWrites.Result lost) {
    h.append("<h2>Lost writes</h2><p>").append(lost.acknowledged())
        .append(" acknowledged writes on ").append(lost.keys()).append(" keys read at the end: ")
        .append(lost.lost().size()).append(" lost");
    if (!lost.unread().isEmpty()) {
      h.append("; keys never read at the end: ").append(escape(lost.unread().toString()));
    }
    h.append(".</p>");
    if (!lost.lost().isEmpty()) {
      h.append("<table><tr><th>key</th><th>value</th><th>invoked at</th><th>ok at</th>"
          + "<th>why</th></tr>");
      lost.lost().stream().limit(200).forEach(l -> h.append("<tr><td>")
          .append(escape(String.valueOf(l.key()))).append("</td><td>")
          .append(escape(String.valueOf(l.value()))).append("</td><td>").append(l.invokeIndex())
          .append("</td><td>").append(l.okIndex()).append("</td><td>").append(escape(l.why()))
          .append("</td></tr>"));
      h.append("</table>");
    }
  }

  private static void placement(StringBuilder h, PlacementCheck p) {
    h.append("<h2>Placement</h2><p>").append(escape(p.rule())).append(": ").append(p.checked())
        .append(" checked, <span class='").append(p.ok() ? "valid" : "invalid").append("'>")
        .append(p.misplaced().size()).append(" misplaced</span>.</p>");
    if (!p.ok()) {
      h.append("<ul>");
      p.misplaced().stream().limit(200).forEach(m -> h.append("<li>").append(escape(m))
          .append("</li>"));
      h.append("</ul>");
    }
  }

  private static void counterexample(StringBuilder h, Analysis a, List<Op> ops) {
    a.failure().ifPresent(k -> {
      List<Op> keyOps =
          ops.stream().filter(op -> op.isClient() && Objects.equals(op.key(), k.key())).toList();
      Analysis one = new Analysis(Verdict.INVALID, null, List.of(k), a.nanos());
      String picture = HtmlReport.render(Models.casRegister(null, NilReads.STRICT),
          History.of("key " + k.key(), keyOps), one);
      h.append("<h2>Counterexample: key ").append(escape(String.valueOf(k.key())))
          .append("</h2><p>").append(escape(k.evidence().message()))
          .append("</p><iframe srcdoc=\"").append(escape(picture)).append("\"></iframe>");
    });
  }

  private static String sec(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
  }
}
