package io.partkit.cli;

import io.partkit.bench.Bench;
import io.partkit.bench.BenchOptions;
import io.partkit.bench.BenchResult;
import io.partkit.bench.LiveResult;
import io.partkit.bench.Progress;
import io.partkit.bench.Report;
import io.partkit.bench.Weights;
import io.partkit.bench.live.LiveBench;
import io.partkit.bench.live.LiveOptions;
import io.partkit.harness.runtime.FileTrees;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code partkit bench}: runs the comparative benchmark and writes the report. A thin layer over
 * {@link Bench} and {@link Report}; every option maps to one {@link BenchOptions} field.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Compares partitioning strategies side by side on this machine: balance, "
        + "data moved on a join and a leave (next to the optimum), lookup and planning cost.",
        "Writes DIR/index.html (self-contained, inline SVG charts) and the same figures as "
            + "results.json and CSV."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {" 0:every subject asked for was measured; report written",
        " 1:report written, but a subject could not be measured (listed on stderr and in the "
            + "report); or out of memory, nothing written",
        "64:usage error (unknown option or subject, bad value); nothing measured",
        "70:internal error"},
    footer = {"", "Examples:", "  partkit bench --quick", "  partkit bench",
        "  partkit bench --sizes 10,100 --subjects fixed,rendezvous --out /tmp/report",
        "  partkit bench --add-subject 'ring64=tokenring:vnodes=64,tokens=random'",
        "  partkit bench --live --quick --systems kv",
        "  partkit bench --live --subjects fixed,rendezvous --sizes 10"})
public final class BenchCommand implements Callable<Integer> {

  /** Exit code when a subject asked for could not be measured, or the run ran out of memory. */
  static final int NOT_MEASURED = 1;

  /** How options become a result: a seam, so tests can make a subject fail mid-run. */
  interface Runner {
    BenchResult run(BenchOptions options, Progress progress);
  }

  Runner runner = Bench::run;

  /** How live options become live figures: a seam, as {@link Runner}. */
  interface LiveRunner {
    LiveResult run(LiveOptions options, Progress progress);
  }

  LiveRunner liveRunner = LiveBench::run;

  @Spec
  CommandSpec spec;

  @Option(names = {"-s", "--subjects"}, split = ",", paramLabel = "NAME",
      description = "Subjects to measure (default: all): ${COMPLETION-CANDIDATES}",
      completionCandidates = SubjectNames.class)
  List<String> subjects = new ArrayList<>();

  @Option(names = "--add-subject", paramLabel = "LABEL=STRATEGY:OPT=V,...",
      description = "Also measure a partkit strategy with options, e.g. "
          + "'fixed1k=fixed:partitions=1024' (repeatable).")
  List<String> extraSubjects = new ArrayList<>();

  @Option(names = "--quick", description = "A first look, well under a minute on an idle "
      + "machine: sizes 10,100, 200000 sampled keys, 100 ms of lookups in 3 rounds per row, no "
      + "embedded Hazelcast members; the report says it is a quick run. Options given "
      + "explicitly still apply.")
  boolean quick;

  // The options below are null when not given, so --quick can tell "not given" (take the quick
  // run's value) from "given" (the user's value wins).

  @Option(names = "--sizes", split = ",", paramLabel = "N",
      description = "Cluster sizes (default: 10,100,1000).")
  List<Integer> sizes;

  @Option(names = "--weights", split = ",", paramLabel = "MODE",
      description = "Weight modes: equal, mixed (1, 2, 4 by turns) (default: both).")
  List<String> weights;

  @Option(names = "--replicas", split = ",", paramLabel = "RF",
      description = "Replication factors (default: 1,3).")
  List<Integer> replicas;

  @Option(names = "--keys", paramLabel = "COUNT",
      description = "Keys sampled where ownership cannot be computed exactly (default: 1000000).")
  Integer keys;

