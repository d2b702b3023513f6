package io.partkit.cli.ownruntime;

import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.NodeRuntime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** Another runtime's nodes, each start recorded; it cuts nothing, as the runtime it wraps. */
final class RecordingRuntime implements NodeRuntime {

  private final NodeRuntime inner;
  private final Path starts;

  RecordingRuntime(NodeRuntime inner, Path starts) {
    this.inner = inner;
    this.starts = starts;
  }

  @Override
  public String name() {
    return "recording";
  }

  @Override
  public void open(List<String> nodes) {
    inner.open(nodes);
  }

  @Override
  public String host(String node) {
    return inner.host(node);
  }

  @Override
  public int port(String node, String service, int defaultPort) {
    return inner.port(node, service, defaultPort);
  }

  @Override
  public synchronized NodeProcess start(String node, List<String> command, Path log)
      throws IOException {
    Files.writeString(starts, "start " + node + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return inner.start(node, command, log);
  }

  @Override
  public void close() {
    inner.close();
  }
}
