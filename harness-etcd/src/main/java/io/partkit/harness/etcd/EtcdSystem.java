package io.partkit.harness.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.partkit.harness.runtime.NodeLogs;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.SystemContext;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * etcd (the {@code etcd} binary, 3.4 or later) as the system under test: {@code nodes} members
 * named {@code e1..eN}, each a process on the run's {@link NodeRuntime}, the raft leader the
 * special node for faults aimed at it.
 *
 * <h2>Model</h2>
 * Every {@link Operation} key is one register, Knossos' {@code cas-register} checked per key as
 * in Jepsen's {@code independent}: the etcd key {@code /partkit/register/<key>} holds the value as
 * a decimal string (one string per Long, so comparing bytes is comparing values). A read is a
 * plain {@code get} (jetcd's default is a linearizable read, through the leader's read index), a
 * write a {@code put}, and a cas a transaction {@code If(value == expected) Then(put new)}, with
 * "expected absent" written {@code If(version == 0)} (etcd fails a value compare on a missing key,
 * so it cannot express absence).
 *
 * <h2>Honesty</h2>
 * A write or cas is recorded {@code ok} only when etcd answered that it applied, {@code fail} only
 * when it surely did not (a cas whose compare failed), and {@code info} for every other ending: a
 * client timeout, a lost connection, {@code UNAVAILABLE}, "leader changed", "request timed out".
 * etcd may commit a proposal after its client gave up on it, so any of these can hide a write
 * that takes effect later. This relies on jetcd not re-sending a put or txn on its own (its
 * default {@code autoRetry} is off for both): a re-sent cas could find its own first attempt's
 * value and answer "compare failed" for a cas that did apply. A read that fails or times out is
 * recorded {@code fail}: it changed nothing, which is what Jepsen's etcd test does.
 */
public final class EtcdSystem extends NodeProcessSystem {

  /** Where the registers live in etcd's key space. */
  static final String KEY_PREFIX = "/partkit/register/";

