package io.partkit.cli;

import io.partkit.bench.Bench;
import io.partkit.bench.BenchOptions;
import io.partkit.bench.BenchResult;
import io.partkit.bench.Progress;
import io.partkit.bench.Report;
import io.partkit.bench.Weights;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
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
    footer = {"", "Examples:", "  partkit bench", "  partkit bench --sizes 10,100 --subjects "
        + "fixed,rendezvous,ignite-rendezvous --out /tmp/report",
        "  partkit bench --add-subject 'ring64=tokenring:vnodes=64,tokens=random'"})
public final class BenchCommand implements Callable<Integer> {

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

  @Option(names = "--sizes", split = ",", paramLabel = "N",
      description = "Cluster sizes (default: 10,100,1000).")
  List<Integer> sizes = BenchOptions.defaults().sizes();

  @Option(names = "--weights", split = ",", paramLabel = "MODE",
      description = "Weight modes: equal, mixed (1, 2, 4 by turns) (default: both).")
  List<String> weights = List.of("equal", "mixed");

  @Option(names = "--replicas", split = ",", paramLabel = "RF",
      description = "Replication factors (default: 1,3).")
  List<Integer> replicas = BenchOptions.defaults().replicas();

  @Option(names = "--keys", paramLabel = "COUNT",
      description = "Keys sampled where ownership cannot be computed exactly "
          + "(default: ${DEFAULT-VALUE}).")
  int keys = BenchOptions.defaults().sampleKeys();

  @Option(names = "--partitions", paramLabel = "P",
      description = "Partitions of every fixed-partition subject (default: ${DEFAULT-VALUE}).")
  int partitions = BenchOptions.defaults().partitions();

  @Option(names = "--seed", description = "Seed of keys and random tokens (default: ${DEFAULT-VALUE}).")
  long seed = BenchOptions.defaults().seed();

  @Option(names = "--lookup-ms", paramLabel = "MS",
      description = "Time spent timing each subject's lookups (default: ${DEFAULT-VALUE}).")
  int lookupMillis = BenchOptions.defaults().lookupMillis();

  @Option(names = "--hazelcast-members", paramLabel = "N",
      description = "Largest cluster run on real embedded Hazelcast members "
          + "(default: ${DEFAULT-VALUE}; 0 turns them off).")
  int hazelcastMembers = BenchOptions.defaults().hazelcastMembersMax();

  @Option(names = "--out", paramLabel = "DIR", description = "Output folder (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("report");

  @Option(names = {"-q", "--quiet"}, description = "No progress bar.")
  boolean quiet;

  @Override
  public Integer call() throws Exception {
    BenchOptions options;
    try {
      List<String> names = new ArrayList<>(subjects.isEmpty() && !extraSubjects.isEmpty()
          ? Bench.defaultSubjects() : subjects);
      names.addAll(extraSubjects);
      List<Weights> modes = new ArrayList<>();
      for (String w : weights) {
        modes.add(parseWeights(w));
      }
      options = BenchOptions.defaults().withSubjects(names).withSizes(sizes).withWeights(modes)
          .withReplicas(replicas).withSampleKeys(keys).withPartitions(partitions)
          .withSeed(seed).withLookupMillis(lookupMillis)
          .withHazelcastMembersMax(hazelcastMembers);
      for (String name : names) {
        if (!name.contains("=") && !Bench.defaultSubjects().contains(name)) {
          throw new IllegalArgumentException("unknown subject '" + name + "'; known subjects: "
              + Bench.defaultSubjects());
        }
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outWriter = spec.commandLine().getOut();
    Progress progress = quiet ? Progress.silent() : Progress.bar(System.err);
    BenchResult result = Bench.run(options, progress);
    Path index = Report.write(result, out);
    outWriter.printf(Locale.ROOT, "report: %s (%.0f s)%n", index.toAbsolutePath(),
        result.seconds());
    if (!result.problems().isEmpty()) {
      err.println("not measured (" + result.problems().size() + "), see the report:");
      result.problems().forEach(p -> err.println("  - " + p));
    }
    outWriter.flush();
    err.flush();
    return 0;
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
