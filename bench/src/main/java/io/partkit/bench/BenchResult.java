package io.partkit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything one run measured. Figures that could not be measured are {@code NaN} with the reason
 * in {@code note}.
 *
 * @param options what was run
 * @param environment machine, JVM and run facts, in display order
 * @param subjects each measured subject's name and description, in report order
 * @param placements balance and movement, one row per subject x size x weights x replicas
 * @param lookups lookup cost, one row per subject x size (equal weights, RF 1)
 * @param planning planning cost, one row per subject x size (equal weights, largest RF)
 * @param problems subjects that could not be created or failed, with the reason
 * @param seconds wall time of the run
 * @param skew skewed and sequential keys on hash strategies against range, one row per
 *     workload x subject ({@link SkewBench})
 * @param live what {@code --live} measured on running clusters ({@link LiveResult#none()} without
 *     it)
 */
public record BenchResult(BenchOptions options, Map<String, String> environment,
    Map<String, String> subjects, List<PlacementRow> placements, List<LookupRow> lookups,
    List<PlanningRow> planning, List<String> problems, double seconds, List<SkewRow> skew,
    LiveResult live) {

  public BenchResult {
    environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
    subjects = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(subjects));
    placements = List.copyOf(placements);
    lookups = List.copyOf(lookups);
    planning = List.copyOf(planning);
    problems = List.copyOf(problems);
    skew = List.copyOf(skew);
    java.util.Objects.requireNonNull(live, "live");
  }

  /** A result without the live section (a run without {@code --live}). */
  public BenchResult(BenchOptions options, Map<String, String> environment,
      Map<String, String> subjects, List<PlacementRow> placements, List<LookupRow> lookups,
      List<PlanningRow> planning, List<String> problems, double seconds, List<SkewRow> skew) {
    this(options, environment, subjects, placements, lookups, planning, problems, seconds, skew,
        LiveResult.none());
  }

  /**
   * This result with {@code value} as its live section; the live rows that were not measured
   * join {@link #problems()}, so that the report's list and the exit code count them.
   */
  public BenchResult withLive(LiveResult value) {
    List<String> all = new java.util.ArrayList<>(problems);
    value.unmeasured().forEach(r -> all.add("live " + r.subject() + " " + r.event()
        + ": not measured: " + r.note()));
    return new BenchResult(options, environment, subjects, placements, lookups, planning, all,
        seconds, skew, value);
  }

  /** A result without the skewed-keys section (a run that did not measure it). */
  public BenchResult(BenchOptions options, Map<String, String> environment,
      Map<String, String> subjects, List<PlacementRow> placements, List<LookupRow> lookups,
      List<PlanningRow> planning, List<String> problems, double seconds) {
    this(options, environment, subjects, placements, lookups, planning, problems, seconds,
        List.of());
  }

  /**
   * One workload on one subject, after all its keys were inserted ({@link SkewBench}): keys per
   * node by routing every key, and the partitions and nodes a scan of {@code scanKeys} keys
   * consecutive in byte order touches, on average.
   *
   * @param partitions partitions of the final table
   * @param splits ranges split over the run (0 for subjects that do not split)
   * @param merges ranges merged away over the run
   * @param keysMaxAvg keys on the most loaded node over the average
   * @param keysStdDev standard deviation of keys per node over the average
   */
  public record SkewRow(String workload, String subject, int nodes, int keys, int partitions,
      int splits, int merges, double keysMaxAvg, double keysStdDev, int scanKeys,
      double scanPartitions, double scanNodes, String note) {}

  /**
   * Balance of the placement for {@code nodes} members, and the movement of one join (to
   * {@code nodes + 1}) and one leave (to {@code nodes - 1}). Shares are fractions of the key space
   * (of all replica copies for {@code replicaMoved}); balance is weight-normalized.
   */
  public record PlacementRow(String subject, int nodes, String weights, int replicas,
      String method, int partitions, double partitionsMaxAvg, double partitionsStdDev,
      double keysMaxAvg, double keysStdDev, double replicaKeysMaxAvg, double replicaKeysStdDev,
      double joinMoved, double joinOptimal, double joinMovedBetweenStaying, double joinReplicaMoved,
      double leaveMoved, double leaveOptimal, double leaveMovedBetweenStaying,
      double leaveReplicaMoved, String note) {

    /** True when the row holds figures (the subject supports the combination and did not fail). */
    public boolean measured() {
      return !Double.isNaN(keysMaxAvg);
    }
  }

  /**
   * Lookup cost next to the bare Murmur3 hash of the same keys, from {@code rounds} timed rounds,
   * each a round of the hash immediately followed by a round of lookups. Nanosecond figures are
   * the median, least and greatest round; {@code ratio} is the median of the per-round ratios
   * (lookup round over the hash round just before it), so load that changes between rounds
   * cancels out of it.
   *
   * @param flags why the row should not be trusted, {@code ""} when nothing was noticed: rounds
   *     whose ratios spread more than {@link #SPREAD_LIMIT} of their median, or a median ratio
   *     below 1 (a lookup cannot cost less than the hash it starts with: a measurement artifact)
   */
  public record LookupRow(String subject, int nodes, double nanosPerLookup, double lookupMin,
      double lookupMax, double bareHashNanos, double bareHashMin, double bareHashMax,
      double ratio, double ratioMin, double ratioMax, int rounds, String flags, String method) {

    /**
     * Rounds disagree when (greatest - least ratio) / median ratio exceeds this: 20 %. Chosen,
     * not calibrated: rounds a fifth apart cannot rank subjects whose costs differ by less. It
     * was not checked on an idle machine; on the 2-core machine it was written on, with load
     * averages of 5 to 25 from other work, nearly every row exceeded it (spreads of 22 % to
     * 160 %, the bare hash alone ranging from 3 to 240 ns within one run).
     */
    public static final double SPREAD_LIMIT = 0.20;

    /** A row from per-round figures, with its flags computed. */
    static LookupRow of(String subject, int nodes, double[] lookups, double[] hashes,
        String method) {
      double[] ratios = new double[lookups.length];
      for (int i = 0; i < ratios.length; i++) {
        ratios[i] = lookups[i] / hashes[i];
      }
      double ratio = LookupTimer.median(ratios);
      double spread = (LookupTimer.max(ratios) - LookupTimer.min(ratios)) / ratio;
      List<String> flags = new ArrayList<>();
      if (spread > SPREAD_LIMIT) {
        flags.add(String.format(Locale.ROOT, "rounds disagree: ratio spread %.0f%% > %.0f%%",
            spread * 100, SPREAD_LIMIT * 100));
      }
      if (ratio < 1) {
        flags.add(String.format(Locale.ROOT,
            "faster than the bare hash (%.2fx): a measurement artifact", ratio));
      }
      return new LookupRow(subject, nodes, LookupTimer.median(lookups), LookupTimer.min(lookups),
          LookupTimer.max(lookups), LookupTimer.median(hashes), LookupTimer.min(hashes),
          LookupTimer.max(hashes), ratio, LookupTimer.min(ratios), LookupTimer.max(ratios),
          lookups.length, String.join("; ", flags), method);
    }

    /** True when a flag says the row should not be trusted. */
    public boolean flagged() {
      return !flags.isEmpty();
    }
  }

  /** Time and allocation of computing one full assignment (median of the timed repetitions). */
  public record PlanningRow(String subject, int nodes, int replicas, int partitions,
      double millis, long allocatedBytes, int repetitions) {}
}