  /** Members start (and rejoin after a restart) slowly on a busy machine: be generous. */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  /** The default client deadline per operation. */
  static final Duration OP_TIMEOUT = Duration.ofSeconds(5);
  /** One HTTP probe (health, status): a paused member must not hold a poll up for long. */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
  private static final long POLL_MILLIS = 100;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How one member is started, the same command on every start (see {@link #restart}). */
  private record Member(String name, String clientUrl, List<String> command, Path log) {}

  // HTTP/1.1: no h2c upgrade attempt on etcd's client port, which also multiplexes gRPC
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(PROBE_TIMEOUT).build();
  private final Map<String, Member> members = new LinkedHashMap<>();
  /** etcd member id (decimal, as the JSON gateway prints it) to member name, learned lazily. */
  private final Map<String, String> namesById = new ConcurrentHashMap<>();
  private volatile NodeRuntime runtime;
  /** Member names are this prefix and a number: "e" as a system, "m" as kv's metadata store. */
  private final String namePrefix;
  /** False when another system opened the runtime and starts etcd beside its own nodes. */
  private final boolean opensRuntime;

  /** etcd as the system under test: members e1..en. */
  EtcdSystem() {
    this("e", true);
  }

  private EtcdSystem(String namePrefix, boolean opensRuntime) {
    super("etcd");
    this.namePrefix = namePrefix;
    this.opensRuntime = opensRuntime;
  }

  /**
   * etcd as another system's metadata store (the kv coordinator's): members m1..mn on a runtime
   * the caller opened with {@link #memberNames}.
   */
  public static EtcdSystem forMetadata() {
    return new EtcdSystem("m", false);
  }

  /** The names the members of an n-member cluster get as kv's metadata store. */
  public static List<String> memberNames(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      names.add("m" + i);
    }
    return names;
  }

  /** The members' client URLs, for clients of the cluster. */
  public List<String> clientUrls() {
    return members.values().stream().map(Member::clientUrl).toList();
  }

  @Override
  public void start(SystemContext ctx) {
    int n = ctx.nodes();
    if (n < 1 || n % 2 == 0) {
      // an even count adds a member without raising how many losses raft survives
      throw new IllegalArgumentException("etcd needs an odd number of members (3 or 5): nodes="
          + n);
    }
    if (runtime != null) {
      throw new IllegalStateException("etcd was already started");
    }
    Optional<String> explicit = ctx.options().optional("etcd");
    String binary = explicit.isPresent() ? explicitEtcd(explicit.get()) : findEtcd();
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      names.add(namePrefix + i);
    }
    NodeRuntime rt = ctx.runtime();
    if (opensRuntime) {
      rt.open(names);
    }
    runtime = rt;

    Map<String, String> peerUrls = new LinkedHashMap<>();
    Map<String, String> clientUrls = new LinkedHashMap<>();
    for (String name : names) {
      String host = rt.host(name);
      clientUrls.put(name, url(host, rt.port(name, "client", 2379)));
      peerUrls.put(name, url(host, rt.port(name, "peer", 2380)));
    }
    StringBuilder initialCluster = new StringBuilder();
    peerUrls.forEach((name, peer) -> initialCluster.append(initialCluster.isEmpty() ? "" : ",")
        .append(name).append('=').append(peer));
    // a fresh token per run: members of an earlier run still listening on a reused port refuse
    // our peers instead of merging with them
    String token = "partkit-" + UUID.randomUUID();

    try {
      for (String name : names) {
        Path data = ctx.dir().resolve("data").resolve(name).toAbsolutePath();
        Files.createDirectories(data.getParent());
        List<String> command = List.of(binary, "--name", name,
            "--data-dir", data.toString(),
            "--listen-client-urls", clientUrls.get(name),
            "--advertise-client-urls", clientUrls.get(name),
            "--listen-peer-urls", peerUrls.get(name),
            "--initial-advertise-peer-urls", peerUrls.get(name),
            "--initial-cluster", initialCluster.toString(),
            // a restart keeps this: etcd ignores the initial-cluster flags once its data dir
            // holds a WAL and rejoins as the member it was
            "--initial-cluster-state", "new",
            "--initial-cluster-token", token,
            // short elections keep leader-loss faults quick; latency between nodes is tiny
            "--heartbeat-interval", "50", "--election-timeout", "500");
        members.put(name, new Member(name, clientUrls.get(name), command, ctx.log(name)));
      }
      // every member is spawned before any is waited for: none is healthy before a majority runs
      for (Member m : members.values()) {
        started(m.name(), rt.start(m.name(), m.command(), m.log()));
      }
      awaitHealthy(names, START_TIMEOUT);
    } catch (IOException e) {
      close();
      throw new SetupException("cannot start etcd: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      close(); // a failed start leaves nothing running
      throw e;
    }
  }

  /** The binary given with the option {@code etcd=PATH} (a build of your own). */
  private static String explicitEtcd(String path) {
    File f = new File(path);
    if (!f.isFile() || !f.canExecute()) {
      throw new SetupException("etcd not found at " + path + " (option etcd): give the path of an"
          + " etcd binary, or apt-get install etcd-server and leave the option out");
    }
    return f.getAbsolutePath();
  }

  /** The etcd binary on PATH (plus the usual install directories). */
  private static String findEtcd() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : (path + File.pathSeparator + "/usr/bin" + File.pathSeparator
        + "/usr/local/bin").split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      File f = new File(dir, "etcd");
      if (f.isFile() && f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    throw new SetupException("etcd not found: apt-get install etcd-server");
  }

  private static String url(String host, int port) {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  @Override
  public List<String> nodes() {
    return List.copyOf(members.keySet());
  }

  /**
   * The leader as the members see it: every reachable member's maintenance status is asked at
   * once, and the leader named at the highest raft term wins (a member cut off from the others
   * may still name the leader of an older term).
   */
  @Override
  public Optional<String> leader() {
    Map<String, CompletableFuture<JsonNode>> answers = new LinkedHashMap<>();
    for (Member m : members.values()) {
      if (running(m.name())) {
        answers.put(m.name(), postJson(m.clientUrl() + "/v3/maintenance/status"));
      }
    }
    String leaderId = null;
    long bestTerm = -1;
    String anyAnswering = null;
    for (Map.Entry<String, CompletableFuture<JsonNode>> a : answers.entrySet()) {
      JsonNode status = a.getValue().join();
      if (status == null) {
        continue;
      }
      anyAnswering = a.getKey();
      String self = status.path("header").path("member_id").asText("");
      if (!self.isEmpty()) {
        namesById.put(self, a.getKey());
      }
      String leader = status.path("leader").asText("0");
      long term = status.path("raftTerm").asLong(0);
      if (!leader.isEmpty() && !leader.equals("0") && term > bestTerm) {
        bestTerm = term;
        leaderId = leader;
      }
    }
    if (leaderId == null) {
      return Optional.empty();
    }
    if (!namesById.containsKey(leaderId)) {
      // the leader did not answer itself (paused, or slow): the member list maps ids to names
      JsonNode list = postJson(members.get(anyAnswering).clientUrl()
          + "/v3/cluster/member/list").join();
      if (list != null) {
        for (JsonNode m : list.path("members")) {
          if (!m.path("ID").asText("").isEmpty() && !m.path("name").asText("").isEmpty()) {
            namesById.put(m.path("ID").asText(), m.path("name").asText());
          }
        }
      }
    }
    return Optional.ofNullable(namesById.get(leaderId));
  }

  /** A POST of {@code {}} to etcd's JSON gateway; completes with null when it did not answer. */
  private CompletableFuture<JsonNode> postJson(String url) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(PROBE_TIMEOUT)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> {
          if (r.statusCode() != 200) {
            return null;
          }
          try {
            return JSON.readTree(r.body());
          } catch (IOException e) {
            return null;
          }
        })
        .exceptionally(e -> null);
  }

