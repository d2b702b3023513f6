package io.partkit.harness.runtime;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.startupcheck.IsRunningStartupCheckStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * Nodes as containers, through Testcontainers, where a Docker engine runs. Each node runs the same
 * command as on the other runtimes in a small Debian image, with this JVM's Java home, class path
 * and the command's binary bound in read-only, on the host's network (so addresses and ports are
 * those of loopback). Kill is {@code docker kill -s KILL}, pause is {@code docker pause} (the
 * cgroup freezer); partitions are not offered, because host networking shares one network stack.
 *
 * <p>No Docker engine runs on partkit's own machines: {@link #open} fails there with "no Docker
 * engine", and the tests of this runtime skip saying so.
 */
final class ContainerRuntime implements NodeRuntime {

  static final DockerImageName IMAGE = DockerImageName.parse("debian:bookworm-slim");

  private final Path workDir;
  private final Set<String> nodes = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> ports = new ConcurrentHashMap<>();
  private final List<GenericContainer<?>> started = new ArrayList<>();

  ContainerRuntime(Path workDir) {
    this.workDir = workDir;
  }

  /** True when Testcontainers finds a Docker engine (it answers in well under a second if not). */
  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public String name() {
    return "containers";
  }

  @Override
  public void open(List<String> names) {
    if (!dockerAvailable()) {
      throw new SetupException("no Docker engine: --runtime containers needs one (start dockerd, "
          + "or use --runtime processes or netns)");
    }
    Runtimes.register(nodes, names);
  }

  @Override
  public String host(String node) {
    return "127.0.0.1";
  }

  @Override
  public int port(String node, String service, int defaultPort) {
    return ports.computeIfAbsent(node + "/" + service, k -> Runtimes.freeLoopbackPort());
  }

  @Override
  public NodeProcess start(String node, List<String> command, Path log) throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    GenericContainer<?> c = new GenericContainer<>(IMAGE).withNetworkMode("host")
        .withCommand(command.toArray(String[]::new))
        .withStartupCheckStrategy(new IsRunningStartupCheckStrategy())
        .withFileSystemBind(workDir.toAbsolutePath().toString(),
            workDir.toAbsolutePath().toString(), BindMode.READ_WRITE);
    Set<String> readOnly = new LinkedHashSet<>();
    readOnly.add(System.getProperty("java.home"));
    for (String entry : System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path")).split(java.io.File.pathSeparator)) {
      if (!entry.isEmpty()) {
        readOnly.add(Path.of(entry).toAbsolutePath().toString());
      }
    }
    if (!command.isEmpty() && command.get(0).startsWith("/")) {
      readOnly.add(command.get(0)); // a binary such as /usr/bin/etcd
    }
    for (String path : readOnly) {
      c.withFileSystemBind(path, path, BindMode.READ_ONLY);
    }
    ChildLines lines = new ChildLines(node, log);
    c.withLogConsumer((OutputFrame frame) -> lines.accept(frame.getUtf8StringWithoutLineEnding()));
    c.start();
    synchronized (started) {
      started.add(c);
    }
    return new ContainerProcess(node, c, lines);
  }

  @Override
  public boolean supportsPartitions() {
    return false;
  }

  @Override
  public void partition(Map<String, Set<String>> grudge) {
    throw new UnsupportedOperationException("the containers runtime uses host networking and "
        + "cannot partition: use --runtime netns");
  }

  @Override
  public void heal() {
    // nothing is ever cut
  }

  @Override
  public void close() {
    synchronized (started) {
      for (GenericContainer<?> c : started) {
        try {
          c.stop();
        } catch (RuntimeException e) {
          // already gone
        }
      }
      started.clear();
    }
  }

  /** A node's container seen as a process. */
  private static final class ContainerProcess implements NodeProcess {
    private final String node;
    private final GenericContainer<?> container;
    private final ChildLines lines;

    ContainerProcess(String node, GenericContainer<?> container, ChildLines lines) {
      this.node = node;
      this.container = container;
      this.lines = lines;
    }

    private DockerClient docker() {
      return container.getDockerClient();
    }

    @Override
    public String node() {
      return node;
    }

    @Override
    public long pid() {
      Long pid = container.getContainerInfo().getState().getPidLong();
      return pid == null ? -1 : pid;
    }

    @Override
    public boolean isAlive() {
      return container.isRunning();
    }

    @Override
    public String awaitLine(String prefix, Duration timeout) {
      return lines.await(prefix, timeout, this::isAlive);
    }

    @Override
    public void skipLines() {
      lines.skip();
    }

    @Override
    public void send(String line) {
      throw new UnsupportedOperationException("containers take no standard input");
    }

    @Override
    public void kill() {
      docker().killContainerCmd(container.getContainerId()).withSignal("KILL").exec();
    }

    @Override
    public void pause() {
      docker().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void resume() {
      docker().unpauseContainerCmd(container.getContainerId()).exec();
    }
  }
}
