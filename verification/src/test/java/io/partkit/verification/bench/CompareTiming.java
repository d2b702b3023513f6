package io.partkit.verification.bench;

import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.Histories;
import io.partkit.verification.history.HistoryParseException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * partkit's side of the comparison with Porcupine ({@code tools/porcupine-compare}): the same
 * histories, the same methodology, per-history TSV in the Go driver's columns plus partkit's
 * verdict time. Corpora: {@code small} ({@link SmallCorpus}, as {@link SmallCorpusTiming}: warm-up,
 * then measured rounds over all files), {@code scale} ({@link ExportHistories#scale()}: at most
 * {@link #SCALE_WARMUP} warm-up and {@link #SCALE_ROUNDS} measured rounds) and {@code etcd} (the
 * 102 Jepsen etcd logs of {@code data/histories/porcupine} with their verdicts in its
 * EXPECTED.tsv, in the same loop; its kv files are left out, the driver does not model them);
 * {@code indep}: the 1M-operation history of {@link IndependentFiles} (its {@code indep.json} for
 * the driver), with the larger histories' caps.
 * A comment line per corpus gives its rounds' times, warm-up included, so that one can see the
 * measured rounds are on the JIT's plateau: on 2 cores the etcd corpus reaches it after about
 * 200 rounds (1.2 s), the small one after about 125; 300 warm-up rounds are the default for both.
 *
 * <p>Run from the repository root:
 * {@code java -cp verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt)
 * io.partkit.verification.bench.CompareTiming small,scale,etcd [warmup=300] [rounds=30] [name]}.
 * With a {@code name}, only the history of that name is timed: {@code scale 0 1 NAME} in a fresh
 * JVM is a cold check, the first one a {@code partkit check} or a new Jepsen JVM makes.
 */
public final class CompareTiming {
  private CompareTiming() {}

  /**
   * Caps the warm-up of the larger histories (the Go driver's {@code scaleWarmup}). The rounds
   * must reach the plateau the JIT settles on, and on 2 cores that takes seconds of compiling, not
   * a number of rounds: the five larger histories took 265-446 ms a round in rounds 0-9 and about
   * 105 ms from round 25 on (the round times this class prints). Two, then ten,
   * warm-up rounds timed the JIT's warm-up rather than the checker; cold checks are timed apart,
   * one JVM each.
   */
  static final int SCALE_WARMUP = 40;

  /** Caps the measured rounds of the larger histories (the Go driver's {@code scaleRounds}). */
  static final int SCALE_ROUNDS = 10;

  public static void main(String[] args) throws Exception {
    List<String> corpora = List.of((args.length > 0 ? args[0] : "small,scale,etcd").split(","));
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
    String only = args.length > 3 ? args[3] : null;
    List<String> rows = new ArrayList<>();
    List<String> plateaus = new ArrayList<>();
    if (corpora.contains("small")) {
      List<ExportHistories.Named> hs = new ArrayList<>();
      for (SmallCorpus.Entry e : SmallCorpus.generate()) {
        hs.add(new ExportHistories.Named(e.name(), e.history(), e.expected()));
      }
      rows.addAll(time("small", named(hs, only), warmup, rounds, plateaus));
    }
    if (corpora.contains("scale")) {
      rows.addAll(time("scale", named(ExportHistories.scale(), only),
          Math.min(warmup, SCALE_WARMUP), Math.min(rounds, SCALE_ROUNDS), plateaus));
    }
    if (corpora.contains("indep")) {
      // the 1M-operation Jepsen independent history (IndependentFiles): the check alone,
      // the history built in memory as IndependentFiles writes it for the driver
      rows.addAll(time("indep", List.of(new ExportHistories.Named("indep-k1000-c10-n1000000",
              IndependentFiles.history(1_000, 1_000), Verdict.VALID)),
          Math.min(warmup, SCALE_WARMUP), Math.min(rounds, SCALE_ROUNDS), plateaus));
    }
    if (corpora.contains("etcd")) {
      rows.addAll(time("etcd", named(etcd(Path.of("data/histories/porcupine")), only), warmup,
          rounds, plateaus));
    }
    if (only != null && rows.isEmpty()) {
      throw new IllegalArgumentException("no history named " + only + " in " + corpora);
    }
    System.out.printf(
        Locale.ROOT,
        "# partkit, java %s, %d cores, warm-up %d, rounds %d, load %.2f%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        warmup,
        rounds,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    plateaus.forEach(System.out::println);
    System.out.println("corpus\tname\texpected\tevents\tmedian_ns\tbest_ns\tverdict_median_ns");
    rows.forEach(System.out::println);
  }

  /** The histories of that name, or all of them when {@code only} is null. */
  private static List<ExportHistories.Named> named(List<ExportHistories.Named> hs, String only) {
    return only == null ? hs : hs.stream().filter(h -> h.name().equals(only)).toList();
  }

  /** The etcd logs of the Porcupine corpus, named by file, with EXPECTED.tsv's verdicts. */
  static List<ExportHistories.Named> etcd(Path dir) throws IOException, HistoryParseException {
    List<ExportHistories.Named> hs = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("EXPECTED.tsv"))) {
      String[] f = line.split("\t");
      if (f.length >= 3 && f[0].contains("etcd_") && !f[2].equals("n/a")) {
        Verdict expected = f[2].equals("linearizable") ? Verdict.VALID : Verdict.INVALID;
        hs.add(new ExportHistories.Named(
            Path.of(f[0]).getFileName().toString(), Histories.read(dir.resolve(f[0])), expected));
      }
    }
    return hs;
  }

  static List<String> time(String corpus, List<ExportHistories.Named> hs, int warmup, int rounds,
      List<String> plateaus) {
    int n = hs.size();
    RoundTiming.Timings timings =
        RoundTiming.measure(
            hs.stream()
                .map(e -> new RoundTiming.Case(e.name(), e.history(), e.expected()))
                .toList(),
            warmup,
            rounds);
    plateaus.add("# " + corpus + ", rounds in ms (all its histories): "
        + timings.roundSummary(warmup, 25));
    long[][] total = timings.total();
    long[][] verdict = timings.verdict();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] t = total[i].clone();
      Arrays.sort(t);
      long[] v = verdict[i].clone();
      Arrays.sort(v);
      ExportHistories.Named e = hs.get(i);
      out.add(
          String.format(
              Locale.ROOT,
              "%s\t%s\t%s\t%d\t%d\t%d\t%d",
              corpus,
              e.name(),
              e.expected() == Verdict.VALID ? "valid" : "invalid",
              e.history().ops().size(),
              t[t.length / 2],
              t[0],
              v[v.length / 2]));
    }
    return out;
  }
}
