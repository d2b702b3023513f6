package io.partkit.simulation;

import io.partkit.harness.HistoryEdn;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import io.partkit.verification.report.HtmlReport;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes a seed as {@code partkit verify} writes a run: {@code history.edn} (one op map a line,
 * the same for the same seed, build and options, to the byte), {@code results.edn} and {@code
 * index.html} (the checker's report with the history's timeline, faults included).
 */
public final class SimulationStore {

  private SimulationStore() {}

  /** Writes {@code r} into {@code dir} (created if needed); {@code shrunk} when one was made. */
  public static void write(Path dir, SimulationSpec spec, SeedResult r, String replay,
      Simulation.Shrunk shrunk) {
    try {
      Files.createDirectories(dir);
      try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("history.edn"),
          StandardCharsets.UTF_8)) {
        for (Op op : r.history()) {
          w.write(HistoryEdn.line(op));
          w.newLine();
        }
      }
      Files.writeString(dir.resolve("results.edn"), results(spec, r, replay, shrunk),
          StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("index.html"), HtmlReport.render(
          Models.casRegister(null, NilReads.STRICT),
          History.of(dir.resolve("history.edn").toString(), r.history()), r.linearizability()),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write seed " + r.seed() + " to " + dir, e);
    }
  }

  static String results(SimulationSpec spec, SeedResult r, String replay,
      Simulation.Shrunk shrunk) {
    StringBuilder sb = new StringBuilder("{:valid? ").append(keyword(r.verdict()))
        .append("\n :seed ").append(r.seed())
        .append("\n :reason ").append(quote(r.reason()))
        .append("\n :replay ").append(quote(replay))
        .append("\n :nodes ").append(spec.nodes())
        .append("\n :time-ms ").append(spec.time().toMillis())
        .append("\n :mutant ").append(spec.mutant().map(m -> quote(m.label())).orElse("nil"))
        .append("\n :options {");
    for (Map.Entry<String, String> e : spec.effectiveOptions().entrySet()) {
      String v = e.getValue();
      sb.append(':').append(e.getKey()).append(' ')
          .append(v.chars().allMatch(Character::isDigit) ? v : quote(v)).append(' ');
    }
    sb.append("}\n :ops ").append(r.ops())
        .append("\n :faults ").append(r.faults())
        .append("\n :virtual-ms ").append(r.virtualMillis())
        .append("\n :plan ").append(plan(r.plan()))
        .append("\n :lost-writes ").append(r.lostWrites().lost().size())
        .append("\n :acknowledged-writes ").append(r.lostWrites().acknowledged());
    if (shrunk != null) {
      sb.append("\n :shrunk {:time-ms ").append(shrunk.spec().time().toMillis())
          .append(" :faults ").append(plan(shrunk.plan()))
          .append(" :runs ").append(shrunk.runs())
          .append(" :reason ").append(quote(shrunk.result().reason())).append('}');
    }
    return sb.append("}\n").toString();
  }

  private static String plan(List<Fault> plan) {
    StringBuilder sb = new StringBuilder("[");
    for (Fault f : plan) {
      sb.append(sb.length() > 1 ? " " : "").append(quote(f.toString()));
    }
    return sb.append(']').toString();
  }

  private static String keyword(Verdict v) {
    return switch (v) {
      case VALID -> "true";
      case INVALID -> "false";
      case UNKNOWN -> ":unknown";
    };
  }

  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
