package io.partkit.verification.report;

import static io.partkit.verification.report.Html.escape;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.KeyResult;
import io.partkit.verification.checker.Prefix;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.history.Values;
import io.partkit.verification.model.Model;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A self-contained HTML picture of a checked history, in the spirit of Porcupine's
 * visualization: one lane per process, each operation a bar from its invocation to its
 * completion (the x axis is the event's position in the history, so it needs no clock), colours
 * by outcome. For a valid history each bar carries its place in the linearization; for an invalid
 * one the operation that could not be linearized is red, and the longest linearized prefix is
 * numbered. Inline SVG and CSS only: nothing is fetched when the file is viewed.
 */
public final class HtmlReport {
  private HtmlReport() {}

  private static final int LANE = 26;
  private static final int LEFT = 110;

  private record Bar(Op invoke, Op completion, int start, int end) {}

  public static String render(Model<?> model, History history, Analysis a) {
    List<Op> ops = history.ops();
    // linearization numbers (valid) or the longest prefix and the failing op (invalid), by index
    Map<Long, Integer> order = new HashMap<>();
    Long failing = null;
    KeyResult shown = a.failure().orElse(null);
    if (shown != null) {
      failing = shown.evidence().op().index();
      List<Prefix> prefixes = shown.evidence().longestPrefixes();
      if (!prefixes.isEmpty()) {
        number(order, prefixes.get(0).ops());
      }
    } else if (a.verdict() == Verdict.VALID) {
      for (KeyResult k : a.keys()) {
        number(order, k.linearization());
      }
    }
    String svg = svg(ops, order, failing, false);
    String verdict = a.verdict().name().toLowerCase(Locale.ROOT);
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html><html><head><meta charset='utf-8'><title>")
        .append(escape(history.source()))
        .append(" - ")
        .append(verdict)
        .append("</title><style>")
        .append("body{font-family:sans-serif;margin:16px}svg{border:1px solid #ddd}")
        .append(".valid{color:#2a7a22}.invalid{color:#c00}.unknown{color:#a67c00}")
        .append("pre{background:#f6f6f6;padding:8px}")
        .append("</style></head><body>");
    html.append("<h2>")
        .append(escape(history.source()))
        .append(": <span class='")
        .append(verdict)
        .append("'>")
        .append(verdict)
        .append("</span></h2>");
    html.append("<p>model ")
        .append(escape(model.name()))
        .append(", ")
        .append(ops.size())
        .append(" events, ")
        .append(a.keys().size())
        .append(" key(s). Bars run from invocation to completion (x = position in the history). ")
        .append(
            "Green ok, grey fail, dashed yellow info (may take effect any time after its"
                + " invocation, or never), ")
        .append("purple non-client (not checked), red: could not be linearized. #n: place in the ")
        .append(shown != null ? "longest linearized prefix." : "linearization.")
        .append("</p>");
    html.append("<div style='overflow-x:auto'>").append(svg).append("</div>");
    html.append("<pre>")
        .append(escape(AnalysisText.render(model, history, a)))
        .append("</pre></body></html>\n");
    return html.toString();
  }

  /**
   * The picture alone, as a standalone SVG document (Knossos' {@code render-analysis!} writes one
   * per invalid analysis): the history's lanes and bars as in {@link #render}, the operation
   * whose {@link Op#index()} is {@code failing} red (none when null), and the operations of
   * {@code numbered} (by index, invocation or completion) numbered in that order.
   */
  public static String svg(History history, Long failing, List<Long> numbered) {
    Map<Long, Integer> order = new HashMap<>();
    for (int i = 0; i < numbered.size(); i++) {
      order.putIfAbsent(numbered.get(i), i + 1);
    }
    return "<?xml version='1.0' encoding='UTF-8'?>\n"
        + svg(history.ops(), order, failing, true) + "\n";
  }

  private static String svg(List<Op> ops, Map<Long, Integer> order, Long failing,
      boolean standalone) {
    // pair invocations with completions, per process
    Map<Object, Integer> open = new HashMap<>();
    List<Bar> bars = new ArrayList<>();
    Map<Object, Integer> lanes = new LinkedHashMap<>();
    Bar[] barAt = new Bar[ops.size()];
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      lanes.putIfAbsent(op.process(), lanes.size());
      if (op.type() == OpType.INVOKE) {
        open.put(op.process(), i);
      } else {
        Integer inv = open.remove(op.process());
        Bar b = inv == null ? new Bar(op, op, i, i) : new Bar(ops.get(inv), op, inv, i);
        bars.add(b);
        barAt[b.start] = b;
      }
    }
    for (int inv : open.values()) {
      Bar b = new Bar(ops.get(inv), null, inv, ops.size());
      bars.add(b);
      barAt[inv] = b;
    }
    // wide enough to read labels on short histories, narrow enough to scroll through long ones
    int step = Math.max(14, Math.min(60, 1200 / Math.max(1, ops.size())));
    int width = LEFT + (ops.size() + 2) * step;
    int height = (lanes.size() + 1) * LANE + 10;
    StringBuilder svg = new StringBuilder();
    svg.append("<svg ")
        .append(standalone ? "xmlns='http://www.w3.org/2000/svg' " : "")
        .append("width='").append(width).append("' height='").append(height).append("'>")
        .append("<style>")
        .append(".lane{font-size:12px;fill:#333;font-family:sans-serif}.grid{stroke:#eee}")
        .append(".op text{font-size:10px;font-family:monospace;fill:#000;pointer-events:none}")
        .append(".ok rect{fill:#b7e1b0;stroke:#4a9a3f}.fail rect{fill:#eee;stroke:#aaa}")
        .append(".info rect{fill:#ffe8a8;stroke:#c9a230;stroke-dasharray:4 2}")
        .append(".nemesis rect{fill:#d8d0f0;stroke:#7a6bb5}")
        .append(".bad rect{fill:#f4a3a3;stroke:#c00;stroke-width:2}.op:hover rect{stroke:#000}")
        .append("</style>");
    for (Map.Entry<Object, Integer> lane : lanes.entrySet()) {
      int y = 10 + lane.getValue() * LANE;
      svg.append("<text x='4' y='")
          .append(y + 15)
          .append("' class='lane'>process ")
          .append(
              escape(
                  lane.getKey() instanceof String
                      ? ":" + lane.getKey()
                      : Values.toEdn(lane.getKey())))
          .append("</text>");
      svg.append("<line x1='")
          .append(LEFT)
          .append("' x2='")
          .append(width)
          .append("' y1='")
          .append(y + LANE - 3)
          .append("' y2='")
          .append(y + LANE - 3)
          .append("' class='grid'/>");
    }
    for (Bar b : bars) {
      int y = 10 + lanes.get(b.invoke.process()) * LANE;
      int x = LEFT + b.start * step;
      int w = Math.max(step - 2, (b.end - b.start) * step + step - 2);
      Op shownOp =
          b.completion != null && b.completion.type() == OpType.OK ? b.completion : b.invoke;
      String kind = b.completion == null || b.completion.type() == OpType.INFO ? "info"
          : b.completion.type() == OpType.FAIL ? "fail" : "ok";
      if (!b.invoke.isClient()) {
        kind = "nemesis";
      }
      boolean isFailing =
          failing != null && b.completion != null && Objects.equals(failing, b.completion.index())
              || failing != null
                  && b.completion == null
                  && Objects.equals(failing, b.invoke.index())
              || failing != null
                  && b.completion != null
                  && b.completion.type() == OpType.INFO
                  && Objects.equals(failing, b.invoke.index());
      if (isFailing) {
        kind = "bad";
      }
      Integer n = b.completion == null ? order.get(b.invoke.index())
          : order.getOrDefault(b.completion.index(), order.get(b.invoke.index()));
      String label = ":" + shownOp.f() + " " + Values.toEdn(shownOp.value());
      svg.append("<g class='op ")
          .append(kind)
          .append("'><title>")
          .append(escape(title(b, n)))
          .append("</title>")
          .append("<rect x='")
          .append(x)
          .append("' y='")
          .append(y)
          .append("' width='")
          .append(w)
          .append("' height='")
          .append(LANE - 6)
          .append("' rx='3'/>")
          .append("<text x='")
          .append(x + 3)
          .append("' y='")
          .append(y + 14)
          .append("'>")
          .append(n == null ? "" : "#" + n + " ")
          .append(escape(clip(label, Math.max(1, w / 6))))
          .append("</text></g>");
    }
    svg.append("</svg>");
    return svg.toString();
  }

  private static void number(Map<Long, Integer> order, List<Op> linearization) {
    for (int i = 0; i < linearization.size(); i++) {
      order.put(linearization.get(i).index(), i + 1);
    }
  }

  private static String title(Bar b, Integer n) {
    return b.invoke
        + (b.completion == null
            ? "\n(never completed)"
            : b.completion == b.invoke ? "" : "\n" + b.completion)
        + (n == null ? "" : "\nlinearized as #" + n);
  }

  private static String clip(String s, int max) {
    return s.length() <= max ? s : s.substring(0, Math.max(0, max - 1)) + "…";
  }
}
