package io.partkit.verification.bench;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.history.Histories;
import io.partkit.verification.history.History;
import io.partkit.verification.history.HistoryParseException;
import io.partkit.verification.history.Independent;
import io.partkit.verification.model.Models;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Round-based timing of reading history files ("reading at the speed of the disk"): per
 * file, {@code rounds} reads by {@link Histories#read(Path)} (the command line's), each printed
 * with its MB/s (by the wall clock, and by the reading thread's CPU time: the rate on one core,
 * which a shared machine's load does not distort as much), the load average and the heap the
 * history keeps (after a GC); then, on the EDN history, the check alone
 * (split by key and checked, as {@code partkit check} does after reading). With {@code general},
 * the files are read by the general readers instead ({@link Histories#read(String,
 * java.io.Reader)}), for the before. A benchmark, not a test: nothing is asserted but the count
 * of operations and the verdict.
 *
 * <p>Run from the repository root, after {@link IndependentFiles}:
 * {@code java -Xmx1g -cp verification/target/test-classes:verification/target/classes:$(cat
 * /tmp/cp.txt) io.partkit.verification.bench.ReadTiming [DIR] [rounds] [fast|general] [FILES]}
 * (FILES: names in DIR, comma-separated; default the four IndependentFiles writes).
 */
public final class ReadTiming {
  private ReadTiming() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/partkit-indep");
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    boolean general = args.length > 2 && args[2].equals("general");
    System.out.printf(Locale.ROOT, "# java %s, %d cores, max heap %d MB, %s readers%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
        Runtime.getRuntime().maxMemory() >> 20, general ? "general" : "bytes'");
    History edn = null;
    String[] files = args.length > 3 ? args[3].split(",")
        : new String[] {"history.edn", "history-time.edn", "history.jsonl", "jepsen.log"};
    for (String name : files) {
      Path f = dir.resolve(name);
      double mb = Files.size(f) / 1e6;
      double[] rates = new double[rounds];
      double[] cpuRates = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        System.gc(); // the last round's history is garbage: not this round's to collect
        long t0 = System.nanoTime();
        long c0 = THREADS.getCurrentThreadCpuTime();
        long p0 = process();
        History h = general ? readGeneral(f) : Histories.read(f);
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (THREADS.getCurrentThreadCpuTime() - c0) / 1e9;
        double all = (process() - p0) / 1e9;
        rates[r] = mb / s;
        cpuRates[r] = mb / cpu;
        System.gc(); // what the history itself keeps
        System.out.printf(Locale.ROOT,
            "%s round %d: %d events, %.1f MB in %.2f s wall (%.0f MB/s), %.2f s CPU of the"
                + " reading thread (%.0f MB/s), %.2f s CPU of the JVM (GC too); load %.2f;"
                + " heap retained after a GC %d MB%n",
            name, r, h.ops().size(), mb, s, rates[r], cpu, cpuRates[r], all, load(), used());
        if (name.equals("history.edn") && r == rounds - 1) {
          edn = h; // kept for the check
        }
      }
      if (edn != null) {
        check(edn, rounds);
        edn = null;
      }
      Arrays.sort(rates);
      Arrays.sort(cpuRates);
      System.out.printf(Locale.ROOT,
          "%s: wall median %.0f MB/s (range %.0f-%.0f); reading thread's CPU median %.0f MB/s"
              + " (range %.0f-%.0f)%n",
          name, rates[rounds / 2], rates[0], rates[rounds - 1], cpuRates[rounds / 2],
          cpuRates[0], cpuRates[rounds - 1]);
    }
  }

  /** The check alone, on the EDN history, as the command line checks it after reading. */
  private static void check(History edn, int rounds) throws HistoryParseException {
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      History split = Independent.apply(edn, Independent.Mode.AUTO);
      long t1 = System.nanoTime();
      Analysis a = Linearizability.check(Models.casRegister(null), split, CheckOptions.defaults());
      long t2 = System.nanoTime();
      System.out.printf(Locale.ROOT,
          "check round %d: %s, %d keys; split %.2f s, check %.2f s; load %.2f%n", r,
          a.verdict(), a.keys().size(), (t1 - t0) / 1e9, (t2 - t1) / 1e9, load());
    }
  }

  private static History readGeneral(Path f) throws Exception {
    try (InputStreamReader in = new InputStreamReader(Files.newInputStream(f),
        StandardCharsets.UTF_8)) {
      return Histories.read(f.toString(), in);
    }
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      ManagementFactory.getThreadMXBean();

  private static long process() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static long used() {
    Runtime rt = Runtime.getRuntime();
    return (rt.totalMemory() - rt.freeMemory()) >> 20;
  }
}
