package io.partkit.verification.bench;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes one seeded Jepsen {@code independent} history, the one of docs/checker-scale.md's
 * "Reading": 1M operations (2M events) over 1,000 keys, 10 processes per key, about 1%
 * crashed ({@link CasHistories#keyed}, seed 9, as {@link ScaleBenchmark}'s {@code keyed}), every
 * client value a tuple {@code [k v]} and no {@code :key}, as Jepsen writes it, in the three formats
 * the readers read: {@code history.edn} (one map per line as partkit writes it: {@code :index},
 * {@code :process}, {@code :type}, {@code :f}, {@code :value}; about 150 MB),
 * {@code history-time.edn} (as Jepsen writes it, with {@code :time} too: 189 MB),
 * {@code history.jsonl} and {@code jepsen.log}; and {@code indep.json}, the same operations for
 * the Porcupine driver ({@code tools/porcupine-compare -scale}).
 *
 * <p>Run from the repository root:
 * {@code java -cp verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt)
 * io.partkit.verification.bench.IndependentFiles [DIR] [keys] [opsPerKey]}.
 */
public final class IndependentFiles {
  private IndependentFiles() {}

  /** The history: CasHistories.keyed with ScaleBenchmark's seed and shape by default. */
  static History history(int keys, int opsPerKey) {
    return CasHistories.keyed(9, keys, opsPerKey, 10, 0.005);
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/partkit-indep");
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    int opsPerKey = args.length > 2 ? Integer.parseInt(args[2]) : 1_000;
    Files.createDirectories(dir);
    History h = history(keys, opsPerKey);
    write(dir.resolve("history.edn"), h, "edn");
    write(dir.resolve("history-time.edn"), h, "jepsen-edn");
    write(dir.resolve("history.jsonl"), h, "jsonl");
    write(dir.resolve("jepsen.log"), h, "log");
    ExportHistories.write(dir.resolve("indep.json"), List.of(new ExportHistories.Named(
        "indep-k" + keys + "-c10-n" + keys * opsPerKey, h,
        io.partkit.verification.checker.Verdict.VALID)));
    for (String f : List.of("history.edn", "history-time.edn", "history.jsonl", "jepsen.log",
        "indep.json")) {
      System.out.printf("%s: %d events, %.1f MB%n", dir.resolve(f), h.ops().size(),
          Files.size(dir.resolve(f)) / 1e6);
    }
  }

  private static void write(Path file, History h, String format) throws IOException {
    try (Writer w = new BufferedWriter(
        Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16)) {
      List<Op> ops = h.ops();
      for (int i = 0; i < ops.size(); i++) {
        Op o = ops.get(i);
        String value = "[" + o.key() + " " + edn(o.value()) + "]";
        long time = 1_000_000L + i * 997L;
        switch (format) {
          case "edn":
            w.write("{:index " + i + ", :process " + o.process() + ", :type :"
                + o.type().jepsenName() + ", :f :" + o.f() + ", :value " + value + "}\n");
            break;
          case "jepsen-edn":
            w.write("{:type :" + o.type().jepsenName() + ", :f :" + o.f() + ", :value " + value
                + ", :time " + time + ", :process " + o.process() + ", :index " + i + "}\n");
            break;
          case "jsonl":
            w.write("{\"type\":\"" + o.type().jepsenName() + "\",\"f\":\"" + o.f()
                + "\",\"value\":" + value.replace(" ", ",").replace("nil", "null")
                + ",\"time\":" + time + ",\"process\":" + o.process() + ",\"index\":" + i
                + "}\n");
            break;
          default:
            w.write("INFO  jepsen.util - " + o.process() + "\t:" + o.type().jepsenName() + "\t:"
                + o.f() + "\t" + value + "\n");
        }
      }
    }
  }

  private static String edn(Object v) {
    if (v == null) {
      return "nil";
    }
    if (v instanceof List<?> l) {
      return "[" + edn(l.get(0)) + " " + edn(l.get(1)) + "]";
    }
    return v.toString();
  }
}
