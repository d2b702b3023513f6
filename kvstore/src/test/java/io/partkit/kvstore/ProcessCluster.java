package io.partkit.kvstore;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.node.KvNodeMain;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Nodes and coordinators as separate JVMs on loopback, so that {@code kill -9} is real: a killed
 * node loses its memory and keeps only its data directory. Processes read their standard input
 * to the end and exit with the test JVM.
 */
final class ProcessCluster implements AutoCloseable {

  /** One child JVM and the lines it printed. */
  static final class Child {
    final Process process;
    final String name;
    final Path errors;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    Child(Process process, String name, Path errors) {
      this.process = process;
      this.name = name;
      this.errors = errors;
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
            process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.add(line);
          }
        } catch (IOException e) {
          // the process died
        }
      }, "child-stdout");
      reader.setDaemon(true);
      reader.start();
    }

    /** The next line starting with {@code prefix}, waiting at most {@code seconds}. */
    String await(String prefix, int seconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (true) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null && line.startsWith(prefix)) {
          return line;
        }
        if (line == null && lines.isEmpty()
            && (System.nanoTime() > deadline || !process.isAlive())) {
          throw new IllegalStateException("no line '" + prefix + "' from " + name + " (alive: "
              + process.isAlive() + "); its standard error ends with:\n" + errorTail());
        }
      }
    }

    private String errorTail() {
      try {
        List<String> all = java.nio.file.Files.readAllLines(errors, StandardCharsets.UTF_8);
        return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
      } catch (IOException e) {
        return "(unreadable: " + e + ")";
      }
    }

    void send(String line) throws IOException {
      OutputStream in = process.getOutputStream();
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }

    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private final Path dir;
  private final Path storeFile;
  private final int partitions;
  private final Map<NodeId, Child> nodes = new ConcurrentHashMap<>();
  private final Map<NodeId, String> addresses = new ConcurrentHashMap<>();
  private final List<Child> children = new ArrayList<>();

  ProcessCluster(Path dir, int partitions) {
    this.dir = dir;
    this.storeFile = dir.resolve("coordinator.json");
    this.partitions = partitions;
  }

  private static String classpath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  private Child spawn(String logName, String mainClass, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", classpath(),
        mainClass));
    cmd.addAll(List.of(args));
    Path errors = dir.resolve(logName + ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd)
        .redirectError(ProcessBuilder.Redirect.appendTo(errors.toFile()));
    Child child = new Child(pb.start(), logName, errors);
    synchronized (children) {
      children.add(child);
    }
    return child;
  }

  /** Starts nodes in parallel (each on a free port, or its old one when restarted). */
  void startNodes(String... ids) throws Exception {
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (String id : ids) {
      started.add(CompletableFuture.runAsync(() -> {
        try {
          startNode(id);
        } catch (Exception e) {
          throw new IllegalStateException("node " + id + " did not start", e);
        }
      }));
    }
    CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
  }

  private void startNode(String id) throws Exception {
    NodeId node = NodeId.of(id);
    String old = addresses.get(node);
    String port = old == null ? "0" : old.substring(old.lastIndexOf(':') + 1);
    Child c = spawn(id, KvNodeMain.class.getName(), "--id", id, "--data",
        dir.resolve(id).toString(), "--port", port);
    String line = c.await("KVNODE LISTENING ", 60);
    addresses.put(node, line.substring("KVNODE LISTENING ".length()).trim());
    nodes.put(node, c);
  }

  /** Kills a node with SIGKILL and restarts it on the same port and data directory. */
  void killNode(String id) throws InterruptedException {
    nodes.remove(NodeId.of(id)).kill();
  }

  /** Stops a node with SIGSTOP: it keeps its sockets and its state, and answers nothing. */
  void pauseNode(String id) throws Exception {
    signal(id, "-STOP");
  }

  /** Lets a paused node run again (SIGCONT). */
  void resumeNode(String id) throws Exception {
    signal(id, "-CONT");
  }

  private void signal(String id, String signal) throws Exception {
    long pid = nodes.get(NodeId.of(id)).process.pid();
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
    if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill " + signal + " " + pid + " failed");
    }
  }

  void restartNode(String id) throws Exception {
    startNode(id);
  }

  String address(NodeId id) {
    return addresses.get(id);
  }

  /** A coordinator process over the cluster's store file, for the given members. */
  Child coordinator(List<String> members, String... extra) throws IOException {
    String list = members.stream().map(m -> m + "=" + addresses.get(NodeId.of(m)))
        .collect(Collectors.joining(","));
    List<String> args = new ArrayList<>(List.of("--store", storeFile.toString(), "--partitions",
        Integer.toString(partitions), "--members", list));
    args.addAll(List.of(extra));
    return spawn("coordinator", CoordinatorProcessMain.class.getName(),
        args.toArray(String[]::new));
  }

  /** The committed table, read from the store file (as a client of the embedded store would). */
  PartitionAssignment table() {
    try (MetadataStore store = MetadataStores.embedded(storeFile)) {
      return store.read().table().orElseThrow(() -> new IllegalStateException("no table yet"));
    }
  }

  KvClient client() {
    return KvClient.builder().tables(this::table).addresses(addresses::get)
        .retryBudget(java.time.Duration.ofSeconds(60)).build();
  }

  @Override
  public void close() {
    synchronized (children) {
      for (Child c : children) {
        c.process.destroyForcibly();
      }
      for (Child c : children) {
        try {
          c.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

}
