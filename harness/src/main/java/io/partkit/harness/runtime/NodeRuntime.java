package io.partkit.harness.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where a run's nodes live: local processes on loopback, processes in Linux network namespaces,
 * containers, real hosts over SSH, or a runtime of your own ({@link RuntimeProvider}). The same
 * system code runs on each; the runtime decides how a node is reached. What it can do beyond
 * that are the {@link RuntimeCapability} interfaces it implements: a runtime that can cut the
 * network implements {@link RuntimeCapability.Partitions}.
 *
 * <p>Lifecycle: {@link #open} once with every node name the run may start, then any number of
 * {@link #start}s (a node restarted after a kill keeps its host and ports), faults, and finally
 * {@link #close}, which kills every process the runtime started and removes everything it
 * created (namespaces, links, rules, files), also after a failure.
 *
 * <p>Implementations are thread-safe: the nemesis and the system call them from other threads.
 */
public interface NodeRuntime extends AutoCloseable {

  /** The name of its provider on the command line: {@code processes}, {@code netns}, ... */
  String name();

  /**
   * Makes a host ready for each node (for namespaces: creates them, their links and addresses).
   *
   * @param nodes the node names, distinct, each a short name of letters, digits and '-'
   * @throws IllegalArgumentException if a name is malformed or repeated
   * @throws SetupException if the hosts cannot be made (what failed and how to fix it)
   */
  void open(List<String> nodes);

  /** The address {@code node} listens on and everyone else reaches it at (an IP literal). */
  String host(String node);

  /**
   * A port for one of {@code node}'s services, the same for the whole run so that a restarted
   * node takes it back. On loopback every node gets its own free port; on a host of its own a
   * node uses {@code defaultPort}.
   */
  int port(String node, String service, int defaultPort);

  /**
   * Starts {@code command} as {@code node}. Its standard output and error go to {@code log}
   * (append) and its output lines can be awaited with {@link NodeProcess#awaitLine}.
   *
   * @throws IOException if the process cannot be started
   */
  NodeProcess start(String node, List<String> command, Path log) throws IOException;

  /**
   * Deletes {@code dir} (a path under the run directory that {@code node}'s command names, e.g.
   * its data directory) where {@code node} keeps it: here, or on its own host for the SSH runtime.
   */
  default void wipe(String node, Path dir) throws IOException {
    FileTrees.delete(dir);
  }

  /**
   * A readable copy of {@code file} (a path under the run directory that {@code node} writes,
   * e.g. the kv coordinator's store): the file itself where the harness shares the node's file
   * system, a fresh copy fetched from the node's host for the SSH runtime.
   */
  default Path fetch(String node, Path file) throws IOException {
    return file;
  }

  /**
   * Why the runtime lost control of its nodes during the run, if it did (the Docker engine
   * stopped answering): faults may have been neither injected nor healed as recorded, so the run
   * cannot have a verdict of valid. Empty for runtimes that cannot lose control.
   */
  default Optional<String> lostControl() {
    return Optional.empty();
  }

  /** Kills what it started and removes what it created. Idempotent. */
  @Override
  void close();
}
