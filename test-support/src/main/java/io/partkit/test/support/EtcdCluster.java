package io.partkit.test.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Real etcd processes on loopback for tests: 1 or 3 members on free ports, data under
 * {@code target/etcd/}, started in parallel, healthy when every member answers {@code /health}.
 *
 * <p>Needs the {@code etcd} binary (Debian: {@code apt-get install etcd-server}). When it is
 * missing, {@link #start} fails with {@code CI=true} and otherwise skips the test (a JUnit
 * assumption) with the install hint. Close it in {@code finally} or {@code @AfterAll}: every
 * process is killed and its data removed, also after a failure.
 */
public final class EtcdCluster implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final List<Node> nodes;
  private final Path dataRoot;
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(1)).build();

  private record Node(String name, int clientPort, int peerPort, List<String> command,
      Process process) {
    String clientUrl() {
      return "http://127.0.0.1:" + clientPort;
    }
  }

  private EtcdCluster(List<Node> nodes, Path dataRoot) {
    this.nodes = nodes;
    this.dataRoot = dataRoot;
  }

  /**
   * Starts {@code members} etcd processes and waits until all are healthy.
   *
   * @param members 1 or 3 (or any odd count)
   * @throws IllegalArgumentException if {@code members} is not positive and odd
   */
  public static EtcdCluster start(int members) {
    if (members < 1 || members % 2 == 0) {
      throw new IllegalArgumentException("members must be a positive odd number: " + members);
    }
    String binary = findEtcd();
    Path root = Path.of("target", "etcd", "cluster-" + ProcessHandle.current().pid() + "-"
        + System.nanoTime()).toAbsolutePath();
    List<int[]> ports = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      ports.add(new int[] {freePort(), freePort()});
    }
    StringBuilder initial = new StringBuilder();
    for (int i = 0; i < members; i++) {
      initial.append(i == 0 ? "" : ",").append("n").append(i).append("=http://127.0.0.1:")
          .append(ports.get(i)[1]);
    }
    List<Node> nodes = new ArrayList<>();
    EtcdCluster cluster = new EtcdCluster(nodes, root);
    try {
      for (int i = 0; i < members; i++) {
        String name = "n" + i;
        int client = ports.get(i)[0];
        int peer = ports.get(i)[1];
        Path data = root.resolve(name);
        Files.createDirectories(data);
        List<String> command = List.of(binary, "--name", name,
            "--data-dir", data.toString(),
            "--listen-client-urls", "http://127.0.0.1:" + client,
            "--advertise-client-urls", "http://127.0.0.1:" + client,
            "--listen-peer-urls", "http://127.0.0.1:" + peer,
            "--initial-advertise-peer-urls", "http://127.0.0.1:" + peer,
            "--initial-cluster", initial.toString(),
            "--initial-cluster-state", "new",
            "--initial-cluster-token", root.getFileName().toString(),
            // short elections keep leader-loss tests quick; loopback latency is microseconds
            "--heartbeat-interval", "50", "--election-timeout", "500");
        nodes.add(new Node(name, client, peer, command, launch(command, root, name)));
      }
      cluster.awaitHealthy(nodes);
      return cluster;
    } catch (IOException e) {
      cluster.close();
      throw new UncheckedIOException("cannot start etcd: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  private static Process launch(List<String> command, Path root, String name) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve(name + ".log").toFile()));
    return pb.start();
  }

  /** What a test says when etcd is missing. */
  static final String MISSING = "etcd not found: apt-get install etcd-server";

  /**
   * Whether the {@code etcd} binary is on the {@code PATH} (or in /usr/bin, /usr/local/bin).
   * The system property {@code partkit.etcd.binary} names the binary instead (a test of the
   * skip path points it at a file that does not exist).
   */
  static boolean installed() {
    return locate() != null;
  }

  private static String locate() {
    String override = System.getProperty("partkit.etcd.binary");
    if (override != null) {
      return new File(override).canExecute() ? override : null;
    }
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : (path + ":/usr/bin:/usr/local/bin").split(File.pathSeparator)) {
      File f = new File(dir, "etcd");
      if (f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    return null;
  }

  private static String findEtcd() {
    String found = locate();
    if (found != null) {
      return found;
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new IllegalStateException(MISSING + " (CI=true: a missing etcd fails the build)");
    }
    Assumptions.abort(MISSING);
    throw new AssertionError("unreachable");
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitHealthy(List<Node> members) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    for (Node n : members) {
      while (!healthy(n)) {
        if (!n.process().isAlive()) {
          throw new IllegalStateException("etcd " + n.name() + " exited with "
              + n.process().exitValue() + "; see " + dataRoot.resolve(n.name() + ".log"));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("etcd " + n.name() + " not healthy within "
              + START_TIMEOUT + "; see " + dataRoot.resolve(n.name() + ".log"));
        }
        pause();
      }
    }
  }

  private boolean healthy(Node n) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(n.clientUrl()
          + "/health")).timeout(Duration.ofSeconds(1)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && r.body().contains("\"true\"");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for etcd", e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20); // polling interval
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for etcd", e);
    }
  }

  /** Client URLs of the members still running, e.g. {@code http://127.0.0.1:41234}. */
  public List<String> endpoints() {
    return nodes.stream().filter(n -> n.process().isAlive()).map(Node::clientUrl).toList();
  }

  /** Client URLs of all members, running or not (what a client is configured with). */
  public List<String> allEndpoints() {
    return nodes.stream().map(Node::clientUrl).toList();
  }

  /**
   * The client URL of the current raft leader, from etcd's maintenance status (the gRPC gateway's
   * {@code POST /v3/maintenance/status}), polled until a leader is known.
   */
  public String leaderEndpoint() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (Node n : nodes) {
        if (!n.process().isAlive()) {
          continue;
        }
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(n.clientUrl()
              + "/v3/maintenance/status")).timeout(Duration.ofSeconds(1))
              .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
              HttpResponse.BodyHandlers.ofString());
          JsonNode status = JSON.readTree(r.body());
          String self = status.path("header").path("member_id").asText();
          String leader = status.path("leader").asText();
          if (!leader.isEmpty() && !leader.equals("0") && leader.equals(self)) {
            return n.clientUrl();
          }
        } catch (IOException e) {
          // this member is not answering; ask the others
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted asking etcd for its leader", e);
        }
      }
      pause();
    }
    throw new IllegalStateException("no etcd leader within " + START_TIMEOUT);
  }

  /**
   * Kills the raft leader with SIGKILL and waits for it to exit.
   *
   * @return the killed member's client URL
   */
  public String killLeader() {
    String url = leaderEndpoint();
    for (Node n : nodes) {
      if (n.clientUrl().equals(url)) {
        n.process().destroyForcibly();
        try {
          n.process().waitFor();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return url;
  }

  /**
   * Kills the member serving {@code clientUrl} with SIGKILL and starts it again on the same ports
   * and data directory. etcd keeps its leases across the
   * restart (a new raft leader extends them by their TTL), so a client sees its streams break
   * while its leases and keys survive. Returns when the restarted member is healthy.
   *
   * @throws IllegalArgumentException if no member serves {@code clientUrl}
   */
  public void restart(String clientUrl) {
    int i = indexOf(clientUrl);
    Node n = nodes.get(i);
    n.process().destroyForcibly();
    try {
      n.process().waitFor();
      nodes.set(i, new Node(n.name(), n.clientPort(), n.peerPort(), n.command(),
          launch(n.command(), dataRoot, n.name())));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restart etcd " + n.name() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted restarting etcd " + n.name(), e);
    }
    awaitHealthy(List.of(nodes.get(i)));
  }

  /**
   * Freezes the member serving {@code clientUrl} with SIGSTOP: its connections stay open but it
   * answers nothing, as a member stalled by a long GC pause, a full disk or a hung VM would.
   *
   * @throws IllegalArgumentException if no member serves {@code clientUrl}
   */
  public void pause(String clientUrl) {
    signal(clientUrl, "STOP");
  }

  /**
   * Lets a member frozen by {@link #pause} run again (SIGCONT).
   *
   * @throws IllegalArgumentException if no member serves {@code clientUrl}
   */
  public void resume(String clientUrl) {
    signal(clientUrl, "CONT");
  }

  private void signal(String clientUrl, String signal) {
    Node n = nodes.get(indexOf(clientUrl));
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(n.process().pid()))
          .redirectErrorStream(true).start();
      String output = new String(kill.getInputStream().readAllBytes(),
          java.nio.charset.StandardCharsets.UTF_8);
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " of etcd " + n.name() + " failed: "
            + output.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot signal etcd " + n.name() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted signalling etcd " + n.name(), e);
    }
  }

  private int indexOf(String clientUrl) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).clientUrl().equals(clientUrl)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no etcd member serves " + clientUrl + "; members: "
        + allEndpoints());
  }

  /** Kills every member and deletes the data directories. Idempotent. */
  @Override
  public void close() {
    for (Node n : nodes) {
      n.process().destroyForcibly();
    }
    for (Node n : nodes) {
      try {
        n.process().waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (Files.exists(dataRoot)) {
      try (Stream<Path> files = Files.walk(dataRoot)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // best effort: target/ is cleaned by the build anyway
      }
    }
  }
}
