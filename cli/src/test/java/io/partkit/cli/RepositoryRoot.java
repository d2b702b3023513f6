package io.partkit.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the repository's root for tests that read README.md and docs/. */
final class RepositoryRoot {

  private RepositoryRoot() {}

  /**
   * The nearest directory, from the working directory upwards, that holds README.md, the Maven
   * wrapper and docs/ (Surefire runs a module's tests in the module's directory).
   */
  static Path find() {
    Path start = Path.of("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("README.md"))
          && Files.isRegularFile(dir.resolve("mvnw"))
          && Files.isDirectory(dir.resolve("docs"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no directory holding README.md, mvnw and docs/ from " + start + " upwards");
  }
}
