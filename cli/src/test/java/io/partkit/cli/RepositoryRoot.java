package io.partkit.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the repository's root for tests that read README.md, docs/ and data/. */
final class RepositoryRoot {

  private RepositoryRoot() {}

  /**
   * {@code $PARTKIT_ROOT}, which Surefire sets to the reactor root for every test (as the other
   * modules' tests read it), else the module directory's parent (a test run from an IDE in the
   * module's directory).
   *
   * @throws IllegalStateException if that directory does not hold README.md and docs/
   */
  static Path find() {
    String root = System.getenv("PARTKIT_ROOT");
    Path dir = Path.of(root == null ? ".." : root).toAbsolutePath().normalize();
    if (!Files.isRegularFile(dir.resolve("README.md")) || !Files.isDirectory(dir.resolve("docs"))) {
      throw new IllegalStateException("not the repository root (no README.md and docs/): " + dir
          + " (PARTKIT_ROOT=" + root + ")");
    }
    return dir;
  }
}
