package io.partkit.verification.bench;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Models;
import java.time.Duration;

/**
 * Checks {@link CrashedHistories}' cases in process (generated, not read: the check alone) and
 * prints verdict, search steps and time per round:
 * {@code java -Xmx1g -cp ... io.partkit.verification.bench.CrashedTiming ROUNDS LIMIT_S [name...]}.
 * A verdict other than the one by construction is printed as WRONG and ends the run with status 1.
 */
public final class CrashedTiming {
  private CrashedTiming() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    long limit = args.length > 1 ? Long.parseLong(args[1]) : 60;
    java.util.List<String> only = java.util.List.of(args).subList(Math.min(2, args.length),
        args.length);
    boolean wrong = false;
    for (CrashedHistories.Spec s : CrashedHistories.SPECS) {
      if (!only.isEmpty() && !only.contains(s.name())) {
        continue;
      }
      History h = s.history();
      for (int r = 0; r < rounds; r++) {
        Analysis a = Linearizability.check(Models.casRegister(null), h,
            CheckOptions.defaults().withTimeLimit(Duration.ofSeconds(limit)));
        long steps = a.keys().stream().mapToLong(k -> k.steps()).sum();
        boolean ok = a.verdict() == (s.invalid() ? io.partkit.verification.checker.Verdict.INVALID
            : io.partkit.verification.checker.Verdict.VALID);
        wrong |= !ok;
        String at = a.failure().map(k -> " at " + k.evidence().op()).orElse("");
        System.out.printf("%s\tround %d\t%s%s%s\t%d steps\tverdict %.3f s\tall %.3f s\tload %s%n",
            s.name(), r, a.verdict(), ok ? "" : " WRONG (" + a.cause() + ")", at, steps,
            a.verdictNanos() / 1e9, a.nanos() / 1e9, load());
      }
    }
    System.exit(wrong ? 1 : 0);
  }

  static String load() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException e) {
      return "?";
    }
  }
}
