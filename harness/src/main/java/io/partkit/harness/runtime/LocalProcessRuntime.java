package io.partkit.harness.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Nodes as plain processes on loopback. Kill, pause, restart and membership are real; a network
 * partition is not possible (every node shares 127.0.0.1), so it does not offer {@link
 * RuntimeCapability.Partitions}.
 */
final class LocalProcessRuntime implements NodeRuntime {

  private final Map<String, Integer> ports = new ConcurrentHashMap<>();
  private final Set<String> nodes = ConcurrentHashMap.newKeySet();
  private final List<ChildProcess> started = new ArrayList<>();

  @Override
  public String name() {
    return "processes";
  }

  @Override
  public void open(List<String> names) {
    Runtimes.register(nodes, names);
  }

  @Override
  public String host(String node) {
    requireNode(node);
    return "127.0.0.1";
  }

  @Override
  public int port(String node, String service, int defaultPort) {
    requireNode(node);
    return ports.computeIfAbsent(node + "/" + service, k -> Runtimes.freeLoopbackPort());
  }

  private void requireNode(String node) {
    if (!nodes.contains(node)) {
      throw new IllegalArgumentException("unknown node " + node + ": open() was given " + nodes);
    }
  }

  @Override
  public NodeProcess start(String node, List<String> command, Path log) throws IOException {
    requireNode(node);
    ChildProcess child = ChildProcess.start(node, command, log);
    synchronized (started) {
      started.add(child);
    }
    return child;
  }

  @Override
  public void close() {
    List<ChildProcess> all;
    synchronized (started) {
      all = new ArrayList<>(started);
      started.clear();
    }
    all.parallelStream().forEach(ChildProcess::destroy);
  }
}
