package io.partkit.bench.live;

import static java.util.Objects.requireNonNull;

import io.partkit.bench.LiveResult;
import io.partkit.bench.LiveResult.LiveRow;
import io.partkit.bench.LiveResult.LiveSeries;
import io.partkit.bench.Progress;
import io.partkit.bench.live.LiveSubjects.LiveSubject;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.system.Systems;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs {@code partkit bench --live}: every subject of the systems asked for, one after another,
 * each on a cluster of its own, and returns what they measured for the bench's report.
 *
 * <pre>{@code
 * LiveOptions options = LiveOptions.quickRun(Path.of("report/live-nodes"))
 *     .withSystems(List.of("kv"));
 * LiveBench.check(options);                     // a usage error before anything starts
 * LiveResult live = LiveBench.run(options, Progress.silent());
 * Report.write(Bench.run(benchOptions, progress).withLive(live), Path.of("report"));
 * }</pre>
 */
public final class LiveBench {

  private LiveBench() {}

  /**
   * Checks before anything starts that the runtime exists and takes its options; a system that is
   * not on the class path is not a usage error but a row that says so.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static void check(LiveOptions options) {
    requireNonNull(options, "options");
    Runtimes.load().check(options.runtime());
  }

  /** The systems {@code --systems} accepts. */
  public static List<String> systems() {
    return LiveSubjects.SYSTEMS;
  }

  /**
   * Runs every subject; one that cannot be measured is a row saying why, and the run goes on.
   */
  public static LiveResult run(LiveOptions options, Progress progress) {
    requireNonNull(options, "options");
    requireNonNull(progress, "progress");
    List<LiveSubject> subjects = LiveSubjects.of(options.systems(), options.keys());
    List<LiveRow> rows = new ArrayList<>();
    List<LiveSeries> series = new ArrayList<>();
    Systems.load(); // a provider that fails to load is reported by the subject that needs it
    int done = 0;
    for (LiveSubject subject : subjects) {
      progress.step(done, subjects.size(), "live " + subject.label());
      long started = System.nanoTime();
      SubjectRun.Outcome outcome = new SubjectRun(subject, options, progress).run();
      rows.addAll(outcome.rows());
      outcome.series().ifPresent(series::add);
      progress.note(String.format(Locale.ROOT, "%s: %.0f s", subject.label(),
          (System.nanoTime() - started) / 1e9));
      progress.step(++done, subjects.size(), "live " + subject.label());
    }
    return new LiveResult(rows, series, setup(options));
  }

  private static Map<String, String> setup(LiveOptions o) {
    Map<String, String> setup = new LinkedHashMap<>();
    setup.put("run", o.quick() ? "quick (--quick: fewer keys, shorter steady windows)" : "full");
    setup.put("runtime", o.runtime().toString());
    setup.put("cluster", SubjectRun.NODES - 1 + " members and a spare; events: join of the "
        + "spare (5 -> 6), graceful leave (6 -> 5), kill of a member for good (5 -> 4)");
    setup.put("copies", "2 (one backup) on every system");
    setup.put("partitions", "kv " + LiveSubjects.KV_PARTITIONS + ", Ignite "
        + LiveSubjects.IGNITE_PARTITIONS + ", Hazelcast its "
        + LiveSubjects.HAZELCAST_PARTITIONS);
    setup.put("keys", String.format(Locale.ROOT, "%,d of %d-byte values, preloaded", o.keys(),
        LiveOptions.VALUE_BYTES));
    setup.put("clients", String.format(Locale.ROOT, "%,d operations/s from %d workers, 80%% "
        + "reads and 20%% writes on uniform keys, seed %d", o.rate(), o.workers(), o.seed()));
    setup.put("node memory", String.format(Locale.ROOT, "heaps: kv %d MB, Ignite and Hazelcast"
        + " %d MB; Ignite's off-heap region %d MB (each data node, sized for the keys)",
        LiveSubjects.heapMb("kv", o.keys()), LiveSubjects.heapMb("ignite", o.keys()),
        LiveSubjects.igniteRegionMb(o.keys())));
    setup.put("steady window", o.steady().toMillis() + " ms before each event");
    return setup;
  }
}
