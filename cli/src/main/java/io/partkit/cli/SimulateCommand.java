package io.partkit.cli;

import io.partkit.replica.mutants.Mutant;
import io.partkit.simulation.SeedResult;
import io.partkit.simulation.Simulation;
import io.partkit.simulation.SimulationSpec;
import io.partkit.simulation.SimulationStore;
import io.partkit.verification.checker.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code partkit simulate}: the Fixed Partitions protocol's replica cores and control under
 * deterministic simulation, seed by seed, every history checked. See docs/simulation.md.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    description = {
      "Runs partkit's own protocol (the kv store's replica cores and the coordinator's decisions) "
          + "as a whole cluster in one thread per seed on virtual time, with network, process and "
          + "storage faults chosen by the seed, the register workload of verify, and checks each "
          + "history for linearizability and lost acknowledged writes.",
      "Exit codes: 0 every seed valid, 1 a seed invalid, 2 a seed unknown (none invalid), "
          + "64 usage error."
    })
final class SimulateCommand implements Callable<Integer> {

  private static final Pattern RANGE = Pattern.compile("(\\d{1,18})(?:\\.\\.(\\d{1,18}))?");
  /** Runs a failing seed's shrink may spend. */
  static final int SHRINK_BUDGET = 40;
  /** Failing seeds shrunk and reported in full; the rest are listed with their replay. */
  static final int SHRUNK_SEEDS = 3;

  @Spec
  CommandSpec spec;

  @Option(names = "--seeds", defaultValue = "1..100", paramLabel = "A..B",
      description = "The seeds to run: one (7) or a range (1..1000) (default ${DEFAULT-VALUE}).")
  String seeds;

  @Option(names = "--time", defaultValue = "10s", paramLabel = "DURATION",
      description = "Virtual time per seed during which clients run and faults strike; heal, "
          + "recovery and final reads follow (default ${DEFAULT-VALUE}).")
  String time;

  @Option(names = "--nodes", defaultValue = "5",
      description = "Nodes at the start (default ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--option", paramLabel = "KEY=VALUE",
      description = "replicas (3), partitions (16), concurrency (10), ops-per-key (200), "
          + "threads-per-key (5), strategy (core: the control's own placement; or a partkit "
          + "strategy of hash slots: fixed, rendezvous; or targets: a coordinator's),"
          + " numbering (hashed; or keys: key ranges, tokens: a token ring), merges (off; on: the"
          + " control also merges halves of splits back), wipes (off; on:"
          + " disks are also wiped under their nodes' numbers), truncations (off; on: logs are"
          + " also cut short while their nodes are down).")
  Map<String, String> options = new LinkedHashMap<>();

  @Option(names = "--mutant", paramLabel = "NAME",
      description = "Plant a bug (see --list-mutants): the run must then fail.")
  String mutant;

  @Option(names = "--list-mutants", description = "Print one mutant name per line and exit.")
  boolean listMutants;

  @Option(names = "--store", paramLabel = "DIR",
      description = "Write history.edn, results.edn and index.html: for one seed, into DIR; "
          + "for a range, of each failing seed into DIR/seed-N, with DIR/summary.edn.")
  Path store;

