package io.partkit.verification.checker;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Locates the Porcupine corpus as {@code $PARTKIT_ROOT/../shared/data/histories/porcupine}
 * (surefire sets PARTKIT_ROOT to the reactor root), or the nearest {@code shared/data/...} above
 * the root (a worktree). Missing: fail under CI=true, else skip.
 */
final class Corpus {
  private Corpus() {}

  record Row(String path, String expected) {}

  static Path dir() {
    String root = System.getenv("PARTKIT_ROOT");
    Path dir = root == null ? null : Path.of(root).resolve("../shared/data/histories/porcupine").normalize();
    // A git worktree sits one level deeper than the main checkout: look further up as well.
    for (Path p = root == null ? null : Path.of(root).toAbsolutePath().getParent(); p != null && dir != null
        && !Files.isRegularFile(dir.resolve("EXPECTED.tsv")); p = p.getParent()) {
      Path candidate = p.resolve("shared/data/histories/porcupine");
      if (Files.isRegularFile(candidate.resolve("EXPECTED.tsv"))) {
        dir = candidate;
      }
    }
    if (dir == null || !Files.isRegularFile(dir.resolve("EXPECTED.tsv"))) {
      String what = "the Porcupine corpus (EXPECTED.tsv) at " + (dir == null ? "$PARTKIT_ROOT/../shared/data/histories/porcupine (PARTKIT_ROOT unset)" : dir);
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
