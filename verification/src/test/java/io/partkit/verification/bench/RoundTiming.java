package io.partkit.verification.bench;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Models;
import java.util.List;

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
   * and the evidence, in nanoseconds.
   */
  record Timings(long[][] total, long[][] verdict, long[][] evidence) {}

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
    for (int r = 0; r < warmup + rounds; r++) {
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
    }
    return new Timings(total, verdict, evidence);
  }
}
