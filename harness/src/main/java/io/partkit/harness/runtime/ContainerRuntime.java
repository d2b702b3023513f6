package io.partkit.harness.runtime;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Network;
import com.github.dockerjava.api.model.StreamType;
import com.github.dockerjava.api.model.Volume;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Nodes as containers on a Docker engine, reached through Testcontainers' Docker client ({@link
 * DockerEngine}). Works where the engine gives containers but the user has no root: the usual CI
 * runner.
 *
 * <p>Layout of one run, named {@code partkit-P-R} (harness pid {@code P}, the {@code R}-th
 * containers runtime of this JVM):
 *
 * <ul>
 *   <li>a bridge network of its own with a free {@code 10.78.K.0/24} ({@link
 *       DockerEngine#freeSubnet}); the engine gives the host {@code .1} on it, which is how the
 *       harness's clients and coordinators reach every node;
 *   <li>the i-th node (from 0) gets {@code .(i+2)}, held by a network container of its own
 *       ({@code partkit-P-R-<node>}, which only sleeps), so every node uses its service's usual
 *       port; the node's command runs in another container that joins that network namespace, as
 *       the containers of a Kubernetes pod do. A killed node is a stopped container in a network
 *       namespace that lives on: its address still answers, with a refused connection, as a
 *       crashed process's host does (and as on the other runtimes); a restarted node is a new
 *       container in the same namespace;
 *   <li>a node's container runs the node's usual command with the image's {@code java} (never the
 *       host JDK, whose Debian layout links into {@code /etc}), the harness's class path and the
 *       run directory bound in at the same paths, and a binary such as {@code /usr/bin/etcd}
 *       bound in read-only.
 * </ul>
 *
 * <p>Faults: kill is {@code docker kill -s KILL}, pause is {@code docker pause} (the cgroup
 * freezer), both of the node's container. A partition is the same nftables table as in the netns
 * runtime ({@link NftCut}), installed with {@code docker exec nft} in the network container, which
 * has {@code NET_ADMIN} (only over its own namespace: nothing on the host changes, no root
 * needed) and is never paused, so cuts change also while a node is frozen, and stay across its
 * restarts. A node started during a cut gets its rules before its command starts.
 *
 * <p>Standard input: a named pipe in the run directory, which the entry script opens read-write
 * as the node's standard input (so it never sees an end of file) and the harness opens read-write
 * too, so {@link NodeProcess#send} works, also while the node is paused.
 *
 * <p>Clean-up, replacing Testcontainers' Ryuk: every container and the network carry the labels
 * of {@link DockerEngine#labels}; {@link #close} (also a shutdown hook) removes them, and {@link
 * #open} removes whatever a dead run left ({@link DockerEngine#removeStale}).
 */
final class ContainerRuntime extends OwnAddressRuntime {

  /** The image built by {@code tools/build-node-image}; {@code --runtime containers:IMAGE}. */
  static final String DEFAULT_IMAGE = "partkit/node:bookworm-2";

  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final long PID = ProcessHandle.current().pid();
  private static final Duration EXEC_TIMEOUT = Duration.ofSeconds(60);

  /**
   * The entry script: the command on the named pipe as standard input, as the harness's own user
   * when that is not root.
   */
  private static final String ENTRY = String.join("\n",
      "if [ -n \"$PARTKIT_USER\" ]; then",
      "  exec setpriv --reuid=\"${PARTKIT_USER%:*}\" --regid=\"${PARTKIT_USER#*:}\" "
          + "--clear-groups -- \"$@\" <> \"$PARTKIT_STDIN\"",
      "fi",
      "exec \"$@\" <> \"$PARTKIT_STDIN\"");

  private final Path workDir;
  private final String image;
  private final String engineHost;
  private final String run = "partkit-" + PID + "-" + RUNS.incrementAndGet();
  private final Path files;
  private final RuntimeLifecycle<ContainerProcess> lifecycle =
      new RuntimeLifecycle<>("containers runtime", this::close);

  private DockerClient docker;
  private final Map<String, ContainerProcess> current = new HashMap<>();
  private final Map<String, Integer> starts = new HashMap<>();
  /** node -> the nft script in force in its network namespace. */
  private final Map<String, String> installed = new HashMap<>();
  /** node -> the id of the container that holds its address and network namespace. */
  private final Map<String, String> sandboxes = new HashMap<>();
  private boolean networkCreated;
  private volatile String lost;

  ContainerRuntime(Path workDir, String image) {
    this(workDir, image, DockerEngine.host());
  }

  /** On the engine at {@code engineHost} (a {@code DOCKER_HOST} URI). */
  ContainerRuntime(Path workDir, String image, String engineHost) {
    this.workDir = workDir.toAbsolutePath();
    this.image = image;
    this.engineHost = engineHost;
    this.files = this.workDir.resolve("containers");
  }

  @Override
  public String name() {
    return "containers";
  }

  @Override
  public synchronized void open(List<String> nodes) {
    lifecycle.checkNotOpened();
    Set<String> seen = new LinkedHashSet<>();
    Runtimes.register(seen, nodes);
    if (nodes.size() > 252) {
      throw new IllegalArgumentException("a /24 holds at most 252 nodes: " + nodes.size());
    }
    docker = DockerEngine.client(engineHost);
    DockerEngine.requireImage(docker, image, engineHost);
    lifecycle.markOpened();
    try {
      List<String> removed = DockerEngine.removeStale(docker);
      if (!removed.isEmpty()) {
        System.err.println("containers runtime: removed what dead runs left: " + removed);
      }
      String subnet = createNetwork();
      Map<String, String> made = new LinkedHashMap<>();
      int i = 2;
      for (String n : nodes) {
        made.put(n, subnet + "." + i++);
      }
      publishAddresses(made); // node -> 10.78.K.x
      Files.createDirectories(files);
      for (String n : nodes) {
        Files.writeString(rules(n), NftCut.script(n, Map.of(), made));
      }
    } catch (IOException e) {
      close();
      throw new SetupException("cannot write under " + files + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException t) {
        e.addSuppressed(t);
      }
      throw e instanceof SetupException ? e
          : new SetupException("cannot set up containers on " + engineHost + ": "
              + DockerEngine.rootMessage(e), e);
    }
  }

  /** A network of its own, on the first free 10.78.K.0/24; returns {@code 10.78.K}. */
  private String createNetwork() {
    int first = (int) (PID % 254);
    for (int attempt = 0; ; attempt++) {
      int k = DockerEngine.freeSubnet(docker, first);
      String subnet = "10.78." + k;
      try {
        docker.createNetworkCmd().withName(run).withDriver("bridge").withCheckDuplicate(true)
            .withLabels(DockerEngine.labels(run))
            .withIpam(new Network.Ipam().withConfig(new Network.Ipam.Config()
                .withSubnet(subnet + ".0/24").withGateway(subnet + ".1")))
            .exec();
        networkCreated = true;
        return subnet;
      } catch (DockerException e) {
        // another run took the subnet between our look and our create: try the next one
        if (attempt >= 5) {
          throw new SetupException("cannot create the Docker network " + run + " on "
              + subnet + ".0/24: " + DockerEngine.rootMessage(e), e);
        }
        first = k;
      }
    }
  }

  @Override
  public NodeProcess start(String node, List<String> command, Path log) throws IOException {
    int n;
    ContainerProcess previous;
    synchronized (this) {
      lifecycle.checkOpen("start()");
      host(node);
      n = starts.merge(node, 1, Integer::sum);
      previous = current.get(node);
    }
    if (previous != null) {
      previous.remove(); // the new container joins the same network namespace
    }
    Files.createDirectories(log.toAbsolutePath().getParent());
    Path stdin = files.resolve(node + "-" + n + ".stdin");
    mkfifo(stdin);
    List<String> cmd = new ArrayList<>(command);
    String hostJava = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    if (!cmd.isEmpty() && cmd.get(0).equals(hostJava)) {
      cmd.set(0, "java"); // the image's JRE, found on its PATH
    }
    List<Bind> binds = new ArrayList<>();
    binds.add(new Bind(workDir.toString(), new Volume(workDir.toString()), AccessMode.rw));
    for (String path : readOnlyPaths(cmd)) {
      binds.add(new Bind(path, new Volume(path), AccessMode.ro));
    }
    List<String> env = new ArrayList<>(List.of("PARTKIT_STDIN=" + stdin));
    String user = nonRootUser();
    if (user != null) {
      env.add("PARTKIT_USER=" + user);
    }
    Map<String, String> labels = new HashMap<>(DockerEngine.labels(run));
    labels.put("io.partkit.node", node);
    String sandbox = sandbox(node, labels);
    synchronized (this) {
      install(node); // the cut in force, if it involves this node, before the node's first packet
    }
    String id = call("creating the container of " + node, () -> docker
        .createContainerCmd(qualified(image)).withName(run + "-" + node + "-" + n)
        .withLabels(labels)
        .withEntrypoint("/bin/sh", "-c", ENTRY, "partkit-node").withCmd(cmd).withEnv(env)
        .withWorkingDir(workDir.toString())
        .withHostConfig(HostConfig.newHostConfig().withNetworkMode("container:" + sandbox)
            .withBinds(binds))
        .exec().getId());
    ContainerProcess p = new ContainerProcess(node, id, new ChildLines(node, log), stdin);
    synchronized (this) {
      if (!lifecycle.adopt(p)) {
        p.remove();
        throw RuntimeLifecycle.closedWhileStarting(node);
      }
      current.put(node, p);
    }
    call("starting the container of " + node, () -> {
      docker.startContainerCmd(id).exec();
      return null;
    });
    p.follow();
    return p;
  }

  /**
   * {@code image} with its registry spelled out, as the engine reads it anyway ({@code
   * partkit/node} is {@code docker.io/partkit/node}). Testcontainers' client looks up registry
   * credentials for every container it creates, and for a name without a registry it asks its
   * {@code DockerClientFactory} for the engine's default registry, which configures itself from
   * the user's environment and writes {@code ~/.testcontainers.properties}; a spelled-out
   * registry skips that.
   */
  static String qualified(String image) {
    int slash = image.indexOf('/');
    String first = slash < 0 ? "" : image.substring(0, slash);
    boolean hasRegistry = first.contains(".") || first.contains(":") || first.equals("localhost");
    if (hasRegistry) {
      return image;
    }
    return "docker.io/" + (slash < 0 ? "library/" : "") + image;
  }

  /** The class path, and an absolute binary that is not the JVM (such as /usr/bin/etcd). */
  private static Set<String> readOnlyPaths(List<String> cmd) {
    Set<String> paths = new LinkedHashSet<>();
    for (int i = 0; i < cmd.size() - 1; i++) {
      if (cmd.get(i).equals("-cp") || cmd.get(i).equals("-classpath")) {
        for (String entry : cmd.get(i + 1).split(File.pathSeparator)) {
          if (!entry.isEmpty() && Files.exists(Path.of(entry))) {
            paths.add(Path.of(entry).toAbsolutePath().toString());
          }
        }
      }
    }
    if (!cmd.isEmpty() && cmd.get(0).startsWith("/")) {
      paths.add(cmd.get(0));
    }
    return paths;
  }

  /**
   * The container that holds {@code node}'s address and network namespace, made and started on
   * the node's first start: it only sleeps, is never paused or killed, and outlives the node's
   * own containers, so a killed node's address still answers (a refused connection, as from a
   * crashed process on a live host) and its partition rules stay in force across restarts.
   */
  private String sandbox(String node, Map<String, String> labels) {
    synchronized (sandboxes) {
      String existing = sandboxes.get(node);
      if (existing != null) {
        return existing;
      }
      List<String> hosts = new ArrayList<>();
      addresses().forEach((name, address) -> hosts.add(name + ":" + address));
      Map<String, String> sandboxLabels = new HashMap<>(labels);
      sandboxLabels.put("io.partkit.role", "network");
      String id = call("creating the network container of " + node, () -> docker
          .createContainerCmd(qualified(image)).withName(run + "-" + node)
          .withLabels(sandboxLabels).withHostName(node).withIpv4Address(host(node))
          .withEntrypoint("sleep", "infinity")
          .withHostConfig(HostConfig.newHostConfig().withNetworkMode(run)
              .withCapAdd(Capability.NET_ADMIN).withBinds(new Bind(files.toString(),
                  new Volume(files.toString()), AccessMode.ro))
              .withExtraHosts(hosts.toArray(String[]::new)))
          .exec().getId());
      sandboxes.put(node, id);
      call("starting the network container of " + node, () -> {
        docker.startContainerCmd(id).exec();
        return null;
      });
      return id;
    }
  }

  private Path rules(String node) {
    return files.resolve(node + ".nft");
  }

  private static void mkfifo(Path path) throws IOException {
    try {
      Process p = new ProcessBuilder("mkfifo", "-m", "600", path.toString())
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IOException("mkfifo " + path + " failed: " + out.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted making " + path, e);
    }
  }

  /** {@code uid:gid} of this process when it is not root; null for root. */
  private static String nonRootUser() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      Object gid = Files.getAttribute(Path.of("/proc/self"), "unix:gid");
      return Integer.valueOf(0).equals(uid) ? null : uid + ":" + gid;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Writes every node's rules (a container started from now on applies them itself), then
   * installs them in each running container whose rules change.
   */
  @Override
  protected void cut(Map<String, Set<String>> next) throws IOException {
    lifecycle.checkOpen("partition() or heal()");
    for (String node : addresses().keySet()) {
      Files.writeString(rules(node), NftCut.script(node, next, addresses()));
    }
    List<String> failures = new ArrayList<>();
    for (String node : addresses().keySet()) {
      try {
        install(node);
      } catch (IOException e) {
        failures.add(e.getMessage());
      }
    }
    if (!failures.isEmpty()) {
      throw new IOException(String.join("; ", failures));
    }
  }

  /** Installs {@code node}'s rules in its network namespace unless already in force there. */
  private void install(String node) throws IOException {
    String sandbox;
    synchronized (sandboxes) {
      sandbox = sandboxes.get(node);
    }
    String script = Files.readString(rules(node));
    if (sandbox == null || script.equals(installed.getOrDefault(node, ""))
        || !script.contains("drop") && !installed.containsKey(node)) {
      return; // never started, already in force, or nothing to remove
    }
    exec(node, sandbox, List.of("nft", "-f", rules(node).toString()));
    installed.put(node, script);
  }

  /** Runs {@code command} as root in {@code node}'s container {@code id}; fails with its output. */
  private void exec(String node, String id, List<String> command) throws IOException {
    String line = "docker exec " + node + " " + String.join(" ", command);
    StringBuilder out = new StringBuilder();
    try {
      String exec = call(line, () -> docker.execCreateCmd(id).withUser("0")
          .withAttachStdout(true).withAttachStderr(true)
          .withCmd(command.toArray(String[]::new)).exec().getId());
      boolean done = docker.execStartCmd(exec).exec(new ResultCallback.Adapter<Frame>() {
        @Override
        public void onNext(Frame frame) {
          out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
        }
      }).awaitCompletion(EXEC_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (!done) {
        throw new IOException("`" + line + "` did not finish in " + EXEC_TIMEOUT);
      }
      Long exit = call(line, () -> docker.inspectExecCmd(exec).exec().getExitCodeLong());
      if (exit == null || exit != 0) {
        throw new IOException("`" + line + "` failed (exit " + exit + "): "
            + out.toString().strip() + (exit != null && exit == 127
                ? " (is nft in the image " + image + "?)" : ""));
      }
    } catch (SetupException e) {
      throw new IOException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running `" + line + "`", e);
    }
  }

  /**
   * Why the run lost control of its nodes (the engine stopped answering), if it did: faults may
   * then be neither injected nor healed, so no verdict can be trusted.
   */
  @Override
  public Optional<String> lostControl() {
    return Optional.ofNullable(lost);
  }

  /** Runs one engine call; a failure to reach the engine at all is remembered as lost control. */
  private <T> T call(String what, Supplier<T> body) {
    try {
      return body.get();
    } catch (RuntimeException e) {
      if (DockerEngine.engineGone(e)) {
        lost = "the Docker engine at " + engineHost + " stopped answering while " + what
            + ": " + DockerEngine.rootMessage(e);
        throw new SetupException(lost, e);
      }
      throw new SetupException(what + " failed: " + DockerEngine.rootMessage(e), e);
    }
  }

  @Override
  public void close() {
    Optional<List<ContainerProcess>> stopping = lifecycle.close();
    if (stopping.isEmpty()) {
      return;
    }
    List<ContainerProcess> all = stopping.get();
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    all.parallelStream().forEach(p -> {
      try {
        p.remove();
      } catch (RuntimeException e) {
        failures.add("container " + p.id + ": " + DockerEngine.rootMessage(e));
      }
    });
    List<String> boxes;
    synchronized (sandboxes) {
      boxes = new ArrayList<>(sandboxes.values());
    }
    boxes.parallelStream().forEach(id -> {
      try {
        docker.removeContainerCmd(id).withForce(true).exec();
      } catch (NotFoundException gone) {
        // removed already
      } catch (RuntimeException e) {
        failures.add("container " + id + ": " + DockerEngine.rootMessage(e));
      }
    });
    if (networkCreated) {
      try {
        docker.removeNetworkCmd(run).exec();
      } catch (NotFoundException gone) {
        // removed already
      } catch (RuntimeException e) {
        failures.add("network " + run + ": " + DockerEngine.rootMessage(e));
      }
    }
    try (var fifos = Files.list(files)) {
      for (Path f : fifos.filter(f -> f.toString().endsWith(".stdin")).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // no files were made, or the run directory is gone
    }
    if (!failures.isEmpty() && lost != null) {
      // the run's verdict already says it lost the engine; the next run removes what is left
      System.err.println("containers runtime: tear-down incomplete (" + lost + "): " + failures);
    } else if (!failures.isEmpty()) {
      throw new SetupException("containers tear-down left things behind; the next run removes "
          + "them, or by hand: docker rm -f $(docker ps -aq -f label=" + DockerEngine.RUN_LABEL
          + "=" + run + "); docker network rm " + run + "\n" + String.join("\n", failures));
    }
  }

  /** A node's container seen as a process. */
  private final class ContainerProcess implements NodeProcess {
    private final String node;
    private final String id;
    private final ChildLines lines;
    private final RandomAccessFile stdin;
    private volatile boolean removed;

    ContainerProcess(String node, String id, ChildLines lines, Path fifo) throws IOException {
      this.node = node;
      this.id = id;
      this.lines = lines;
      // read-write: opening a pipe for writing alone blocks until a reader comes
      this.stdin = new RandomAccessFile(fifo.toFile(), "rw");
    }

    /** Copies its output, line by line, to the node's log until the container stops. */
    void follow() {
      Map<StreamType, ByteArrayOutputStream> partial = new EnumMap<>(StreamType.class);
      docker.logContainerCmd(id).withStdOut(true).withStdErr(true).withFollowStream(true)
          .exec(new ResultCallback.Adapter<Frame>() {
            @Override
            public void onNext(Frame frame) {
              ByteArrayOutputStream buf = partial.computeIfAbsent(frame.getStreamType(),
                  t -> new ByteArrayOutputStream());
              for (byte b : frame.getPayload()) {
                if (b == '\n') {
                  lines.accept(buf.toString(StandardCharsets.UTF_8));
                  buf.reset();
                } else {
                  buf.write(b);
                }
              }
            }

            @Override
            public void onError(Throwable t) {
              finish();
            }

            @Override
            public void onComplete() {
              finish();
            }

            private void finish() {
              partial.values().stream().filter(b -> b.size() > 0)
                  .forEach(b -> lines.accept(b.toString(StandardCharsets.UTF_8)));
              partial.clear();
              lines.end();
            }
          });
    }

    InspectContainerResponse.ContainerState state() {
      try {
        return call("inspecting " + node, () -> docker.inspectContainerCmd(id).exec().getState());
      } catch (SetupException e) {
        if (e.getCause() instanceof NotFoundException) {
          return null;
        }
        throw e;
      }
    }

    @Override
    public String node() {
      return node;
    }

    @Override
    public long pid() {
      InspectContainerResponse.ContainerState s = state();
      Long pid = s == null ? null : s.getPidLong();
      return pid == null || pid == 0 ? -1 : pid;
    }

    @Override
    public boolean isAlive() {
      InspectContainerResponse.ContainerState s = state();
      return s != null && Boolean.TRUE.equals(s.getRunning());
    }

    @Override
    public String awaitLine(String prefix, Duration timeout) {
      // the log stream ends when the container stops: the output's end says it is gone
      return lines.await(prefix, timeout, () -> !removed);
    }

    @Override
    public void skipLines() {
      lines.skip();
    }

    @Override
    public void send(String line) throws IOException {
      if (!isAlive()) {
        throw new IOException(node + " is not running: its container " + id + " stopped");
      }
      synchronized (stdin) {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }

    @Override
    public void kill() {
      try {
        call("killing " + node, () -> docker.killContainerCmd(id).withSignal("KILL").exec());
      } catch (SetupException e) {
        boolean stopped = e.getCause() instanceof ConflictException
            || e.getCause() instanceof NotFoundException;
        if (!stopped || isAlive()) {
          throw e;
        }
        return; // it had stopped already
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (isAlive()) {
        if (System.nanoTime() > deadline) {
          throw new SetupException("docker kill -s KILL of " + node + " (container " + id
              + ") did not stop it in 30 s");
        }
        sleep(20);
      }
    }

    @Override
    public void pause() {
      call("pausing " + node, () -> docker.pauseContainerCmd(id).exec());
    }

    @Override
    public void resume() {
      InspectContainerResponse.ContainerState s = state();
      if (s == null || !Boolean.TRUE.equals(s.getPaused())) {
        return; // not paused (never was, or killed meanwhile): nothing to resume
      }
      call("resuming " + node, () -> docker.unpauseContainerCmd(id).exec());
    }

    /** Removes the container (killing it if it runs) and closes its pipe. Idempotent. */
    void remove() {
      if (removed) {
        return;
      }
      try {
        docker.removeContainerCmd(id).withForce(true).exec();
      } catch (NotFoundException gone) {
        // removed already
      } finally {
        removed = true;
        try {
          stdin.close();
        } catch (IOException e) {
          // nothing was lost: the node is gone
        }
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
