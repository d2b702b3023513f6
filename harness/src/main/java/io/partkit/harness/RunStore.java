package io.partkit.harness;

import io.partkit.harness.check.LostWrites;
import io.partkit.harness.check.RunStats;
import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.KeyResult;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.history.Values;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Writes a run into its store directory, laid out like Jepsen's: {@code history.edn} (one op map
 * per line, registers as {@code [k v]} tuples in {@code :value} as Jepsen's {@code independent}
 * writes them), {@code results.edn}, {@code index.html}, next to the nodes' logs the system wrote
 * there ({@code <node>.log}) and their data ({@code data/}).
 */
final class RunStore {

  private RunStore() {}

  static void write(VerifySpec spec, RunResult result, List<Op> ops) {
    Path dir = result.dir();
    try {
      try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("history.edn"),
          StandardCharsets.UTF_8)) {
        for (Op op : ops) {
          w.write(HistoryEdn.line(op));
          w.newLine();
        }
      }
      Files.writeString(dir.resolve("results.edn"), results(spec, result), StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("index.html"), RunReport.render(spec, result, ops),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the run to " + dir, e);
    }
  }

  private static String keyword(Verdict v) {
    return switch (v) {
      case VALID -> "true";
      case INVALID -> "false";
      case UNKNOWN -> ":unknown";
    };
  }

  static String results(VerifySpec spec, RunResult r) {
    Analysis a = r.linearizability();
    LostWrites.Result lost = r.lostWrites();
    RunStats s = r.stats();
    List<Object> invalidKeys = a.keys().stream().filter(k -> k.verdict() == Verdict.INVALID)
        .map(KeyResult::key).collect(Collectors.toList());
    List<Object> unknownKeys = a.keys().stream().filter(k -> k.verdict() == Verdict.UNKNOWN)
        .map(KeyResult::key).collect(Collectors.toList());
    StringBuilder sb = new StringBuilder("{:valid? ").append(keyword(r.verdict()));
    sb.append("\n :linearizable {:valid? ").append(keyword(a.verdict()))
        .append(", :model :cas-register, :keys ").append(a.keys().size())
        .append(", :invalid-keys ").append(Values.toEdn(invalidKeys))
        .append(", :unknown-keys ").append(Values.toEdn(unknownKeys));
    if (a.cause() != null) {
      sb.append(", :cause ").append(Values.toEdn(a.cause()));
    }
    a.failure().ifPresent(k -> sb.append(", :op ").append(Values.toEdn(String.valueOf(
        k.evidence().op()))).append(", :error ").append(Values.toEdn(k.evidence().message())));
    sb.append("}");
    sb.append("\n :lost-writes {:valid? ").append(lost.ok())
        .append(", :acknowledged ").append(lost.acknowledged())
        .append(", :keys-read ").append(lost.keys())
        .append(", :unread-keys ").append(Values.toEdn(lost.unread()))
        .append(", :lost-count ").append(lost.lost().size())
        .append(", :lost [");
    lost.lost().stream().limit(100).forEach(l -> sb.append("\n   {:key ")
        .append(Values.toEdn(l.key())).append(", :value ").append(Values.toEdn(l.value()))
        .append(", :invoke-index ").append(l.invokeIndex()).append(", :ok-index ")
        .append(l.okIndex()).append(", :why ").append(Values.toEdn(l.why())).append('}'));
    sb.append("]}");
    r.placement().ifPresent(p -> {
      sb.append("\n :placement {:valid? ").append(p.ok())
          .append(", :rule ").append(Values.toEdn(p.rule()))
          .append(", :checked ").append(p.checked())
          .append(", :misplaced-count ").append(p.misplaced().size())
          .append(", :misplaced ").append(Values.toEdn(p.misplaced().stream().limit(100)
              .collect(Collectors.toList()))).append('}');
    });
    sb.append("\n :stats {:ops ").append(r.operations())
        .append(", :ops-per-second-under-faults ").append(fmt(r.opsPerSecond()))
        .append(", :ok ").append(s.total(OpType.OK))
        .append(", :fail ").append(s.total(OpType.FAIL))
        .append(", :info ").append(s.total(OpType.INFO))
        .append(", :availability ").append(String.format(Locale.ROOT, "%.4f", s.availability()))
        .append(", :answered ").append(String.format(Locale.ROOT, "%.4f", s.answered()))
        .append(", :mismatches ").append(s.mismatches())
        .append(", :latency-ms {:p50 ").append(fmt(s.latencyMillis()[0]))
        .append(", :p95 ").append(fmt(s.latencyMillis()[1]))
        .append(", :p99 ").append(fmt(s.latencyMillis()[2]))
        .append(", :max ").append(fmt(s.latencyMillis()[3])).append("}")
        .append(", :waits {:longest-ms ").append(fmt(s.waits().longestMillis()))
        .append(", :over-1s ").append(s.waits().over1s())
        .append(", :over-2s ").append(s.waits().over2s()).append("}")
        .append(", :by-f ").append(byF(s.counts())).append("}");
    sb.append("\n :faults ").append(r.faults())
        .append("\n :planned-faults ").append(r.plannedFaults())
        .append("\n :run-seconds ").append(fmt(r.runNanos() / 1e9))
        .append("\n :check-seconds ").append(fmt(r.checkNanos() / 1e9))
        .append("\n :spec {:system :").append(spec.system())
        .append(", :nodes ").append(spec.nodes())
        .append(", :nemesis ").append(Values.toEdn(spec.nemeses()))
        .append(", :time-seconds ").append(spec.time().toSeconds())
        .append(", :concurrency ").append(spec.concurrency())
        .append(", :rate ").append(fmt(spec.rate()))
        .append(", :seed ").append(spec.seed())
        .append(", :runtime :").append(spec.runtime().name())
        .append(spec.runtime().givenText().isEmpty() ? "" : ", :runtime-options "
            + Values.toEdn(spec.runtime().givenText()))
        .append(", :ops-per-key ").append(spec.opsPerKey())
        .append(", :options ").append(Values.toEdn(new TreeMap<>(spec.options()))).append("}}\n");
    return sb.toString();
  }

  private static String byF(Map<String, Map<OpType, Integer>> counts) {
    return counts.entrySet().stream().map(e -> ":" + e.getKey() + " {" + e.getValue().entrySet()
            .stream().map(t -> ":" + t.getKey().jepsenName() + " " + t.getValue())
            .collect(Collectors.joining(", ")) + "}")
        .collect(Collectors.joining(", ", "{", "}"));
  }

  private static String fmt(double d) {
    return String.format(Locale.ROOT, "%.3f", d);
  }
}
