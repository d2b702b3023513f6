package io.partkit.verification.report;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.Evidence;
import io.partkit.verification.checker.KeyResult;
import io.partkit.verification.checker.Prefix;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.Values;
import io.partkit.verification.model.Model;
import java.util.List;
import java.util.Locale;

/** Renders an analysis as text for people: the verdict, and the evidence when invalid. */
public final class AnalysisText {
  private AnalysisText() {}

  /** How many operations of a prefix are printed before the failure (the tail is what matters). */
  private static final int SHOWN = 12;

  public static String render(Model<?> model, History history, Analysis a) {
    StringBuilder sb = new StringBuilder();
    sb.append(history.source())
        .append(": ")
        .append(a.verdict().name().toLowerCase(Locale.ROOT))
        .append(
            String.format(
                Locale.ROOT,
                " (%s, %s, %d key(s), %.1f ms)%n",
                model.name(),
                events(history),
                a.keys().size(),
                a.nanos() / 1e6));
    if (a.verdict() == Verdict.VALID && a.clientOperations() == 0) {
      sb.append("0 client operations checked: ")
          .append(history.ops().isEmpty() ? "the history is empty"
              : "the history holds only the nemesis' events")
          .append(", and nothing a client did can be wrong")
          .append(System.lineSeparator());
    }
    if (a.verdict() == Verdict.UNKNOWN) {
      sb.append("cause: ").append(a.cause()).append(System.lineSeparator());
    }
    a.failure().ifPresent(k -> appendEvidence(sb, k));
    return sb.toString();
  }

  /**
   * Every event of the history, told apart: those checked (every process's but the nemesis') and
   * the nemesis' ones, which are not, so that a verdict never hides what it did not look at.
   */
  public static String events(History history) {
    long clients = history.ops().stream().filter(Op::isClient).count();
    return String.format(
        Locale.ROOT,
        "%d events: %d client (checked), %d nemesis (not checked)",
        history.ops().size(),
        clients,
        history.ops().size() - clients);
  }

  private static void appendEvidence(StringBuilder sb, KeyResult k) {
    Evidence e = k.evidence();
    String nl = System.lineSeparator();
    if (k.key() != null) {
      sb.append("key: ").append(Values.toEdn(k.key())).append(nl);
    }
    sb.append("cannot linearize: ").append(e.op()).append(nl);
    sb.append("because: ").append(e.message()).append(nl);
    List<Prefix> prefixes = e.longestPrefixes();
    for (int i = 0; i < prefixes.size(); i++) {
      Prefix p = prefixes.get(i);
      sb.append(
          String.format(
              Locale.ROOT,
              "longest linearized prefix %d of %d (%d ops), ending in state %s:%n",
              i + 1,
              prefixes.size(),
              p.ops().size(),
              Values.toEdn(p.state())));
      List<Op> ops = p.ops();
      int from = Math.max(0, ops.size() - SHOWN);
      if (from > 0) {
        sb.append("  ... ").append(from).append(" earlier ops").append(nl);
      }
      for (int j = from; j < ops.size(); j++) {
        sb.append("  ").append(ops.get(j)).append(nl);
      }
    }
  }
}
