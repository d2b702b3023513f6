package io.partkit.bench;

import java.util.List;
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
 */
public record BenchResult(BenchOptions options, Map<String, String> environment,
    Map<String, String> subjects, List<PlacementRow> placements, List<LookupRow> lookups,
    List<PlanningRow> planning, List<String> problems, double seconds) {

  public BenchResult {
    environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
    subjects = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(subjects));
    placements = List.copyOf(placements);
    lookups = List.copyOf(lookups);
    planning = List.copyOf(planning);
    problems = List.copyOf(problems);
  }

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

  /** Lookup cost next to the bare Murmur3 hash of the same keys, timed together. */
  public record LookupRow(String subject, int nodes, double nanosPerLookup, double bareHashNanos,
      String method) {

    /** Lookup over bare hash. */
    public double ratio() {
      return nanosPerLookup / bareHashNanos;
    }
  }

  /** Time and allocation of computing one full assignment (median of the timed repetitions). */
  public record PlanningRow(String subject, int nodes, int replicas, int partitions,
      double millis, long allocatedBytes, int repetitions) {}
}
