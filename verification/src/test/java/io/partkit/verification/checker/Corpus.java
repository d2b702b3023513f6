package io.partkit.verification.checker;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Locates the Porcupine corpus that ships with the repository, {@code data/histories/porcupine}:
 * under {@code $PARTKIT_ROOT} (surefire sets it to the reactor root), else relative to the module
 * directory (an IDE run). Missing (a broken checkout): fail under CI=true, else skip.
 */
final class Corpus {
  private Corpus() {}

  record Row(String path, String expected) {}

  /** Where the corpus lives, relative to the repository root. */
  static final String RELATIVE = "data/histories/porcupine";

  static Path dir() {
    String root = System.getenv("PARTKIT_ROOT");
    Path dir = Path.of(root == null ? ".." : root).resolve(RELATIVE).toAbsolutePath().normalize();
    if (!Files.isRegularFile(dir.resolve("EXPECTED.tsv"))) {
      String what =
          "the Porcupine corpus (EXPECTED.tsv) at " + dir + " (PARTKIT_ROOT=" + root + ")";
      if ("true".equals(System.getenv("CI"))) {
        fail("missing " + what);
      }
      Assumptions.abort("skipped: missing " + what);
    }
    return dir;
  }

  /** The rows of EXPECTED.tsv with a verdict (etcd_095.log, empty, is skipped by name). */
  static List<Row> rows() throws IOException {
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(dir().resolve("EXPECTED.tsv"))) {
      String[] f = line.split("\t");
      if (f.length < 3 || f[0].equals("relative_path") || f[0].endsWith("etcd_095.log")) {
        continue;
      }
      rows.add(new Row(f[0], f[2]));
    }
    return rows;
  }
}
