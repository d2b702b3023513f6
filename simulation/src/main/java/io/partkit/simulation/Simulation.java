package io.partkit.simulation;

import io.partkit.verification.checker.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/** Runs seeds: one, a range in parallel, or a failing one shrunk. */
public final class Simulation {

  private Simulation() {}

  /** Runs {@code seed} with the fault plan the seed draws. */
  public static SeedResult run(SimulationSpec spec, long seed) {
    return run(spec, seed, FaultPlan.draw(seed, spec));
  }

  /** Runs {@code seed} with {@code plan} instead of the one it draws (replaying a shrunk run). */
  public static SeedResult run(SimulationSpec spec, long seed, List<Fault> plan) {
    return new SimulatedRun(spec, seed, plan).run();
  }

  /** The fault plan {@code seed} draws for {@code spec}. */
  public static List<Fault> plan(SimulationSpec spec, long seed) {
    return FaultPlan.draw(seed, spec);
  }

  /**
   * Runs seeds {@code first..last} on {@code threads} threads, each seed on one thread from start
   * to end, and hands each result to {@code done} as it ends (from the runner's threads, one at a
   * time). Results come back in seed order.
   */
  public static List<SeedResult> runAll(SimulationSpec spec, long first, long last, int threads,
      Consumer<SeedResult> done) {
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "simulate");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<SeedResult>> futures = new ArrayList<>();
      for (long s = first; s <= last; s++) {
        long seed = s;
        futures.add(pool.submit(() -> {
          SeedResult r = run(spec, seed);
          synchronized (done) {
            done.accept(r);
          }
          return r;
        }));
      }
      List<SeedResult> results = new ArrayList<>();
      for (Future<SeedResult> f : futures) {
        results.add(f.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a seed's run failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** A failing seed, shrunk: the fewest faults and the shortest time found that still fail. */
  public record Shrunk(SimulationSpec spec, List<Fault> plan, SeedResult result, int runs) {}

  /**
   * Shrinks an invalid seed: drops faults one at a time (latest first) while the run stays
   * invalid, then halves the time while it does.
   *
   * @param budget the most runs to spend
   */
  public static Shrunk shrink(SimulationSpec spec, SeedResult failing, int budget) {
    if (failing.verdict() != Verdict.INVALID) {
      throw new IllegalArgumentException("seed " + failing.seed() + " is not invalid: "
          + failing.verdict());
    }
    List<Fault> plan = new ArrayList<>(failing.plan());
    SimulationSpec current = spec;
    SeedResult best = failing;
    int runs = 0;
    for (int i = plan.size() - 1; i >= 0 && runs < budget; i--) {
      List<Fault> fewer = new ArrayList<>(plan);
      fewer.remove(i);
      SeedResult r = run(current, failing.seed(), fewer);
      runs++;
      if (r.verdict() == Verdict.INVALID) {
        plan = fewer;
        best = r;
      }
    }
    long millis = current.time().toMillis();
    while (millis > 200 && runs < budget) {
      long half = millis / 2;
      SimulationSpec shorter = current.withTime(Duration.ofMillis(half));
      List<Fault> within = plan.stream().filter(f -> f.at() < half).toList();
      SeedResult r = run(shorter, failing.seed(), within);
      runs++;
      if (r.verdict() != Verdict.INVALID) {
        break;
      }
      current = shorter;
      plan = new ArrayList<>(within);
      best = r;
      millis = half;
    }
    return new Shrunk(current, plan, best, runs);
  }
}
