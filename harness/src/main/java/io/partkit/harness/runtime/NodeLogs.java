package io.partkit.harness.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading nodes' logs for error messages: a node's last words usually say why it stopped. */
public final class NodeLogs {

  private NodeLogs() {}

  /** The last {@code count} lines of {@code file}, or a note saying why there are none. */
  public static String tail(Path file, int count) {
    try {
      if (!Files.exists(file)) {
        return "(no log)";
      }
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - count), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
