package io.partkit.harness.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What a node printed: every line is appended to its log and kept, so the harness can wait for
 * the next line with a prefix ({@link NodeProcess#awaitLine}). Shared by every runtime.
 */
final class ChildLines {

  private final String node;
  private final Path log;
  private final List<String> lines = new ArrayList<>();
  /** Per prefix, the index after the line the last await returned. */
  private final Map<String, Integer> cursors = new HashMap<>();
  private int skippedTo;
  private boolean ended;

  ChildLines(String node, Path log) {
    this.node = node;
    this.log = log;
  }

  /** A line the node printed. */
  void accept(String line) {
    try {
      Files.writeString(log, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + log, e);
    }
    synchronized (lines) {
      lines.add(line);
      lines.notifyAll();
    }
  }

  /** The output ended (the process exited and everything it printed was read). */
  void end() {
    synchronized (lines) {
      ended = true;
      lines.notifyAll();
    }
  }

  /**
   * The next line with {@code prefix} (see {@link NodeProcess#awaitLine}).
   *
   * @param alive false once the node is surely gone, for runtimes whose output never ends
   */
  String await(String prefix, Duration timeout, BooleanSupplier alive) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      int seen = Math.max(skippedTo, cursors.getOrDefault(prefix, 0));
      while (true) {
        for (; seen < lines.size(); seen++) {
          if (lines.get(seen).startsWith(prefix)) {
            cursors.put(prefix, seen + 1);
            return lines.get(seen);
          }
        }
        long left = deadline - System.nanoTime();
        boolean gone = ended || !alive.getAsBoolean();
        if (left <= 0 || gone) {
          cursors.put(prefix, seen);
          throw new SetupException(node + " printed no line starting with '" + prefix + "' within "
              + timeout + (gone ? " (it exited)" : "") + "; its log " + log
              + " ends with:\n" + NodeLogs.tail(log, 30));
        }
        try {
          lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SetupException("interrupted waiting for " + node, e);
        }
      }
    }
  }

  void skip() {
    synchronized (lines) {
      cursors.replaceAll((prefix, seen) -> lines.size());
      skippedTo = lines.size();
    }
  }
}
