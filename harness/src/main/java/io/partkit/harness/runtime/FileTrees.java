package io.partkit.harness.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Whole directory trees on this machine's file system. */
public final class FileTrees {

  private FileTrees() {}

  /**
   * Deletes {@code root} and everything under it, children before parents, without following
   * symbolic links (a link is deleted, never what it points to). Nothing happens when {@code root}
   * does not exist, and a file that vanishes meanwhile (a node process still exiting) is no error.
   *
   * @throws IOException naming the first path that could not be deleted; what was deleted before
   *     it stays deleted
   */
  public static void delete(Path root) throws IOException {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    List<Path> deepestFirst;
    try (Stream<Path> all = Files.walk(root)) {
      deepestFirst = all.sorted(Comparator.reverseOrder()).toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    for (Path p : deepestFirst) {
      Files.deleteIfExists(p);
    }
  }
}
