package io.partkit.verification.bench;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Models;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The timing loop the bench mains share: every history checked as a cas-register once per
 * round, warm-up rounds first (small histories need a hundred before the JIT settles), every
 * verdict compared with the expected one, and the measured rounds kept per history.
 */
final class RoundTiming {

  /** One history to time. */
  record Case(String name, History history, Verdict expected) {}

  /**
   * Per history (first index) and measured round (second index): the whole check, the verdict
   * and the evidence, in nanoseconds; and per round, warm-up included, the whole round's time, so
   * that a reader can see whether the measured rounds are on the plateau the JIT reaches.
   */
  record Timings(long[][] total, long[][] verdict, long[][] evidence, long[] roundNanos) {

    /**
     * The rounds' times in milliseconds, for a comment line: the first ten, then every
     * {@code every}-th, the median of the last {@code every} warm-up rounds, then the measured
     * rounds' least, median and largest. The two medians are close once the JIT has settled
     * ({@code tools/porcupine-compare/compare.py} prints their ratio); one round alone may have
     * met a garbage collection.
     */
    String roundSummary(int warmup, int every) {
      StringBuilder sb = new StringBuilder();
      for (int r = 0; r < warmup; r++) {
        if (r < 10 || r % every == 0) {
          sb.append(String.format(Locale.ROOT, "r%d %.2f, ", r, roundNanos[r] / 1e6));
        }
      }
      if (warmup > 0) {
        long[] last = Arrays.copyOfRange(roundNanos, Math.max(0, warmup - every), warmup);
        Arrays.sort(last);
        sb.append(String.format(Locale.ROOT, "last %d warm-up median %.2f, ", last.length,
            last[last.length / 2] / 1e6));
      }
      long[] measured = Arrays.copyOfRange(roundNanos, warmup, roundNanos.length);
      Arrays.sort(measured);
      if (measured.length == 0) {
        return sb.toString();
      }
      return sb.append(String.format(Locale.ROOT, "measured min %.2f median %.2f max %.2f",
          measured[0] / 1e6, measured[measured.length / 2] / 1e6,
          measured[measured.length - 1] / 1e6)).toString();
    }
  }

  private RoundTiming() {}

  /**
   * Times every case.
   *
   * @throws IllegalStateException when a verdict is not the expected one
   */
  static Timings measure(List<Case> cases, int warmup, int rounds) {
    var model = Models.casRegister(null);
    CheckOptions options = CheckOptions.defaults();
    int n = cases.size();
    long[][] total = new long[n][rounds];
    long[][] verdict = new long[n][rounds];
    long[][] evidence = new long[n][rounds];
    long[] roundNanos = new long[warmup + rounds];
    for (int r = 0; r < warmup + rounds; r++) {
      long roundStart = System.nanoTime();
      for (int i = 0; i < n; i++) {
        Case c = cases.get(i);
        long t0 = System.nanoTime();
        Analysis a = Linearizability.check(model, c.history(), options);
        long t = System.nanoTime() - t0;
        if (a.verdict() != c.expected()) {
          throw new IllegalStateException(c.name() + ": expected " + c.expected() + ", got "
              + a.verdict());
        }
        if (r >= warmup) {
          total[i][r - warmup] = t;
          verdict[i][r - warmup] = a.verdictNanos();
          evidence[i][r - warmup] = a.evidenceNanos();
        }
      }
      roundNanos[r] = System.nanoTime() - roundStart;
    }
    return new Timings(total, verdict, evidence, roundNanos);
  }
}