  @Option(names = "--partitions", paramLabel = "P",
      description = "Partitions of every fixed-partition subject (default: 4096).")
  Integer partitions;

  @Option(names = "--seed", description = "Seed of keys and random tokens (default: 42).")
  Long seed;

  @Option(names = "--lookup-ms", paramLabel = "MS",
      description = "Time spent timing each subject's lookups, over all rounds (default: 300).")
  Integer lookupMillis;

  @Option(names = "--lookup-rounds", paramLabel = "R",
      description = "Timed lookup rounds per row, each next to a round of the bare hash; the "
          + "report shows their spread (default: 7).")
  Integer lookupRounds;

  @Option(names = "--hazelcast-members", paramLabel = "N",
      description = "Largest cluster run on real embedded Hazelcast members "
          + "(default: 10; 0 turns them off).")
  Integer hazelcastMembers;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Output folder (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("report");

  @Option(names = "--live", description = "Also start real clusters (the replica cores under "
      + "a partkit coordinator, Ignite and Hazelcast with their own placement and partkit's), "
      + "five "
      + "members with one backup copy, and measure a join, a graceful leave and a kill under "
      + "client load: what each system says it moved, how long it rebalanced, what the clients "
      + "saw. Adds a section to the report and DIR/live.json. With --quick: 50000 keys.")
  boolean live;

  @Option(names = "--systems", split = ",", paramLabel = "SYSTEM",
      description = "With --live: the systems to run (default: kv,replica,ignite,hazelcast).")
  List<String> systems;

  @Option(names = "--live-keys", paramLabel = "COUNT", description = "With --live: keys of "
      + "100-byte values preloaded in every cluster (default: 1000000; 50000 with --quick).")
  Integer liveKeys;

  @Option(names = "--live-rate", paramLabel = "OPS", description = "With --live: client "
      + "operations per second, 80%% reads (default: 2000; 1000 with --quick).")
  Integer liveRate;

  @Option(names = "--live-dir", paramLabel = "DIR", description = "With --live: where the "
      + "clusters keep their data and node logs, kept after the run (default: a temporary "
      + "folder, deleted after the run).")
  Path liveDir;

  @Mixin
  RuntimeFlags runtimeFlags;

  @Option(names = {"-q", "--quiet"}, description = "No progress (by default a bar on a "
      + "terminal, else a plain line per tenth of the run).")
  boolean quiet;

  @Override
  public Integer call() throws Exception {
    BenchOptions options;
    LiveOptions liveOptions = null;
    Path clusters = null;
    try {
      options = options();
      Bench.checkSubjects(options);
      if (live) {
        clusters = liveDir != null ? liveDir : Files.createTempDirectory("partkit-live-");
        liveOptions = liveOptions(clusters);
        LiveBench.check(liveOptions);
      } else if (systems != null || liveKeys != null || liveRate != null || liveDir != null
          || runtimeFlags.given()) {
        throw new IllegalArgumentException("--systems, --live-keys, --live-rate, --live-dir, "
            + "--runtime and the ssh flags need --live");
      }
    } catch (IllegalArgumentException e) {
      deleteTemporary(liveDir == null ? clusters : null);
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outWriter = spec.commandLine().getOut();
    Progress progress = quiet ? Progress.silent()
        : Progress.to(System.err, System.console() != null);
    BenchResult result;
    try {
      result = runner.run(options, progress);
      if (liveOptions != null) {
        result = result.withLive(liveRunner.run(liveOptions, progress));
      }
    } catch (OutOfMemoryError e) {
      // not a bug (70): larger --sizes or --keys than the launcher's heap was sized for
      err.println();
      err.println("partkit bench: out of memory (" + e.getMessage() + ", max heap "
          + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB); nothing written: give "
          + "it more (PARTKIT_JAVA_OPTS=-Xmx4g ./partkit bench ...) or measure fewer or "
          + "smaller sizes");
      err.flush();
      return NOT_MEASURED;
    } finally {
      deleteTemporary(liveDir == null ? clusters : null);
    }
    Path index = Report.write(result, out);
    outWriter.printf(Locale.ROOT, "report: %s (%.0f s%s)%n", index.toAbsolutePath(),
        result.seconds(), options.quick() ? ", quick run" : "");
    long flagged = result.lookups().stream().filter(l -> !l.flags().isEmpty()).count();
    if (flagged > 0) {
      err.printf(Locale.ROOT, "%d lookup row(s) flagged as unreliable (rounds disagree or faster "
          + "than the bare hash); load average %s at start, %s at end: see the report%n",
          flagged, result.environment().getOrDefault(Bench.LOAD_AT_START, "?"),
          result.environment().getOrDefault(Bench.LOAD_AT_END, "?"));
    }
    int code = 0;
    if (!result.problems().isEmpty()) {
      err.println("not measured (" + result.problems().size() + "), see the report:");
      result.problems().forEach(p -> err.println("  - " + p));
      code = NOT_MEASURED;
    }
    outWriter.flush();
    err.flush();
    return code;
  }

  /**
   * The run's options: the defaults (or the quick run's) with every option given on the command
   * line applied on top.
   *
   * @throws IllegalArgumentException naming a bad value
   */
  BenchOptions options() {
    List<Weights> modes = new ArrayList<>();
    for (String w : weights == null ? List.<String>of() : weights) {
      modes.add(parseWeights(w));
    }
    BenchOptions o = quick ? BenchOptions.quickRun() : BenchOptions.defaults();
    List<String> names = new ArrayList<>(subjects.isEmpty() && !extraSubjects.isEmpty()
        ? Bench.defaultSubjects() : subjects);
    names.addAll(extraSubjects);
    o = o.withSubjects(names);
    if (sizes != null) {
      o = o.withSizes(sizes);
    }
    if (weights != null) {
      o = o.withWeights(modes);
    }
    if (replicas != null) {
      o = o.withReplicas(replicas);
    }
    if (keys != null) {
      o = o.withSampleKeys(keys);
    }
    if (partitions != null) {
      o = o.withPartitions(partitions);
    }
    if (seed != null) {
      o = o.withSeed(seed);
    }
    if (lookupMillis != null) {
      o = o.withLookupMillis(lookupMillis);
    }
    if (lookupRounds != null) {
      o = o.withLookupRounds(lookupRounds);
    }
    if (hazelcastMembers != null) {
      o = o.withHazelcastMembersMax(hazelcastMembers);
    }
    return o;
  }

  /**
   * The live run's options: the defaults (or the quick run's) with every live option given
   * applied on top.
   *
   * @throws IllegalArgumentException naming a bad value
   */
  LiveOptions liveOptions(Path clusters) {
    LiveOptions o = quick ? LiveOptions.quickRun(clusters) : LiveOptions.defaults(clusters);
    o = o.withRuntime(runtimeFlags.spec());
    if (systems != null) {
      o = o.withSystems(systems.stream().map(String::trim).toList());
    }
    if (liveKeys != null) {
      o = o.withKeys(liveKeys);
    }
    if (liveRate != null) {
      o = o.withRate(liveRate);
    }
    if (seed != null) {
      o = o.withSeed(seed);
    }
    return o;
  }

  /** Removes the clusters' temporary folder; the user's own {@code --live-dir} is kept. */
  private static void deleteTemporary(Path dir) {
    if (dir == null) {
      return;
    }
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      System.err.println("partkit bench: could not delete " + dir + ": " + e.getMessage());
    }
  }

  private static Weights parseWeights(String w) {
    try {
      return Weights.valueOf(w.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("weights must be equal or mixed: '" + w + "'", e);
    }
  }

  /** The default subject names, for help and completion. */
  static final class SubjectNames extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    SubjectNames() {
      super(Bench.defaultSubjects());
    }
  }
}
