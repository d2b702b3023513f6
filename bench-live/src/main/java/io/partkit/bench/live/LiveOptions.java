package io.partkit.bench.live;

import static java.util.Objects.requireNonNull;

import io.partkit.harness.runtime.RuntimeSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a live run measures and how. Start from {@link #defaults} or {@link #quickRun} and change
 * with the {@code with...} methods.
 *
 * @param systems the systems to run, of {@link LiveSubjects#SYSTEMS}, in report order
 * @param runtime where the nodes run (as {@code partkit verify --runtime})
 * @param dir where each cluster keeps its data and node logs (a folder per subject)
 * @param keys keys preloaded before the events, each with a {@link #VALUE_BYTES}-byte value
 * @param rate client operations per second, all workers together (80% reads, 20% writes)
 * @param workers client threads
 * @param steady the steady window measured before each event
 * @param rebalanceTimeout how long an event may take to rebalance before the subject fails
 * @param seed seed of the values and the clients' key choices
 * @param quick whether these started as {@link #quickRun}'s settings, for the report
 */
public record LiveOptions(List<String> systems, RuntimeSpec runtime, Path dir, int keys,
    int rate, int workers, Duration steady, Duration rebalanceTimeout, long seed,
    boolean quick) {

  /** Every key's value size. */
  public static final int VALUE_BYTES = 100;

  /**
   * @throws IllegalArgumentException naming every bad value
   */
  public LiveOptions {
    systems = List.copyOf(requireNonNull(systems, "systems"));
    requireNonNull(runtime, "runtime");
    requireNonNull(dir, "dir");
    requireNonNull(steady, "steady");
    requireNonNull(rebalanceTimeout, "rebalanceTimeout");
    List<String> problems = new ArrayList<>();
    if (systems.isEmpty()) {
      problems.add("systems must not be empty (known: " + LiveSubjects.SYSTEMS + ")");
    }
    for (String s : systems) {
      if (!LiveSubjects.SYSTEMS.contains(s)) {
        problems.add("unknown system '" + s + "' (known: " + LiveSubjects.SYSTEMS + ")");
      }
    }
    if (keys < 1_000 || keys > 10_000_000) {
      problems.add("live keys must be in 1000..10000000: " + keys);
    }
    if (rate < 10 || rate > 1_000_000) {
      problems.add("live rate must be in 10..1000000 operations per second: " + rate);
    }
    if (workers < 1 || workers > 256) {
      problems.add("live workers must be in 1..256: " + workers);
    }
    if (steady.toMillis() < 500) {
      problems.add("the steady window must be at least 500 ms: " + steady.toMillis() + " ms");
    }
    if (rebalanceTimeout.toSeconds() < 10) {
      problems.add("the rebalance timeout must be at least 10 s: " + rebalanceTimeout);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid live options: " + String.join("; ", problems));
    }
  }

  /**
   * The report's run: every system, processes, 1,000,000 keys, 2,000 operations per second from 8
   * workers, 10 s of steady state before each event, 10 minutes at most per rebalance.
   */
  public static LiveOptions defaults(Path dir) {
    return new LiveOptions(LiveSubjects.SYSTEMS, RuntimeSpec.named("processes"), dir, 1_000_000,
        2_000, 8, Duration.ofSeconds(10), Duration.ofMinutes(10), 42, false);
  }

  /**
   * A first look: 50,000 keys, 1,000 operations per second from 4 workers, 3 s of steady state
   * before each event, 3 minutes at most per rebalance.
   */
  public static LiveOptions quickRun(Path dir) {
    return new LiveOptions(LiveSubjects.SYSTEMS, RuntimeSpec.named("processes"), dir, 50_000,
        1_000, 4, Duration.ofSeconds(3), Duration.ofMinutes(3), 42, true);
  }

  public LiveOptions withSystems(List<String> value) {
    return new LiveOptions(value, runtime, dir, keys, rate, workers, steady, rebalanceTimeout,
        seed, quick);
  }

  public LiveOptions withRuntime(RuntimeSpec value) {
    return new LiveOptions(systems, value, dir, keys, rate, workers, steady, rebalanceTimeout,
        seed, quick);
  }

  public LiveOptions withKeys(int value) {
    return new LiveOptions(systems, runtime, dir, value, rate, workers, steady, rebalanceTimeout,
        seed, quick);
  }

  public LiveOptions withRate(int value) {
    return new LiveOptions(systems, runtime, dir, keys, value, workers, steady, rebalanceTimeout,
        seed, quick);
  }

  public LiveOptions withSeed(long value) {
    return new LiveOptions(systems, runtime, dir, keys, rate, workers, steady, rebalanceTimeout,
        value, quick);
  }
}
