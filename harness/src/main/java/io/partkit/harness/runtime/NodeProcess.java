package io.partkit.harness.runtime;

import java.io.IOException;
import java.time.Duration;

/**
 * One process of a node, as a runtime started it. Signals go to the process itself (for a
 * namespaced node, {@code ip netns exec} keeps the pid), so {@code kill -9} and {@code SIGSTOP} are
 * real.
 */
public interface NodeProcess {

  /** The node it runs. */
  String node();

  /** Its operating-system process id. */
  long pid();

  /** True while it runs (a paused process is alive). */
  boolean isAlive();

  /**
   * The next line it printed on standard output that begins with {@code prefix}: the first one
   * after the line the previous call with the same prefix returned (and after {@link #skipLines}),
   * waiting at most {@code timeout} (a busy machine is slow: give it seconds).
   *
   * @throws SetupException if no such line came in time or the process exited first; the message
   *     ends with the tail of its log
   */
  String awaitLine(String prefix, Duration timeout);

  /** Makes every line printed so far invisible to {@link #awaitLine}. */
  void skipLines();

  /** Sends a line to its standard input. */
  void send(String line) throws IOException;

  /** {@code kill -9}, then waits for it to be gone. */
  void kill();

  /** {@code SIGSTOP}. */
  void pause();

  /** {@code SIGCONT}. */
  void resume();
}
