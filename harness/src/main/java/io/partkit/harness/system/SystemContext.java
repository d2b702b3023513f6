package io.partkit.harness.system;

import io.partkit.harness.runtime.NodeRuntime;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What a system gets to start: where its nodes run, where it keeps data and logs, and the run's
 * options.
 *
 * @param runtime where the nodes run
 * @param dir the run's directory: node logs go directly in it ({@code <node>.log}), data below it
 * @param nodes how many data nodes to run
 * @param seed the run's seed (for anything the system chooses at random)
 * @param options the system's options (e.g. {@code metadata=etcd}, {@code fault=...}), checked
 *     by its {@link SystemProvider#options()} for this many nodes, with defaults applied
 */
public record SystemContext(NodeRuntime runtime, Path dir, int nodes, long seed,
    OptionValues options) {

  public SystemContext {
    Objects.requireNonNull(runtime, "runtime");
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(options, "options");
    if (nodes < 1) {
      throw new IllegalArgumentException("nodes must be at least 1: " + nodes);
    }
  }

  /** Where a node's log goes. */
  public Path log(String node) {
    return dir.resolve(node + ".log");
  }
}
