package io.partkit.bench;

import static java.util.Objects.requireNonNull;

import io.partkit.bench.BenchResult.LookupRow;
import io.partkit.bench.BenchResult.PlacementRow;
import io.partkit.bench.BenchResult.PlanningRow;
import io.partkit.bench.BenchResult.SkewRow;
import io.partkit.bench.Measures.Balance;
import io.partkit.bench.Measures.Move;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Partitioners;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs the comparison: every subject through the same harness, for every cluster size, weight
 * mode and replication factor.
 *
 * <p>Per combination: the placement for {@code n} members (balance), one member joining
 * ({@code n+1}) and one leaving ({@code n-1}), each placed from the base placement (movement,
 * next to the optimum). Per subject and size, with equal weights: lookup cost (RF 1, next to the
 * bare hash) and planning cost (largest RF: time and bytes allocated to compute the whole
 * assignment, median of repetitions after the first, which warms the code up).
 *
 * <pre>{@code
 * BenchResult result = Bench.run(BenchOptions.defaults(), Progress.bar(System.err));
 * Report.write(result, Path.of("report"));
 * }</pre>
 */
public final class Bench {

  private static final int LOOKUP_KEYS = 1 << 16;
  private static final int LOOKUP_POPULATION = 1 << 20;
  private static final double ZIPF_EXPONENT = 0.99;
  private static final int PLANNING_REPETITIONS = 5;
  private static final long PLANNING_BUDGET_NANOS = 1_500_000_000L;
  /** A quick run's planning: enough repetitions for a median after the warm-up, no more. */
  private static final int QUICK_PLANNING_REPETITIONS = 3;
  private static final long QUICK_PLANNING_BUDGET_NANOS = 300_000_000L;
  /** Keys per workload of the skewed-keys section ({@link SkewBench}), default and quick. */
  private static final int SKEW_KEYS = 200_000;
  private static final int SKEW_KEYS_QUICK = 50_000;

  /** The machine table's keys for the load average, read when the run starts and ends. */
  public static final String LOAD_AT_START = "load average at start (1, 5, 15 min)";
  public static final String LOAD_AT_END = "load average at end (1, 5, 15 min)";

  private Bench() {}

  /**
   * Checks up front that every subject name is known and that every partkit subject's strategy
   * exists and accepts its options (creating a partitioner is cheap; no placement is computed),
   * so a typo is a usage error rather than a run that reports it at the end.
   *
   * @throws IllegalArgumentException naming the bad subject and, for an unknown name, the valid
   *     ones
   */
  public static void checkSubjects(BenchOptions options) {
    Partitioners partitioners = Partitioners.load();
    for (String name : options.subjects()) {
      Supplier<Subject> factory = Subjects.factory(name, options, partitioners);
      if (name.contains("=") || Subjects.partkitDefaults(options).containsKey(name)) {
        try (Subject s = factory.get()) {
          s.name(); // created: the strategy exists and took the options
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("subject '" + name + "': " + e.getMessage(), e);
        }
      }
    }
  }

  /** The default subject names, in report order. */
  public static List<String> defaultSubjects() {
    return Subjects.DEFAULTS;
  }

