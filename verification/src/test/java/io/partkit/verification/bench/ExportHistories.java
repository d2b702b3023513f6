package io.partkit.verification.bench;

import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes partkit's generated benchmark histories as JSON, for checkers outside the JVM (the Go
 * driver in {@code tools/porcupine-compare}, which runs Porcupine on them). One file per corpus:
 * an array of {@code {"name", "expected": "valid"|"invalid", "events": [...]}}, the events in
 * history order (that order is the real-time order: invoke and completion events interleaved as
 * recorded), each
 * {@code {"p": process, "t": "invoke"|"ok"|"fail"|"info", "f": "read"|"write"|"cas", "v": null | n
 * | [old, new], "k": key or null}}.
 *
 * <ul>
 *   <li>{@code small.json}: {@link SmallCorpus#generate()} (120 histories, 7 invalid);
 *   <li>{@code scale.json}: a few larger ones in the style of {@link ScaleBenchmark}: one key
 *       (concurrency 5 and one sequential process) and keyed (100 keys, concurrency 10), 10k to
 *       100k operations, all valid by construction.
 * </ul>
 *
 * <p>Run from the repository root:
 * {@code java -cp verification/target/test-classes:verification/target/classes:$(cat /tmp/cp.txt)
 * io.partkit.verification.bench.ExportHistories OUT_DIR}
 */
public final class ExportHistories {
  private ExportHistories() {}

  /** A named history and its verdict by construction. */
  record Named(String name, History history, Verdict expected) {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/partkit-histories");
    Files.createDirectories(dir);
    List<Named> small = new ArrayList<>();
    for (SmallCorpus.Entry e : SmallCorpus.generate()) {
      small.add(new Named(e.name(), e.history(), e.expected()));
    }
    write(dir.resolve("small.json"), small);
    write(dir.resolve("scale.json"), scale());
    System.out.println("wrote " + dir.resolve("small.json") + " and " + dir.resolve("scale.json"));
  }

  /** The larger histories: valid by construction, as in {@link ScaleBenchmark}. */
  static List<Named> scale() {
    List<Named> out = new ArrayList<>();
    out.add(new Named("single-c5-n10k", CasHistories.single(21, 10_000, 5, 0.005), Verdict.VALID));
    out.add(
        new Named("single-c5-n100k", CasHistories.single(22, 100_000, 5, 0.005), Verdict.VALID));
    out.add(new Named("sequential-n100k", CasHistories.sequential(10, 100_000), Verdict.VALID));
    out.add(
        new Named(
            "keyed-k100-c10-n10k", CasHistories.keyed(9, 100, 100, 10, 0.005), Verdict.VALID));
    out.add(
        new Named(
            "keyed-k100-c10-n100k", CasHistories.keyed(9, 100, 1_000, 10, 0.005), Verdict.VALID));
    return out;
  }

  static void write(Path file, List<Named> histories) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write("[\n");
      for (int i = 0; i < histories.size(); i++) {
        Named n = histories.get(i);
        w.write(
            "{\"name\":\""
                + n.name()
                + "\",\"expected\":\""
                + (n.expected() == Verdict.VALID ? "valid" : "invalid")
                + "\",\"events\":[");
        List<Op> ops = n.history().ops();
        for (int j = 0; j < ops.size(); j++) {
          Op o = ops.get(j);
          if (j > 0) {
            w.write(',');
          }
          w.write(
              "{\"p\":"
                  + json(o.process())
                  + ",\"t\":\""
                  + o.type().jepsenName()
                  + "\",\"f\":\""
                  + o.f()
                  + "\",\"v\":"
                  + json(o.value())
                  + ",\"k\":"
                  + json(o.key())
                  + "}");
        }
        w.write(i + 1 < histories.size() ? "]},\n" : "]}\n");
      }
      w.write("]\n");
    }
  }

  private static String json(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Number) {
      return v.toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < l.size(); i++) {
        sb.append(i > 0 ? "," : "").append(json(l.get(i)));
      }
      return sb.append(']').toString();
    }
    throw new IllegalArgumentException("value not exported: " + v + " (" + v.getClass() + ")");
  }
}
