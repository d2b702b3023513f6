package io.partkit.harness;

import io.partkit.harness.check.LostWrites;
import io.partkit.harness.check.RunStats;
import io.partkit.harness.nemesis.Nemeses;
import io.partkit.harness.nemesis.Nemesis;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.SystemContext;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.harness.system.Systems;
import io.partkit.harness.workload.RegisterWorkload;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * Runs one Jepsen-style test: start the system on the runtime, let the workers record operations
 * while the nemesis injects faults, heal, wait for recovery, read every key once more, check the
 * history and store it with a report.
 *
 * <p>Phases, as in Jepsen: {@code faults} (clients and nemesis for {@link VerifySpec#time()}),
 * {@code heal} (every fault undone, recorded), {@code recover} (the system serves again),
 * {@code final reads} (one ok read per key, retried with fresh processes), {@code check} (the
 * history), {@code placement} (the system's placement check, {@link Capability.CheckPlacement},
 * given time to settle unless the history already made the run invalid). A worker whose
 * operation ended {@code :info} continues as a new process (its old one may still be in flight),
 * so the history keeps one operation per process at a time.
 */
public final class VerifyRun {

  private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration FINAL_READS_TIMEOUT = Duration.ofSeconds(60);
  /** How long a placement check may wait for copies still settling after recovery. */
  private static final Duration PLACEMENT_PATIENCE = Duration.ofSeconds(60);
  private static final DateTimeFormatter RUN_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS");

  /** The phases marked in the history and on the report's charts. */
  static final List<String> PHASES_MARKED = List.of("heal", "recover", "final reads");

  /** Seconds between plain progress lines when the output is not a terminal. */
  static final int PLAIN_PROGRESS_SECONDS = 10;

  private VerifyRun() {}

  /**
   * Runs {@code spec}, printing plain progress lines to {@code progress} (for a log or a pipe):
   * see {@link #run(VerifySpec, PrintStream, boolean)}.
   */
  public static RunResult run(VerifySpec spec, PrintStream progress) {
    return run(spec, progress, false);
  }

  /**
   * Runs {@code spec}, printing progress to {@code progress}: on a {@code terminal}, one line
   * redrawn in place about once a second; otherwise a plain line when the phase changes and
   * every {@value #PLAIN_PROGRESS_SECONDS} seconds, so a redirected log does not fill with
   * carriage-return redraws.
   *
   * @throws IllegalArgumentException for an unknown system, runtime or nemesis, or a nemesis the
   *     system or runtime cannot run (the message says which and why)
   * @throws SetupException when the cluster cannot be set up (everything is torn down first)
   */
  public static RunResult run(VerifySpec spec, PrintStream progress, boolean terminal) {
    SystemProvider provider = Systems.load().provider(spec.system());
    List<Nemesis> nemeses = spec.nemeses().stream().map(Nemeses::named).toList();
    if (spec.nodes() < provider.minNodes()) {
      throw new IllegalArgumentException(spec.system() + " runs on at least "
          + provider.minNodes() + " nodes: " + spec.nodes() + " given");
    }
    // checked before anything starts; the system reads these, defaults applied
    OptionValues options = provider.options().check(spec.options(), spec.nodes());
    Runtimes runtimes = Runtimes.load();
    runtimes.check(spec.runtime());
    return run(spec.toBuilder().options(options.effective()).build(), provider, nemeses, options,
        runtimes, progress, terminal);
  }

  /**
   * Runs {@code spec}, whose options are the effective ones (defaults included), so that the
   * store, the report and the verdict line say which mode ran even when nothing was given.
   */
  private static RunResult run(VerifySpec spec, SystemProvider provider, List<Nemesis> nemeses,
      OptionValues options, Runtimes runtimes, PrintStream progress, boolean terminal) {
    SystemUnderTest system = provider.create();
    Path dir = runDirectory(spec);
    NodeRuntime runtime;
    try {
      runtime = runtimes.create(spec.runtime(), dir);
      for (Nemesis n : nemeses) {
        Nemeses.refusal(n, system, runtime, spec.nodes(), options).ifPresent(why -> {
          throw new IllegalArgumentException("nemesis " + n.name() + " cannot run here: " + why);
        });
      }
    } catch (RuntimeException e) {
      deleteEmpty(dir); // nothing ran: leave no empty run behind
      throw e;
    }
    TearDown tearDownSystem = () -> closeUnlessLost(system, runtime, progress);
    try (runtime; tearDownSystem) {
      progress.printf("partkit verify: %s on %d nodes (%s), nemesis %s, %s, seed %d -> %s%n",
          spec.system(), spec.nodes(), spec.runtime(),
          nemeses.isEmpty() ? "none" : String.join(",", spec.nemeses()), readable(spec.time()),
          spec.seed(),
          dir);
      system.start(new SystemContext(runtime, dir, spec.nodes(), spec.seed(), options));
      return new Run(spec, system, runtime, nemeses, dir, progress, terminal).execute();
    } finally {
      link(spec.store(), dir);
    }
  }

  /** {@code 90 s} or {@code 500 ms}, not {@code PT1M30S}. */
  static String readable(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** A resource whose close throws nothing checked. */
  private interface TearDown extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Closes the system; when the runtime lost control of the nodes (the engine is gone), its
   * failures are expected and only reported, so that they do not replace the run's verdict.
   */
  private static void closeUnlessLost(SystemUnderTest system, NodeRuntime runtime,
      PrintStream progress) {
    try {
      system.close();
    } catch (RuntimeException e) {
      if (runtime.lostControl().isEmpty()) {
        throw e;
      }
      progress.println("tear-down of " + system.name() + " incomplete ("
          + runtime.lostControl().get() + "): " + e.getMessage());
    }
  }

  private static Path runDirectory(VerifySpec spec) {
    try {
      Path base = spec.store().resolve(spec.system());
      Files.createDirectories(base);
      Path dir = base.resolve(LocalDateTime.now().format(RUN_NAME));
      for (int i = 1; Files.exists(dir); i++) {
        dir = base.resolve(LocalDateTime.now().format(RUN_NAME) + "-" + i);
      }
      return Files.createDirectories(dir).toAbsolutePath();
    } catch (IOException e) {
      throw new SetupException("cannot create the run directory under " + spec.store() + ": "
          + e.getMessage(), e);
    }
  }

  private static void deleteEmpty(Path dir) {
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // not empty or not ours to remove: keep it
    }
  }

  /** {@code store/latest} and {@code store/<system>/latest} point at the last run, as Jepsen's. */
  private static void link(Path store, Path dir) {
    for (Path link : List.of(store.resolve("latest"), dir.getParent().resolve("latest"))) {
      try {
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, link.getParent().toAbsolutePath().relativize(dir));
      } catch (IOException | UnsupportedOperationException e) {
        // a store on a file system without links still holds every run
      }
    }
  }

  /** One run's moving parts. */
  private static final class Run {
    private final VerifySpec spec;
    private final SystemUnderTest system;
    private final NodeRuntime runtime;
    private final List<Nemesis> nemeses;
    private final Path dir;
    private final PrintStream progress;
    private final boolean terminal;
    private long lastPlainLine = Long.MIN_VALUE;
    private String lastPlainPhase = "";
    private final Recorder recorder = new Recorder(System.nanoTime());
    private final RegisterWorkload workload;
    private final AtomicLong nextProcess;
    private final AtomicInteger invoked = new AtomicInteger();
    private final AtomicInteger info = new AtomicInteger();
    private final Map<Object, Op> finalReads = new ConcurrentHashMap<>();
    private volatile String phase = "faults";

    Run(VerifySpec spec, SystemUnderTest system, NodeRuntime runtime, List<Nemesis> nemeses,
        Path dir, PrintStream progress, boolean terminal) {
      this.spec = spec;
      this.terminal = terminal;
      this.system = system;
      this.runtime = runtime;
      this.nemeses = nemeses;
      this.dir = dir;
      this.progress = progress;
      this.workload = new RegisterWorkload(spec.seed(), spec.concurrency(), spec.threadsPerKey(),
          spec.opsPerKey());
      this.nextProcess = new AtomicLong(spec.concurrency());
    }

    RunResult execute() {
      long end = spec.time().toNanos();
      NemesisSchedule schedule = new NemesisSchedule(nemeses, system, runtime, recorder,
          spec.seed(), end, progress);
      Thread nemesisThread = new Thread(schedule, "nemesis");
      Thread ticker = new Thread(this::tick, "progress");
      ticker.setDaemon(true);
      ticker.start();
      nemesisThread.start();
      runWorkers(() -> recorder.elapsedNanos() >= end && schedule.finished());
      long faultPhaseNanos = recorder.elapsedNanos();
      int faultPhaseOps = invoked.get();
      enter("heal");
      try {
        nemesisThread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      schedule.healAll("stop");
      enter("recover");
      try {
        system.awaitRecovered(RECOVERY_TIMEOUT);
        enter("final reads");
        finalReads();
      } catch (RuntimeException e) {
        if (runtime.lostControl().isEmpty()) {
          throw e;
        }
        // the nodes are out of reach: check what was recorded, which cannot be called valid
        progress.println("\n" + runtime.lostControl().get() + "; no recovery, no final reads: "
            + e.getMessage());
      }
      enter("check");
      List<Op> ops = recorder.ops();
      long checkStart = System.nanoTime();
      // The harness records a read of an unset key as nil: strict, so such a read is checked.
      Analysis analysis =
          Linearizability.check(
              Models.casRegister(null, NilReads.STRICT),
              History.of(dir.resolve("history.edn").toString(), ops),
              CheckOptions.defaults()
                  .withTimeLimit(spec.checkTimeLimit())
                  .withStopOnFirstInvalid(false));
      LostWrites.Result lost = LostWrites.check(ops, finalReads, workload.keys());
      long checkNanos = System.nanoTime() - checkStart;
      RunStats stats = RunStats.of(ops, recorder.mismatches());
      enter("placement");
      // A run the history already proves invalid gets one look: waiting for a placement to
      // settle could not change its verdict, only delay it (a broken system never settles).
      boolean invalidAlready = analysis.verdict() == Verdict.INVALID
          || runtime.lostControl().isEmpty() && !lost.ok();
      Optional<PlacementCheck> placement =
          checkPlacement(invalidAlready ? Duration.ZERO : PLACEMENT_PATIENCE);
      long runNanos = recorder.elapsedNanos() - checkNanos;
      boolean misplaced = placement.map(p -> !p.ok()).orElse(false);
      // A run whose runtime lost control of the nodes is never valid: its faults may not have
      // been what the history says. A non-linearizable history is still a fact.
      Optional<String> lostControl = runtime.lostControl();
      Verdict verdict = analysis.verdict() == Verdict.INVALID
          || lostControl.isEmpty() && (!lost.ok() || misplaced)
          ? Verdict.INVALID
          : analysis.verdict() == Verdict.UNKNOWN || !lost.unread().isEmpty()
              || lostControl.isPresent() ? Verdict.UNKNOWN
          : Verdict.VALID;
      lostControl.ifPresent(why -> progress.println("\nverdict at most unknown: " + why));
      enter("done");
      RunResult result = new RunResult(verdict, dir, invoked.get(),
          faultPhaseOps / Math.max(1e-9, faultPhaseNanos / 1e9), schedule.faults(),
          schedule.planned(), analysis, lost, stats, runNanos, checkNanos, placement,
          spec.options());
      RunStore.write(spec, result, ops);
      if (terminal) {
        progress.println(); // end the redrawn line
      }
      return result;
    }

    /** The system's own placement check; one that cannot run is reported and left out. */
    private Optional<PlacementCheck> checkPlacement(Duration patience) {
      try {
        return system instanceof Capability.CheckPlacement c ? c.checkPlacement(patience)
            : Optional.empty();
      } catch (RuntimeException e) {
        progress.println("\nplacement check failed to run: " + e);
        return Optional.empty();
      }
    }

    /** The workers run until {@code over}: the run's time is up and the nemesis's plan done. */
    private void runWorkers(java.util.function.BooleanSupplier over) {
      onThreads("worker", worker -> work(worker, over));
    }

    /** Runs {@code body} for every worker number on a thread of its own, until all return. */
    private void onThreads(String name, IntConsumer body) {
      CountDownLatch done = new CountDownLatch(spec.concurrency());
      for (int w = 0; w < spec.concurrency(); w++) {
        int worker = w;
        Thread t = new Thread(() -> {
          try {
            body.accept(worker);
          } finally {
            done.countDown();
          }
        }, name + "-" + w);
        t.start();
      }
      try {
        done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void work(int worker, java.util.function.BooleanSupplier over) {
      Random pace = new Random(spec.seed() * 31 + worker);
      long process = worker;
      // Jepsen's stagger: a mean interval of concurrency/rate, uniformly spread.
      long meanGapNanos = spec.rate() == 0 ? 0 : (long) (spec.concurrency() * 1e9 / spec.rate());
      long next = recorder.elapsedNanos();
      try (Client client = system.openClient()) {
        while (!over.getAsBoolean()) {
          if (meanGapNanos > 0) {
            next += (long) (pace.nextDouble() * 2 * meanGapNanos);
            while (recorder.elapsedNanos() < next && !over.getAsBoolean()) {
              sleepUntil(Math.min(next, recorder.elapsedNanos() + 100_000_000L));
            }
            if (over.getAsBoolean()) {
              break;
            }
          }
          Operation op = workload.next(worker);
          Outcome outcome = perform(client, process, op);
          if (outcome.type() == OpType.INFO) {
            process = nextProcess.getAndIncrement();
          } else if (outcome.type() == OpType.OK) {
            workload.observe(worker, op.key(), (Long) (op.f().equals(Operation.CAS)
                ? op.casNew() : outcome.value()));
          }
        }
      }
    }

    private Outcome perform(Client client, long process, Operation op) {
      recorder.client(process, OpType.INVOKE, op.f(), op.value(), op.key());
      invoked.incrementAndGet();
      Outcome outcome;
      try {
        outcome = client.invoke(op);
      } catch (RuntimeException e) {
        outcome = Outcome.info(op.value(), "client threw " + e); // unknown: it may have happened
      }
      if (outcome.type() == OpType.INFO) {
        info.incrementAndGet();
      }
      Op completion = recorder.client(process, outcome, op.f(), op.key());
      if (phase.equals("final reads") && outcome.type() == OpType.OK) {
        finalReads.put(op.key(), completion);
      }
      return outcome;
    }

    /** One ok read per key, each attempt by a fresh process, spread over the workers. */
    private void finalReads() {
      List<Long> keys = workload.keys();
      AtomicInteger cursor = new AtomicInteger();
      long deadline = recorder.elapsedNanos() + FINAL_READS_TIMEOUT.toNanos();
      onThreads("final-reader", worker -> {
        try (Client client = system.openClient()) {
          int i;
          while ((i = cursor.getAndIncrement()) < keys.size()) {
            long key = keys.get(i);
            long backoff = 10;
            while (!finalReads.containsKey(key) && recorder.elapsedNanos() < deadline) {
              Outcome o = perform(client, nextProcess.getAndIncrement(),
                  new Operation(Operation.READ, key, null));
              if (o.type() != OpType.OK) {
                sleepUntil(recorder.elapsedNanos() + TimeUnit.MILLISECONDS.toNanos(backoff));
                backoff = Math.min(1000, backoff * 2);
              }
            }
          }
        }
      });
    }

    private void sleepUntil(long elapsedTarget) {
      long left = elapsedTarget - recorder.elapsedNanos();
      if (left > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(left); // pacing the workload, not waiting out a race
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /**
     * A new phase shows at once, not at the next tick. The phases after the faults are marked in
     * the history ({@code :nemesis :info :phase}), so the report shows why clients wait there.
     */
    private void enter(String next) {
      if (PHASES_MARKED.contains(next)) {
        recorder.nemesis(OpType.INFO, "phase", next);
      }
      phase = next;
      printProgress();
    }

    private synchronized void printProgress() {
      long now = recorder.elapsedNanos();
      if (terminal) {
        progress.printf("\r[%5.1f s / %d s] %-11s ops %d, unknown %d   ", now / 1e9,
            spec.time().toSeconds(), phase, invoked.get(), info.get());
      } else if (!phase.equals(lastPlainPhase)
          || now - lastPlainLine >= TimeUnit.SECONDS.toNanos(PLAIN_PROGRESS_SECONDS)) {
        lastPlainLine = now;
        lastPlainPhase = phase;
        progress.printf("[%5.1f s / %d s] %s: ops %d, unknown %d%n", now / 1e9,
            spec.time().toSeconds(), phase, invoked.get(), info.get());
      }
      progress.flush();
    }

    private void tick() {
      while (!phase.equals("done")) {
        printProgress();
        try {
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

}
