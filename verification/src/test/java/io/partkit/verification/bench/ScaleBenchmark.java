package io.partkit.verification.bench;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Models;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;

/**
 * The checker's scale goals, measured (a benchmark, not a test):
 * <ul>
 *   <li>{@code keyed}: a harness-style history of 1M operations (2M events) over 1,000 keys,
 *       10 processes per key, about 1% of operations crashed (:info), every key a valid
 *       cas-register history ({@link CasHistories#keyed}): goal at most 10 s on 2 cores in a
 *       1 GB heap;
 *   <li>{@code sequential}: one key, one process, 1M operations (reads, writes, cas): goal at
 *       most 3 s.
 * </ul>
 * Each is generated (seeded, not timed), then checked {@code rounds} times with the default
 * options (one thread per core); printed per round: verdict, wall time of the check, peak heap
 * used during it (the sum of the heap pools' peaks, garbage included) and the load average.
 *
 * <p>Run from the repository root, after {@code ./mvnw -q -B -o -pl verification test-compile}:
 * <pre>
 * ./mvnw -q -B -o -pl verification dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -Xmx1g -cp verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt) \
 *     io.partkit.verification.bench.ScaleBenchmark all 3
 * </pre>
 */
public final class ScaleBenchmark {
  private ScaleBenchmark() {}

  public static void main(String[] args) {
    String which = args.length > 0 ? args[0] : "all";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    System.out.printf(Locale.ROOT, "partkit scale benchmark: %d cores, max heap %d MB%n",
        Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
    if (which.equals("all") || which.equals("keyed")) {
      long t0 = System.nanoTime();
      History h = CasHistories.keyed(9, 1_000, 1_000, 10, 0.005);
      System.out.printf(
          Locale.ROOT,
          "keyed: %d events generated in %.1f s%n",
          h.ops().size(),
          (System.nanoTime() - t0) / 1e9);
      run("keyed 1M ops / 1,000 keys / concurrency 10 (goal 10 s)", h, rounds);
    }
    if (which.equals("all") || which.equals("sequential")) {
      History h = CasHistories.sequential(10, 1_000_000);
      System.out.printf(Locale.ROOT, "sequential: %d events generated%n", h.ops().size());
      run("sequential 1M ops / 1 key (goal 3 s)", h, rounds);
    }
  }

  private static void run(String name, History h, int rounds) {
    for (int r = 0; r < rounds; r++) {
      System.gc();
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        pool.resetPeakUsage();
      }
      long before = usedHeap();
      long t0 = System.nanoTime();
      Analysis a = Linearizability.check(Models.casRegister(null), h, CheckOptions.defaults());
      long nanos = System.nanoTime() - t0;
      long peak = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          peak += pool.getPeakUsage().getUsed();
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%s round %d: %s in %.2f s (verdict %.2f s, evidence %.2f s), heap before %d MB (the"
              + " history), peak %d MB, load %.2f%n",
          name,
          r + 1,
          a.verdict(),
          nanos / 1e9,
          a.verdictNanos() / 1e9,
          a.evidenceNanos() / 1e9,
          before >> 20,
          peak >> 20,
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      if (a.verdict() != Verdict.VALID) {
        System.out.println("unexpected verdict: " + a.cause());
        System.exit(1);
      }
    }
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }
}