  @Option(names = "--threads", paramLabel = "N",
      description = "Seeds run at once (default: one per core).")
  Integer threads;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (listMutants) {
      Mutant.labels().forEach(out::println);
      out.flush();
      return 0;
    }
    long first;
    long last;
    SimulationSpec sim;
    try {
      Matcher m = RANGE.matcher(seeds.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException("--seeds must be a seed (7) or a range A..B (1..1000): "
            + seeds);
      }
      first = Long.parseLong(m.group(1));
      last = m.group(2) == null ? first : Long.parseLong(m.group(2));
      if (last < first) {
        throw new IllegalArgumentException("--seeds range is empty: " + seeds);
      }
      Duration t = Durations.parse("--time", time);
      if (t.isZero()) {
        throw new IllegalArgumentException("--time must be positive: " + time);
      }
      Optional<Mutant> planted = Optional.empty();
      if (mutant != null) {
        planted = Optional.of(Mutant.named(mutant).orElseThrow(() -> new IllegalArgumentException(
            "unknown mutant " + mutant + "; known: " + String.join(", ", Mutant.labels()))));
      }
      sim = SimulationSpec.of(nodes, t, options, planted);
      if (threads != null && threads < 1) {
        throw new IllegalArgumentException("--threads must be at least 1: " + threads);
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    int parallel = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    boolean terminal = System.console() != null;
    long count = last - first + 1;
    long start = System.nanoTime();
    long[] done = {0};
    List<SeedResult> failing = new ArrayList<>();
    List<SeedResult> results = Simulation.runAll(sim, first, last, parallel, r -> {
      done[0]++;
      if (r.verdict() != Verdict.VALID) {
        failing.add(r);
        out.printf("%sseed %d %s: %s%n", terminal ? "\r\033[K" : "", r.seed(),
            r.verdict().name().toLowerCase(java.util.Locale.ROOT), r.reason());
      }
      if (terminal) {
        out.printf("\r\033[Ksimulate: %d/%d seeds, %d not valid", done[0], count, failing.size());
      } else if (done[0] % 100 == 0 && done[0] < count) {
        out.printf("simulate: %d/%d seeds, %d not valid%n", done[0], count, failing.size());
      }
      out.flush();
    });
    if (terminal) {
      out.print("\r\033[K");
    }
    int valid = 0;
    int invalid = 0;
    int unknown = 0;
    long ops = 0;
    long faults = 0;
    for (SeedResult r : results) {
      ops += r.ops();
      faults += r.faults();
      switch (r.verdict()) {
        case VALID -> valid++;
        case INVALID -> invalid++;
        default -> unknown++;
      }
    }
    int reported = 0;
    for (SeedResult r : results) {
      if (r.verdict() == Verdict.VALID && count > 1) {
        continue;
      }
      String replay = replay(r.seed());
      Simulation.Shrunk shrunk = null;
      if (reported++ >= SHRUNK_SEEDS) {
        out.printf("seed %d %s; replay: %s%n", r.seed(),
            r.verdict().name().toLowerCase(java.util.Locale.ROOT), replay);
      } else if (r.verdict() == Verdict.INVALID) {
        shrunk = Simulation.shrink(sim, r, SHRINK_BUDGET);
        out.printf("seed %d invalid: %s%n  replay: %s%n  shrunk (%d runs): %d of %d faults, "
                + "%d ms: %s%n", r.seed(), r.reason(), replay, shrunk.runs(),
            shrunk.plan().size(), r.plan().size(), shrunk.spec().time().toMillis(), shrunk.plan());
      } else if (r.verdict() == Verdict.UNKNOWN) {
        out.printf("seed %d unknown: %s%n  replay: %s%n", r.seed(), r.reason(), replay);
      }
      if (store != null) {
        Path dir = count == 1 ? store : store.resolve("seed-" + r.seed());
        SimulationStore.write(dir, sim, r, replay, shrunk);
      }
    }
    long wallMillis = (System.nanoTime() - start) / 1_000_000;
    if (store != null && count > 1) {
      writeSummary(count, valid, invalid, unknown, ops, faults, wallMillis, failing);
    }
    out.printf("simulate: seeds=%d valid=%d invalid=%d unknown=%d ops=%d faults=%d wall-ms=%d%n",
        count, valid, invalid, unknown, ops, faults, wallMillis);
    out.flush();
    return invalid > 0 ? 1 : unknown > 0 ? 2 : 0;
  }

  private String replay(long seed) {
    StringBuilder sb = new StringBuilder("./partkit simulate --seeds ").append(seed)
        .append(" --time ").append(time).append(" --nodes ").append(nodes);
    options.forEach((k, v) -> sb.append(" --option ").append(k).append('=').append(v));
    if (mutant != null) {
      sb.append(" --mutant ").append(mutant);
    }
    return sb.toString();
  }

  private void writeSummary(long count, int valid, int invalid, int unknown, long ops,
      long faults, long wallMillis, List<SeedResult> failing) {
    StringBuilder sb = new StringBuilder("{:seeds \"").append(seeds).append("\" :count ")
        .append(count).append(" :valid ").append(valid).append(" :invalid ").append(invalid)
        .append(" :unknown ").append(unknown).append(" :ops ").append(ops).append(" :faults ")
        .append(faults).append(" :wall-ms ").append(wallMillis).append("\n :failing [");
    failing.stream().sorted(java.util.Comparator.comparingLong(SeedResult::seed))
        .forEach(r -> sb.append("{:seed ").append(r.seed()).append(" :verdict :")
            .append(r.verdict().name().toLowerCase(java.util.Locale.ROOT)).append("} "));
    sb.append("]}\n");
    try {
      Files.createDirectories(store);
      Files.writeString(store.resolve("summary.edn"), sb.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + store.resolve("summary.edn"), e);
    }
  }
}
