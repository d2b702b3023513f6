package io.partkit.harness;

import io.partkit.harness.check.LostWrites;
import io.partkit.harness.check.RunStats;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.Verdict;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The outcome of one run.
 *
 * @param verdict invalid when a key is not linearizable or an acknowledged write was lost;
 *     unknown when the checker gave up or some key was never read at the end; else valid
 * @param dir the run's directory in the store
 * @param operations client operations recorded (invocations)
 * @param opsPerSecond client operations per second while faults ran (the fault phase alone: heal,
 *     recovery and the final reads wait on the system and would dilute it)
 * @param faults faults the nemesis injected (attempts that injected nothing are not counted)
 * @param plannedFaults faults the nemesis planned: it injects them all however slow the
 *     machine, or, past a hard limit, stops short and says so ({@code faults} is then less)
 * @param linearizability the checker's analysis (per key)
 * @param lostWrites the lost-write check
 * @param stats availability and latency
 * @param runNanos how long the clients ran (all phases)
 * @param checkNanos how long checking took
 * @param placement the system's placement check after the run, when it has one (a misplaced key
 *     makes the run invalid)
 * @param options the system's options the run used: those given and the defaults of the others
 */
public record RunResult(Verdict verdict, Path dir, int operations, double opsPerSecond,
    int faults,
    int plannedFaults, Analysis linearizability, LostWrites.Result lostWrites, RunStats stats,
    long runNanos, long checkNanos, Optional<PlacementCheck> placement,
    Map<String, String> options) {

  /** Sorted by name, so that the verdict line reads the same run after run. */
  public RunResult {
    options = Collections.unmodifiableMap(new TreeMap<>(options));
  }

  /** The process exit code of {@code ./partkit verify}: 0 valid, 1 invalid, 2 unknown. */
  public int exitCode() {
    return switch (verdict) {
      case VALID -> 0;
      case INVALID -> 1;
      case UNKNOWN -> 2;
    };
  }

  /**
   * One line: verdict, operations, lost writes, timings, the options in force (defaults
   * included) and the run's directory.
   */
  public String summary() {
    return String.format("%s: %d ops (%.0f ops/s under faults), %d faults%s, linearizable %s, "
            + "%d of %d acknowledged writes lost, %d keys unread, check %.3f s; %s",
        verdict.name().toLowerCase(java.util.Locale.ROOT), operations,
        opsPerSecond, faults,
        faults < plannedFaults ? " (of " + plannedFaults + " planned)" : "",
        linearizability.verdict().name().toLowerCase(java.util.Locale.ROOT),
        lostWrites.lost().size(), lostWrites.acknowledged(), lostWrites.unread().size(),
        checkNanos / 1e9, optionsText() + dir)
        + placement.map(p -> String.format("; placement %s: %d checked, %d misplaced",
            p.ok() ? "holds" : "VIOLATED", p.checked(), p.misplaced().size()))
            .orElse("");
  }

  /** {@code options durable=true; } or nothing for a system without options. */
  private String optionsText() {
    if (options.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("options ");
    options.forEach((k, v) -> sb.append(sb.length() > "options ".length() ? ", " : "")
        .append(k).append('=').append(v));
    return sb.append("; ").toString();
  }
}
