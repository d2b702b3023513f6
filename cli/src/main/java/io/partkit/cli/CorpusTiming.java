package io.partkit.cli;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.Histories;
import io.partkit.verification.history.History;
import io.partkit.verification.history.HistoryParseException;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Times the checker on the Porcupine corpus, in one JVM, for comparison with Porcupine's own
 * numbers (889 ms for the 102 etcd histories, 316 ms for etcd_002, 199 / 31 ms for c50-ok /
 * c50-bad on this kind of machine).
 *
 * <p>Methodology: every history is parsed once (parsing is not timed); then {@code warmup}
 * rounds check every file (JIT warm-up, results discarded but verified; on 2 cores the JIT
 * settles on the etcd histories only after about 200 rounds, so the command's default is 300),
 * then {@code rounds} measured rounds; each file's time is the median of its measured rounds, with
 * {@link System#nanoTime()} around one {@link Linearizability#check} call. Reported: the sum of
 * the etcd medians, the worst etcd median, and the c50-ok / c50-bad medians. Every verdict is
 * compared with EXPECTED.tsv; a wrong verdict aborts the run. The verdict column is the median of
 * {@link Analysis#verdictNanos()}: the check without the evidence of an invalid history, which is
 * computed after the verdict and timed apart.
 *
 * <p>A benchmark, so it lives with the command that runs it:
 * {@code ./partkit check --bench data/histories/porcupine [--warmup 300] [--rounds 20]}.
 */
final class CorpusTiming {
  private CorpusTiming() {}

  /**
   * One file's measured times: the whole check (median, best) and the median of the analysis'
   * verdict time (the check without the evidence of an invalid history, timed apart).
   */
  record FileTiming(
      String path, Verdict verdict, long medianNanos, long minNanos, long verdictMedianNanos) {}

  /** The four figures and every file's timing. */
  record Result(
      List<FileTiming> files,
      long etcdSumNanos,
      long etcdSumMinNanos,
      long etcdVerdictSumNanos,
      FileTiming worstEtcd,
      FileTiming c50ok,
      FileTiming c50bad,
      int warmup,
      int rounds) {}

  /**
   * Runs the timing.
   *
   * @throws IllegalStateException if a verdict differs from EXPECTED.tsv
   */
  static Result run(Path dir, int warmup, int rounds)
      throws IOException, HistoryParseException {
    List<String[]> rows = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("EXPECTED.tsv"))) {
      String[] f = line.split("\t");
      if (f.length >= 3 && !f[0].equals("relative_path") && !f[2].equals("n/a")) {
        rows.add(f);
      }
    }
    int n = rows.size();
    History[] histories = new History[n];
    Model<?>[] models = new Model<?>[n];
    Verdict[] expected = new Verdict[n];
    for (int i = 0; i < n; i++) {
      String path = rows.get(i)[0];
      histories[i] = Histories.read(dir.resolve(path));
      models[i] = path.contains("/kv/") ? Models.kv("") : Models.casRegister(null);
      expected[i] = rows.get(i)[2].equals("linearizable") ? Verdict.VALID : Verdict.INVALID;
    }
    CheckOptions options = CheckOptions.defaults();
    long[][] times = new long[n][rounds];
    long[][] verdictTimes = new long[n][rounds];
    for (int r = 0; r < warmup + rounds; r++) {
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        Analysis a = Linearizability.check(models[i], histories[i], options);
        long t = System.nanoTime() - t0;
        if (a.verdict() != expected[i]) {
          throw new IllegalStateException(
              rows.get(i)[0] + ": expected " + expected[i] + ", got " + a.verdict());
        }
        if (r >= warmup) {
          times[i][r - warmup] = t;
          verdictTimes[i][r - warmup] = a.verdictNanos();
        }
      }
    }
    List<FileTiming> files = new ArrayList<>();
    long etcdSum = 0;
    long etcdSumMin = 0;
    long etcdVerdictSum = 0;
    FileTiming worst = null;
    FileTiming c50ok = null;
    FileTiming c50bad = null;
    for (int i = 0; i < n; i++) {
      long[] t = times[i].clone();
      Arrays.sort(t);
      long[] v = verdictTimes[i].clone();
      Arrays.sort(v);
      FileTiming ft =
          new FileTiming(rows.get(i)[0], expected[i], t[t.length / 2], t[0], v[v.length / 2]);
      files.add(ft);
      if (ft.path().contains("etcd_")) {
        etcdSum += ft.medianNanos();
        etcdSumMin += ft.minNanos();
        etcdVerdictSum += ft.verdictMedianNanos();
        if (worst == null || ft.medianNanos() > worst.medianNanos()) {
          worst = ft;
        }
      } else if (ft.path().endsWith("c50-ok.txt")) {
        c50ok = ft;
      } else if (ft.path().endsWith("c50-bad.txt")) {
        c50bad = ft;
      }
    }
    return new Result(
        files, etcdSum, etcdSumMin, etcdVerdictSum, worst, c50ok, c50bad, warmup, rounds);
  }

  /** Prints the four figures against half of Porcupine's. */
  static void print(Result r, PrintWriter out) {
    out.printf(
        "partkit corpus timing: %d files, %d warm-up rounds, median of %d measured rounds, %d"
            + " cores, verdicts all as EXPECTED.tsv%n",
        r.files().size(), r.warmup(), r.rounds(), Runtime.getRuntime().availableProcessors());
    out.printf(
        "system load average at the end: %.1f (other processes share these cores; wall-clock times"
            + " include their interference)%n",
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    out.printf(
        "%-28s %12s %12s %12s %12s %10s%n",
        "figure", "median", "best", "verdict", "porcupine", "bar (1/2)");
    line(
        out,
        "etcd sum (102 files)",
        r.etcdSumNanos(),
        r.etcdSumMinNanos(),
        r.etcdVerdictSumNanos(),
        889);
    line(
        out,
        "worst etcd (" + Path.of(r.worstEtcd().path()).getFileName() + ")",
        r.worstEtcd().medianNanos(),
        r.worstEtcd().minNanos(),
        r.worstEtcd().verdictMedianNanos(),
        316);
    line(
        out,
        "c50-ok",
        r.c50ok().medianNanos(),
        r.c50ok().minNanos(),
        r.c50ok().verdictMedianNanos(),
        199);
    line(
        out,
        "c50-bad",
        r.c50bad().medianNanos(),
        r.c50bad().minNanos(),
        r.c50bad().verdictMedianNanos(),
        31);
  }

  private static void line(
      PrintWriter out, String what, long median, long best, long verdict, int porcupineMs) {
    out.printf(
        "%-28s %9.2f ms %9.2f ms %9.2f ms %9d ms %7.1f ms  %s%n",
        what,
        median / 1e6,
        best / 1e6,
        verdict / 1e6,
        porcupineMs,
        porcupineMs / 2.0,
        median / 1e6 <= porcupineMs / 2.0 ? "ok" : "OVER");
  }
}
