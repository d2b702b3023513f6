package io.partkit.harness.check;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Availability and latency of a run: how many operations of each kind ended ok, failed or stayed
 * unknown, latency percentiles of the ok ones, and throughput second by second.
 *
 * @param counts per function (read, write, cas), per outcome type, how many
 * @param latencyMillis ok latencies: p50, p95, p99, max (milliseconds)
 * @param okPerSecond ok completions in each second of the run
 * @param availability ok / (ok + fail + info), over all client operations
 * @param answered (ok + mismatches) / (ok + fail + info): the share of operations the system
 *     answered from its semantics, counting as answered a failure that is a mismatch (a cas that
 *     found another value), which availability counts as a failure
 * @param mismatches how many failures were mismatches
 * @param waits how long clients waited for every operation, whatever its outcome
 */
public record RunStats(Map<String, Map<OpType, Integer>> counts, double[] latencyMillis,
    int[] okPerSecond, double availability, double answered, int mismatches, Waits waits) {

  /**
   * How long clients waited, over every completed client operation (ok, fail or info): the
   * latency above counts ok operations only, so it does not show a client that waited out a
   * stall and then gave up (info) or was refused (fail); this does.
   *
   * @param longestMillis the longest wait, invocation to completion (milliseconds)
   * @param over1s operations that waited more than 1 s
   * @param over2s operations that waited more than 2 s
   */
  public record Waits(double longestMillis, int over1s, int over2s) {}

  /**
   * The statistics of a history whose {@code :time} is in nanoseconds from the run's start, none
   * of whose failures is known to be a mismatch.
   */
  public static RunStats of(List<Op> ops) {
    return of(ops, Set.of());
  }

  /**
   * The statistics of a history whose {@code :time} is in nanoseconds from the run's start;
   * {@code mismatchIndexes}: the {@link Op#index} of the failures that were mismatches (the
   * history's events do not say; the recorder noted them). An index that is not a client's
   * failure is ignored.
   */
  public static RunStats of(List<Op> ops, Set<Long> mismatchIndexes) {
    Map<String, Map<OpType, Integer>> counts = new TreeMap<>();
    Map<Object, Op> open = new HashMap<>();
    List<Long> latencies = new ArrayList<>();
    TreeMap<Integer, Integer> perSecond = new TreeMap<>();
    int ok = 0;
    int done = 0;
    int mismatches = 0;
    long longestWait = 0;
    int over1s = 0;
    int over2s = 0;
    for (Op op : ops) {
      if (!op.isClient()) {
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        open.put(op.process(), op);
        continue;
      }
      Op invoke = open.remove(op.process());
      counts.computeIfAbsent(op.f(), f -> new TreeMap<>()).merge(op.type(), 1, Integer::sum);
      done++;
      if (invoke != null) {
        long wait = op.time() - invoke.time();
        longestWait = Math.max(longestWait, wait);
        over1s += wait > 1_000_000_000L ? 1 : 0;
        over2s += wait > 2_000_000_000L ? 1 : 0;
      }
      if (op.type() == OpType.FAIL && mismatchIndexes.contains(op.index())) {
        mismatches++;
      }
      if (op.type() == OpType.OK) {
        ok++;
        if (invoke != null) {
          latencies.add(op.time() - invoke.time());
        }
        perSecond.merge((int) (op.time() / 1_000_000_000L), 1, Integer::sum);
      }
    }
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    double[] lat = {pct(sorted, 0.50), pct(sorted, 0.95), pct(sorted, 0.99), pct(sorted, 1.0)};
    int seconds = perSecond.isEmpty() ? 0 : perSecond.lastKey() + 1;
    int[] tput = new int[seconds];
    perSecond.forEach((s, n) -> tput[s] = n);
    return new RunStats(counts, lat, tput, done == 0 ? 0 : (double) ok / done,
        done == 0 ? 0 : (double) (ok + mismatches) / done, mismatches,
        new Waits(longestWait / 1e6, over1s, over2s));
  }

  private static double pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }

  /** How many completions of this function ended with this type. */
  public int count(String f, OpType type) {
    return counts.getOrDefault(f, Map.of()).getOrDefault(type, 0);
  }

  /** All completions of this type. */
  public int total(OpType type) {
    return counts.values().stream().mapToInt(m -> m.getOrDefault(type, 0)).sum();
  }

  @Override
  public String toString() {
    return "RunStats" + counts + " latency ms " + Arrays.toString(latencyMillis)
        + " availability " + availability + " answered " + answered + " " + waits;
  }
}
