package io.partkit.verification.bench;

import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.model.Models;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Times the checker on {@link SmallCorpus} (120 small cas-register histories, 7 invalid), the
 * kind of corpus on which Porcupine was measured at 51 ms (sum of per-file medians; partkit 68 ms
 * before this change) and at 0.2 ms for a single invalid history (partkit 11 ms before). The
 * figures printed next to partkit's are Porcupine's published ones, measured on another corpus of
 * the same kind, not on this one; Porcupine itself checks this corpus side by side with partkit in
 * {@link CompareTiming} and {@code tools/porcupine-compare}.
 *
 * <p>Methodology as {@code CorpusTiming}: histories generated once, {@code warmup} rounds (JIT;
 * 20 rounds are not enough here, the sums are then two to three times higher, and on 2 cores the
 * round times settle only after about 125-150 rounds),
 * then {@code rounds} measured rounds; per file the median, with {@link System#nanoTime()} around
 * one {@link Linearizability#check}; the analysis' own verdict and evidence times are medians too.
 * Every verdict is compared with the one the history has by construction; a wrong one aborts.
 * Also printed: the fixed cost of a check, the median time of checking a one-operation history
 * (one key: the calling thread, no pool) and a two-key history (two threads from the shared pool).
 *
 * <p>Run from the repository root (classpath as in {@link ScaleBenchmark}):
 * <pre>
 * java -cp verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt) \
 *     io.partkit.verification.bench.SmallCorpusTiming [warmup=300] [rounds=30]
 * </pre>
 */
public final class SmallCorpusTiming {
  private SmallCorpusTiming() {}

  static final double PORCUPINE_SUM_MS = 51;
  static final double PORCUPINE_INVALID_MS = 0.2;

  public static void main(String[] args) {
    int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    List<SmallCorpus.Entry> corpus = SmallCorpus.generate();
    int n = corpus.size();
    RoundTiming.Timings timings =
        RoundTiming.measure(
            corpus.stream()
                .map(e -> new RoundTiming.Case(e.name(), e.history(), e.expected()))
                .toList(),
            warmup,
            rounds);
    long[][] total = timings.total();
    long[][] verdict = timings.verdict();
    long[][] evidence = timings.evidence();
    double sumTotal = 0;
    double sumVerdict = 0;
    double worstInvalidVerdict = 0;
    double worstInvalidEvidence = 0;
    double worstVerdict = 0;
    String worstInvalidName = "";
    String worstName = "";
    int invalid = 0;
    for (int i = 0; i < n; i++) {
      double tot = median(total[i]) / 1e6;
      double ver = median(verdict[i]) / 1e6;
      sumTotal += tot;
      sumVerdict += ver;
      if (ver > worstVerdict) {
        worstVerdict = ver;
        worstName = corpus.get(i).name();
      }
      if (corpus.get(i).expected() == io.partkit.verification.checker.Verdict.INVALID) {
        invalid++;
        if (ver > worstInvalidVerdict) {
          worstInvalidVerdict = ver;
          worstInvalidEvidence = median(evidence[i]) / 1e6;
          worstInvalidName = corpus.get(i).name();
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "small corpus: %d histories (%d invalid), %d warm-up rounds, median of %d, %d cores, load"
            + " %.2f%n",
        n,
        invalid,
        warmup,
        rounds,
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.printf(
        Locale.ROOT,
        "sum of medians: check %.2f ms, verdict %.2f ms  (Porcupine, published: %.0f ms; bar %.1f"
            + " ms) %s%n",
        sumTotal,
        sumVerdict,
        PORCUPINE_SUM_MS,
        PORCUPINE_SUM_MS / 2,
        sumVerdict <= PORCUPINE_SUM_MS / 2 ? "ok" : "OVER");
    System.out.printf(Locale.ROOT, "slowest verdict: %s %.3f ms%n", worstName, worstVerdict);
    System.out.printf(
        Locale.ROOT,
        "slowest invalid: %s verdict %.3f ms, evidence %.3f ms  (Porcupine, published: %.1f ms; bar"
            + " %.2f ms) %s%n",
        worstInvalidName,
        worstInvalidVerdict,
        worstInvalidEvidence,
        PORCUPINE_INVALID_MS,
        PORCUPINE_INVALID_MS / 2,
        worstInvalidVerdict <= PORCUPINE_INVALID_MS / 2 ? "ok" : "OVER");
    System.out.printf(
        Locale.ROOT,
        "fixed cost per check: one key %.1f us, two keys (pool) %.1f us%n",
        fixedCost(Models.casRegister(null), CheckOptions.defaults(), false) / 1e3,
        fixedCost(Models.casRegister(null), CheckOptions.defaults(), true) / 1e3);
  }

  /** Median time to check a history of one :ok write, on one key or on two. */
  static double fixedCost(Model<?> model, CheckOptions options, boolean twoKeys) {
    List<Op> ops =
        twoKeys
            ? List.of(
                new Op(0, 0L, OpType.INVOKE, "write", 1L, "a", -1, 0),
                new Op(1, 0L, OpType.OK, "write", 1L, "a", -1, 0),
                new Op(2, 1L, OpType.INVOKE, "write", 1L, "b", -1, 0),
                new Op(3, 1L, OpType.OK, "write", 1L, "b", -1, 0))
            : List.of(Op.of(0, 0, OpType.INVOKE, "write", 1L), Op.of(1, 0, OpType.OK, "write", 1L));
    History h = History.of("fixed", ops);
    long[] t = new long[20_000];
    for (int i = 0; i < t.length; i++) {
      long t0 = System.nanoTime();
      Linearizability.check(model, h, options);
      t[i] = System.nanoTime() - t0;
    }
    return median(Arrays.copyOfRange(t, t.length / 2, t.length));
  }

  private static double median(long[] xs) {
    long[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