  /**
   * Runs the benchmark. A subject that cannot be created (a strategy whose jar is missing, an
   * option it rejects) or that fails on some combination is recorded in
   * {@link BenchResult#problems()} and the run goes on.
   *
   * @throws IllegalArgumentException if a subject name is unknown
   */
  public static BenchResult run(BenchOptions options, Progress progress) {
    requireNonNull(options, "options");
    requireNonNull(progress, "progress");
    long started = System.nanoTime();
    String loadAtStart = loadAverage();
    List<String> names = options.subjects().isEmpty() ? Subjects.DEFAULTS : options.subjects();
    Partitioners partitioners = Partitioners.load();
    for (String failure : partitioners.loadFailures()) {
      progress.note("partkit provider failed to load: " + failure);
    }
    Map<String, Supplier<Subject>> factories = new LinkedHashMap<>();
    for (String name : names) {
      factories.put(name, Subjects.factory(name, options, partitioners));
    }
    List<String> problems = new ArrayList<>();
    partitioners.loadFailures().forEach(f -> problems.add("provider failed to load: " + f));
    Map<String, String> descriptions = new LinkedHashMap<>();
    List<PlacementRow> placements = new ArrayList<>();
    List<LookupRow> lookups = new ArrayList<>();
    List<PlanningRow> planning = new ArrayList<>();

    long[] sample = Keys.sample(options.seed(), options.sampleKeys());
    long[] lookupKeys = Keys.zipf(options.seed(), LOOKUP_POPULATION, LOOKUP_KEYS, ZIPF_EXPONENT);
    int perSubject = options.sizes().size()
        * (options.weights().size() * options.replicas().size() + 1);
    int total = factories.size() * perSubject;
    int done = 0;

    for (Map.Entry<String, Supplier<Subject>> entry : factories.entrySet()) {
      String name = entry.getKey().contains("=")
          ? entry.getKey().substring(0, entry.getKey().indexOf('=')) : entry.getKey();
      Subject subject;
      try {
        subject = entry.getValue().get();
      } catch (RuntimeException | LinkageError e) {
        String problem = name + ": not measured: " + oneLine(e);
        problems.add(problem);
        progress.note(problem);
        done += perSubject;
        progress.step(done, total, name + " missing");
        continue;
      }
      descriptions.put(name, subject.description());
      try (subject) {
        for (int size : options.sizes()) {
          Placement equalBase = null;
          int planRf = 0; // planning is measured at the largest RF the subject supports
          for (int rf : options.replicas()) {
            if (subject.unsupported(size, Weights.EQUAL, rf).isEmpty()) {
              planRf = Math.max(planRf, rf);
            }
          }
          for (Weights weights : options.weights()) {
            for (int replicas : options.replicas()) {
              PlacementRow row;
              Optional<String> unsupported = subject.unsupported(size, weights, replicas);
              if (unsupported.isPresent()) {
                row = skipped(name, size, weights, replicas, unsupported.get());
              } else {
                try {
                  Cluster cluster = Cluster.of(size, weights);
                  Placement base = subject.place(cluster.view(), replicas, Optional.empty());
                  row = measure(subject, cluster, base, replicas, sample);
                  if (weights == Weights.EQUAL && replicas == planRf
                      && subject.planningMeasurable()) {
                    planning.add(planning(subject, cluster.view(), replicas, base,
                        options.quick()));
                  }
                  if (weights == Weights.EQUAL && replicas == 1) {
                    equalBase = subject.stateful() ? null : base;
                  }
                } catch (RuntimeException | LinkageError e) {
                  String problem = name + " at " + size + " nodes, " + weights.label()
                      + " weights, RF " + replicas + ": failed: " + oneLine(e);
                  problems.add(problem);
                  progress.note(problem);
                  row = skipped(name, size, weights, replicas, "failed: " + oneLine(e));
                }
              }
              placements.add(row);
              progress.step(++done, total, name + " " + size + " nodes " + weights.label()
                  + " RF " + replicas);
            }
          }
          lookups.addAll(lookup(subject, size, equalBase, lookupKeys, options, problems));
          progress.step(++done, total, name + " " + size + " nodes lookups");
        }
      } catch (RuntimeException | LinkageError e) {
        String problem = name + ": failed: " + oneLine(e);
        problems.add(problem);
        progress.note(problem);
      }
    }
    List<SkewRow> skew = List.of();
    if (names.contains("range")) {
      // the section compares hash strategies with range on real keys: it comes with range
      progress.step(done, total, "skewed and sequential keys");
      skew = SkewBench.run(options.quick() ? SKEW_KEYS_QUICK : SKEW_KEYS, options.partitions(),
          options.seed(), partitioners, problems);
    }
    progress.finished();
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<String, String> environment = environment(options);
    environment.put(LOAD_AT_START, loadAtStart);
    environment.put(LOAD_AT_END, loadAverage());
    return new BenchResult(options, environment, descriptions, placements, lookups,
        planning, problems, seconds, skew);
  }

  private static PlacementRow measure(Subject subject, Cluster cluster, Placement base,
      int replicas, long[] sample) {
    Balance b = Measures.balance(base, sample);
    Placement joined = subject.place(cluster.joined(), replicas, Optional.of(base));
    Move join = Measures.movement(base, joined, sample);
    Placement leaveFrom = base;
    if (subject.stateful()) {
      // a running cluster follows the last change: bring it back to the base membership first
      leaveFrom = subject.place(cluster.view(), replicas, Optional.of(joined));
    }
    MembershipView leftView = subject.leavesLast() ? cluster.leftLast() : cluster.leftMiddle();
    Placement left = subject.place(leftView, replicas, Optional.of(leaveFrom));
    Move leave = Measures.movement(leaveFrom, left, sample);
    String note = b.method().equals(join.method()) ? b.method()
        : "balance " + b.method() + ", movement " + join.method();
    if (subject.leavesLast()) {
      note += "; leave = last bucket";
    }
    if (subject.stateful()) {
      note += "; leave measured from the table after the joiner left again";
    }
    return new PlacementRow(subject.name(), cluster.size(), cluster.weights().label(), replicas,
        b.method(), b.partitions(), b.partitionsMaxAvg(), b.partitionsStdDev(), b.keysMaxAvg(),
        b.keysStdDev(), replicas > 1 ? b.replicaKeysMaxAvg() : Double.NaN,
        replicas > 1 ? b.replicaKeysStdDev() : Double.NaN, join.moved(), join.optimal(),
        join.movedBetweenStaying(), join.replicaMoved(), leave.moved(), leave.optimal(),
        leave.movedBetweenStaying(), leave.replicaMoved(), note);
  }