  /** {@code GET /health}: true when the member answers that it has a leader and serves. */
  private CompletableFuture<Boolean> healthy(String node) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(members.get(node).clientUrl()
        + "/health")).timeout(PROBE_TIMEOUT).GET().build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> {
          try {
            return r.statusCode() == 200
                && "true".equals(JSON.readTree(r.body()).path("health").asText());
          } catch (IOException e) {
            return false;
          }
        })
        .exceptionally(e -> false);
  }

  /**
   * Polls {@code nodes} until each is healthy.
   *
   * @throws SetupException when one exits (with the tail of its log), was killed and not
   *     restarted, or is still unhealthy at the deadline
   */
  private void awaitHealthy(Collection<String> nodes, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> pending = new LinkedHashSet<>(nodes);
    while (true) {
      for (String node : pending) {
        if (killed(node)) {
          throw new SetupException("etcd " + node + " was killed and not restarted");
        }
        if (!running(node)) {
          throw exited(node);
        }
      }
      Map<String, CompletableFuture<Boolean>> probes = new LinkedHashMap<>();
      pending.forEach(node -> probes.put(node, healthy(node)));
      probes.forEach((node, probe) -> {
        if (probe.join()) {
          pending.remove(node);
        }
      });
      if (pending.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new SetupException("etcd " + String.join(", ", pending) + " not healthy within "
            + timeout + "; see " + members.get(pending.iterator().next()).log());
      }
      pollPause(POLL_MILLIS, "etcd");
    }
  }

  /** The exception for a member that exited by itself, ending with the tail of its log. */
  private SetupException exited(String node) {
    Path log = members.get(node).log();
    // the runtime copies the output to the log on its own thread: let it catch up (bounded)
    // so that the tail holds etcd's last words, usually the reason it stopped
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    long size = -1;
    while (System.nanoTime() < deadline) {
      long now = sizeOf(log);
      if (now == size) {
        break;
      }
      size = now;
      pollPause(200, "etcd");
    }
    return new SetupException("etcd " + node + " exited; its log " + log + " ends with:\n"
        + NodeLogs.tail(log, 30));
  }

  private static long sizeOf(Path file) {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** Starts member {@code node} again (a restart keeps its data dir) and waits until healthy. */
  @Override
  protected void startNode(String node) {
    Member m = members.get(node);
    try {
      started(node, runtime.start(node, m.command(), m.log()));
    } catch (IOException e) {
      throw new SetupException("cannot restart etcd " + node + ": " + e.getMessage(), e);
    }
    awaitHealthy(List.of(node), START_TIMEOUT);
  }

  @Override
  public void awaitRecovered(Duration timeout) {
    awaitHealthy(nodes(), timeout);
  }

  @Override
  public Client openClient() {
    return openClient(OP_TIMEOUT);
  }

  /** A client whose operations each wait at most {@code timeout} for an answer. */
  Client openClient(Duration timeout) {
    if (members.isEmpty()) {
      throw new IllegalStateException("etcd is not started");
    }
    io.etcd.jetcd.Client client = io.etcd.jetcd.Client.builder()
        .endpoints(members.values().stream().map(Member::clientUrl).toArray(String[]::new))
        .connectTimeout(timeout)
        // bounds jetcd's own retries of reads (the only operation it retries, see the class doc)
        .retryMaxDuration(timeout)
        .build();
    return new EtcdClient(client, timeout);
  }

  /** A recording client over jetcd; see the class doc for how outcomes are decided. */
  static final class EtcdClient implements Client {

    private final io.etcd.jetcd.Client client;
    private final KV kv;
    private final Duration timeout;

    EtcdClient(io.etcd.jetcd.Client client, Duration timeout) {
      this.client = client;
      this.kv = client.getKVClient();
      this.timeout = timeout;
    }

    @Override
    public Outcome invoke(Operation op) {
      ByteSequence key = bytes(KEY_PREFIX + op.key());
      return switch (op.f()) {
        case Operation.READ -> read(key);
        case Operation.WRITE -> write(key, op);
        case Operation.CAS -> cas(key, op);
        default -> throw new IllegalArgumentException("unknown operation " + op.f());
      };
    }

    private Outcome read(ByteSequence key) {
      try {
        GetResponse r = await(kv.get(key));
        return Outcome.ok(r.getKvs().isEmpty() ? null : parse(r.getKvs().get(0).getValue()));
      } catch (ExecutionException | TimeoutException | InterruptedException e) {
        // a read has no effect, so one that did not answer is a failure, as in Jepsen's etcd
        // test (recording it info would only widen the checker's search)
        return Outcome.fail(null, describe(e));
      }
    }

    private Outcome write(ByteSequence key, Operation op) {
      try {
        await(kv.put(key, bytes(op.value().toString())));
        return Outcome.ok(op.value());
      } catch (ExecutionException | TimeoutException | InterruptedException e) {
        // the put may have reached the leader and be committed after we stopped waiting
        return Outcome.info(op.value(), describe(e));
      }
    }

    private Outcome cas(ByteSequence key, Operation op) {
      Long expected = op.casExpected();
      Cmp guard = expected == null
          ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0))
          : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(bytes(expected.toString())));
      try {
        TxnResponse r = await(kv.txn().If(guard)
            .Then(Op.put(key, bytes(op.casNew().toString()), PutOption.DEFAULT)).commit());
        // one txn, sent once: "not succeeded" means its Then branch did not run
        return r.isSucceeded() ? Outcome.ok(op.value())
            : Outcome.mismatch(op.value(), "compare failed: the register did not hold " + expected);
      } catch (ExecutionException | TimeoutException | InterruptedException e) {
        return Outcome.info(op.value(), describe(e));
      }
    }

    private <T> T await(CompletableFuture<T> future)
        throws ExecutionException, TimeoutException, InterruptedException {
      try {
        return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw e;
      } finally {
        cancel(future);
      }
    }

    private static void cancel(Future<?> future) {
      if (!future.isDone()) {
        future.cancel(true); // frees our side; etcd may still apply what it received
      }
    }

    private String describe(Exception e) {
      if (e instanceof TimeoutException) {
        return "no answer within " + timeout.toMillis() + " ms";
      }
      if (e instanceof InterruptedException) {
        return "interrupted";
      }
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      while (cause.getCause() != null && cause.getMessage() == null) {
        cause = cause.getCause();
      }
      return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static Long parse(ByteSequence value) {
      // only this client writes under the prefix: anything but a decimal Long is our own bug
      return Long.valueOf(value.toString(StandardCharsets.UTF_8));
    }

    private static ByteSequence bytes(String s) {
      return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
