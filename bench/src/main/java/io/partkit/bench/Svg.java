package io.partkit.bench;

import com.google.common.html.HtmlEscapers;
import java.util.List;
import java.util.Locale;

/**
 * Horizontal grouped bar charts as inline SVG: readable without JavaScript, printable, and
 * self-contained (no fonts or scripts fetched). One group of bars per subject, one bar per series
 * (cluster size), an optional dashed reference line (the optimum or the bare hash).
 */
final class Svg {

  static final String[] PALETTE = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};

  private static final int WIDTH = 900;
  private static final int LABEL = 190;
  private static final int RIGHT = 80;
  private static final int BAR = 11;
  private static final int GAP = 8;
  private static final int TOP = 46;

  /** One subject's values, one per series; {@code NaN} draws "n/a". */
  record Group(String label, double[] values) {}

  private Svg() {}

  /**
   * @param id element id (for tests and links)
   * @param title chart title, also the accessible name
   * @param unit axis label
   * @param series series names (legend)
   * @param groups bars
   * @param reference x of a dashed reference line, or {@code NaN}
   * @param referenceLabel its legend text
   * @param log logarithmic axis (for planning times spanning orders of magnitude)
   */
  static String barChart(String id, String title, String unit, List<String> series,
      List<Group> groups, double reference, String referenceLabel, boolean log) {
    double max = Double.isNaN(reference) ? 0 : reference;
    double min = Double.MAX_VALUE;
    for (Group g : groups) {
      for (double v : g.values()) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, v);
          if (v > 0) {
            min = Math.min(min, v);
          }
        }
      }
    }
    if (max <= 0) {
      max = 1;
    }
    double lo = 0;
    double hi = niceCeiling(max * 1.05);
    if (log) {
      lo = Math.pow(10, Math.floor(Math.log10(min == Double.MAX_VALUE ? 1 : min)));
      hi = Math.pow(10, Math.ceil(Math.log10(max)));
      if (hi <= lo) {
        hi = lo * 10;
      }
    }
    int groupHeight = series.size() * BAR + GAP;
    int plotHeight = Math.max(1, groups.size()) * groupHeight;
    int height = TOP + plotHeight + 40;
    int plotWidth = WIDTH - LABEL - RIGHT;
    StringBuilder s = new StringBuilder();
    // inline SVG in HTML needs no xmlns: the page carries no URL at all
    s.append(String.format(Locale.ROOT, "<svg id=\"%s\" class=\"chart\" role=\"img\" "
        + "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">",
        esc(id), WIDTH, height, WIDTH, height));
    s.append("<title>").append(esc(title)).append("</title>");
    s.append(String.format(Locale.ROOT,
        "<text x=\"0\" y=\"16\" class=\"ct\">%s</text>", esc(title)));
    // legend
    int lx = LABEL;
    for (int i = 0; i < series.size(); i++) {
      s.append(String.format(Locale.ROOT,
          "<rect x=\"%d\" y=\"26\" width=\"12\" height=\"10\" fill=\"%s\"/>"
              + "<text x=\"%d\" y=\"35\" class=\"lg\">%s</text>",
          lx, PALETTE[i % PALETTE.length], lx + 16, esc(series.get(i))));
      lx += 24 + 7 * series.get(i).length();
    }
    if (!Double.isNaN(reference)) {
      s.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"31\" x2=\"%d\" y2=\"31\" class=\"ref\"/>"
              + "<text x=\"%d\" y=\"35\" class=\"lg\">%s</text>",
          lx, lx + 18, lx + 22, esc(referenceLabel)));
    }
    // axis and grid
    // linear: five even ticks; log: one tick per decade
    int ticks = log ? (int) Math.round(Math.log10(hi / lo)) : 4;
    for (int t = 0; t <= ticks; t++) {
      double v = log ? lo * Math.pow(10, t) : lo + (hi - lo) * t / 4;
      double x = LABEL + scale(v, lo, hi, log) * plotWidth;
      s.append(String.format(Locale.ROOT,
          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
              + "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
          x, TOP - 4, x, TOP + plotHeight, x, TOP + plotHeight + 14, number(v)));
    }
    s.append(String.format(Locale.ROOT,
        "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
        LABEL + plotWidth / 2, TOP + plotHeight + 32, esc(unit + (log ? " (log scale)" : ""))));
    // bars
    for (int g = 0; g < groups.size(); g++) {
      Group group = groups.get(g);
      int y0 = TOP + g * groupHeight;
      s.append(String.format(Locale.ROOT,
          "<text x=\"%d\" y=\"%d\" class=\"lb\" text-anchor=\"end\">%s</text>",
          LABEL - 8, y0 + series.size() * BAR / 2 + 4, esc(group.label())));
      for (int i = 0; i < series.size(); i++) {
        double v = i < group.values().length ? group.values()[i] : Double.NaN;
        int y = y0 + i * BAR;
        if (Double.isNaN(v)) {
          s.append(String.format(Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" class=\"na\">n/a</text>", LABEL + 4, y + BAR - 2));
          continue;
        }
        double w = Math.max(1, scale(v, lo, hi, log) * plotWidth);
        s.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                + "<title>%s, %s: %s</title></rect>"
                + "<text x=\"%.1f\" y=\"%d\" class=\"val\">%s</text>",
            LABEL, y, w, BAR - 1, PALETTE[i % PALETTE.length], esc(group.label()),
            esc(series.get(i)), number(v), LABEL + w + 3, y + BAR - 2, number(v)));
      }
    }
    if (!Double.isNaN(reference)) {
      double x = LABEL + scale(reference, lo, hi, log) * plotWidth;
      s.append(String.format(Locale.ROOT,
          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"ref\"/>",
          x, TOP - 4, x, TOP + plotHeight));
    }
    s.append("</svg>");
    return s.toString();
  }

  private static double scale(double v, double lo, double hi, boolean log) {
    if (log) {
      double c = Math.max(v, lo);
      return Math.log(c / lo) / Math.log(hi / lo);
    }
    return (v - lo) / (hi - lo);
  }

  private static double niceCeiling(double v) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double step : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
      if (step * magnitude >= v) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  static String number(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a == 0) {
      return "0";
    }
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 0.01) {
      return String.format(Locale.ROOT, "%.3f", v);
    }
    return String.format(Locale.ROOT, "%.2g", v);
  }

  /** Guava's HTML escaper (what the checker's and the harness's pages escape, too). */
  static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}