  private static PlacementRow skipped(String subject, int size, Weights weights, int replicas,
      String why) {
    double nan = Double.NaN;
    return new PlacementRow(subject, size, weights.label(), replicas, "-", 0, nan, nan, nan, nan,
        nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, why);
  }

  private static List<LookupRow> lookup(Subject subject, int size, Placement equalBase,
      long[] keys, BenchOptions options, List<String> problems) {
    Placement placement = equalBase;
    try {
      if (placement == null && subject.unsupported(size, Weights.EQUAL, 1).isEmpty()) {
        placement = subject.place(Cluster.of(size, Weights.EQUAL).view(), 1, Optional.empty());
      }
      if (placement == null) {
        return List.of();
      }
      long measure = options.lookupMillis() * 1_000_000L;
      long warmup = measure / 2;
      LookupTimer.Rounds rounds = LookupTimer.measure(placement.lookup(), keys, warmup, measure,
          options.lookupRounds());
      return List.of(LookupRow.of(subject.name(), size, rounds.lookups(), rounds.hashes(),
          "in-process harness"));
    } catch (RuntimeException | LinkageError e) {
      problems.add(subject.name() + " lookups at " + size + " nodes: failed: " + oneLine(e));
      return List.of();
    }
  }

  private static PlanningRow planning(Subject subject, MembershipView view, int replicas,
      Placement warm, boolean quick) {
    int repetitions = quick ? QUICK_PLANNING_REPETITIONS : PLANNING_REPETITIONS;
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<Double> millis = new ArrayList<>();
    List<Long> bytes = new ArrayList<>();
    long budgetEnd = System.nanoTime()
        + (quick ? QUICK_PLANNING_BUDGET_NANOS : PLANNING_BUDGET_NANOS);
    do {
      long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
      long start = System.nanoTime();
      Placement p = subject.place(view, replicas, Optional.empty());
      long elapsed = System.nanoTime() - start;
      long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
      if (p.partitionCount() != warm.partitionCount()) {
        throw new IllegalStateException(subject.name() + " is not deterministic: "
            + p.partitionCount() + " partitions, then " + warm.partitionCount());
      }
      millis.add(elapsed / 1e6);
      bytes.add(allocated);
    } while (millis.size() < repetitions && System.nanoTime() < budgetEnd);
    double[] m = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    long[] b = bytes.stream().mapToLong(Long::longValue).sorted().toArray();
    return new PlanningRow(subject.name(), view.size(), replicas, warm.partitionCount(),
        m[m.length / 2], b[b.length / 2], m.length);
  }

  private static Map<String, String> environment(BenchOptions o) {
    Map<String, String> env = new LinkedHashMap<>();
    Runtime rt = Runtime.getRuntime();
    env.put("generated", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    env.put("cpu", cpuModel());
    env.put("cores available to the JVM", Integer.toString(rt.availableProcessors()));
    env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
        + System.getProperty("os.arch") + ")");
    env.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version")
        + " (" + System.getProperty("java.vendor") + ")");
    env.put("max heap", rt.maxMemory() / (1024 * 1024) + " MB");
    env.put("jvm flags", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()
        .stream().filter(a -> !a.startsWith("--add-opens")).toList()));
    env.put("run", o.quick() ? "quick (--quick: fewer sizes, sampled keys and lookup rounds; "
        + "a first look, not the full report)" : "full");
    env.put("seed", Long.toString(o.seed()));
    env.put("sampled keys", Measures.sampleLabel(o.sampleKeys()) + " (uniform 64-bit, seed "
        + o.seed() + ")");
    env.put("lookup keys", LOOKUP_KEYS + " Zipf(" + ZIPF_EXPONENT + ") draws over "
        + LOOKUP_POPULATION + " keys, seed " + o.seed());
    env.put("partitions (fixed-partition subjects)", Integer.toString(o.partitions()));
    env.put("sizes", o.sizes().toString());
    env.put("weights", o.weights().stream().map(Weights::label).toList()
        + " (mixed: weights 1, 2, 4 by turns)");
    env.put("replication factors", o.replicas().toString());
    env.put("lookup rounds", o.lookupRounds() + " per row, " + o.lookupMillis()
        + " ms in all, each after a bare-hash round as long");
    return env;
  }

  /**
   * {@code /proc/loadavg}'s 1, 5 and 15 minute averages, or "unknown" off Linux: a load near or
   * above the core count means other processes took cores from the measurement.
   */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2] + " (" + Runtime.getRuntime().availableProcessors()
          + " cores)";
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown (no /proc/loadavg)";
    }
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      // not Linux: fall through to the architecture
    }
    return System.getProperty("os.arch");
  }

  static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
    return message.replace('\n', ' ').replaceAll("\\s+", " ");
  }
}
