package io.partkit.harness.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.client.properties.ClientProperty;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.query.Predicates;
import io.partkit.backend.hazelcast.HazelcastPlacement;
import io.partkit.backend.hazelcast.PartkitPartitioningStrategy;
import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.SystemContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hazelcast 5.7 under test: {@code n} members {@code h1..hn}, each a {@link HazelcastMemberMain}
 * JVM (-Xmx256m) on the run's runtime, joined by an explicit TCP-IP member list, and Java clients
 * ({@link HazelcastClient}) doing get / set / replace on one {@link IMap} entry per register.
 *
 * <h2>Model and honesty</h2>
 * A read is {@code get(k)}, a write {@code set(k, v)}, a cas {@code replace(k, old, new)} (or
 * {@code putIfAbsent(k, new) == null} when it expects the key absent). A write or cas that threw
 * is {@code info}, whatever the exception (see {@code unknownOrFailed} for why even a refusal is
 * not proof); a cas that answered false is {@code fail}; a read
 * that did not answer is {@code fail}. The client does not re-send a write after a connection
 * loss (Hazelcast's {@code redo-operation} is off), and the exceptions it retries on are the ones
 * a member raises before running the operation (not the owner, migrating). With
 * {@code routing=member}, though, the member a client talks to forwards each operation to the
 * owner and itself retries it when the owner seems to have left, so Hazelcast can answer
 * {@code false} to a replace an earlier attempt of which ran: the harness records Hazelcast's
 * answer, and the checker counts such a case against Hazelcast.
 *
 * <h2>Options</h2>
 * {@code partitioning=hazelcast|partkit} (partkit: every member's map and every client use
 * {@link PartkitPartitioningStrategy}, 271 partitions), {@code merge-policy} (a class name, or a
 * simple name in {@code com.hazelcast.spi.merge}; Hazelcast 5.7's default is
 * {@code PutIfAbsentMergePolicy}), {@code backups} (1), {@code routing=smart|member} (smart: each
 * client knows every member and sends each key to its owner; member: each client talks to one
 * member only, as Jepsen's Hazelcast test does, so during a split clients write on both sides),
 * {@code split-brain-protection} (off; a minimum cluster size below which the map refuses
 * operations), and the failure-detection and merge timings, shortened from Hazelcast's defaults so
 * that a split and its merge happen within a short run: {@code heartbeat-seconds} (1; Hazelcast 5),
 * {@code no-heartbeat-seconds} (5; Hazelcast 60), {@code merge-first-seconds} (5; Hazelcast 300),
 * {@code merge-next-seconds} (5; Hazelcast 120), and {@code op-timeout-ms} (5000, the client's
 * deadline per operation).
 *
 * <h2>Faults</h2>
 * kill, pause and restart act on the member's process (a restarted member is a new member with
 * no data: Hazelcast keeps data in memory, and its backups restore it). Membership: {@code leave}
 * shuts a member down gracefully (it hands its partitions over first), {@code join} starts it
 * again; both, like a restart, wait until the cluster says it is safe, so the next fault does not
 * hit a migration Hazelcast has not finished (bounded: a member that never gets there is logged,
 * not waited for). Partitions (netns) split the cluster; with the short timings it splits and
 * merges back with the configured merge policy after the heal.
 *
 * <h2>Rebalancing</h2>
 * For {@code partkit bench --live}: the placement is Hazelcast's own ({@code native}) or, with
 * {@code partitioning=partkit}, partkit's key-to-partition strategy with Hazelcast's own
 * partition-to-member assignment ({@code partkit}); {@code backups + 1} copies of each of 271
 * partitions. Each member counts what it received by migrations to create a copy it did not
 * hold ({@link ReceivedCopies}, a hook on its partition service) and answers
 * {@code REBALANCE <id>} on standard input with those counters, whether a migration runs on it,
 * whether its partition service says it is safe, and the members it sees. The rebalance is done
 * when every member that should run answers, sees exactly those members, migrates nothing and is
 * safe. {@link #crash} kills a member for good; Hazelcast's failure detector removes it after
 * {@code no-heartbeat-seconds}, and until then the others still see it, so the rebalance is not
 * done.
 */
final class HazelcastSystem extends NodeProcessSystem
    implements Capability.Membership, Capability.CheckPlacement, Capability.Rebalancing {

  static final String MAP = "registers";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration SAFE_TIMEOUT = Duration.ofSeconds(60);
  private static final long POLL_MILLIS = 200;
  /** How long a member has to answer REBALANCE (its safety check may wait on other members). */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

  private final Map<String, List<String>> commands = new LinkedHashMap<>();
  private final Map<String, String> addresses = new LinkedHashMap<>();
  /** Every key a client tried to write, for the placement check. */
  private final Set<Long> written = ConcurrentHashMap.newKeySet();
  private final List<HazelcastInstance> clients = new ArrayList<>();
  private final AtomicInteger nextClient = new AtomicInteger();
  private String cluster;
  private boolean partkit;
  private boolean smart;
  private Duration opTimeout;
  private int noHeartbeatSeconds;
  private int backups = -1;
  /** One REBALANCE exchange at a time per member, so that an answer goes to its asker. */
  private final Map<String, Object> askLocks = new ConcurrentHashMap<>();
  private final AtomicLong nextRequest = new AtomicLong();
  private ExecutorService askers;
  /** A smart client with Hazelcast's own partitioning: membership and the placement check. */
  private HazelcastInstance admin;

  HazelcastSystem() {
    super("hazelcast");
  }

  @Override
  public void start(SystemContext ctx) {
    OptionValues o = ctx.options();
    partkit = o.text("partitioning").equals("partkit");
    smart = o.text("routing").equals("smart");
    String mergePolicy = o.text("merge-policy");
    if (!mergePolicy.contains(".")) {
      mergePolicy = "com.hazelcast.spi.merge." + mergePolicy;
    }
    int heartbeat = o.integer("heartbeat-seconds");
    noHeartbeatSeconds = o.integer("no-heartbeat-seconds");
    backups = o.integer("backups");
    opTimeout = Duration.ofMillis(o.longValue("op-timeout-ms"));
    List<String> properties = List.of(
        "hazelcast.heartbeat.interval.seconds=" + heartbeat,
        "hazelcast.max.no.heartbeat.seconds=" + noHeartbeatSeconds,
        "hazelcast.merge.first.run.delay.seconds=" + o.integer("merge-first-seconds"),
        "hazelcast.merge.next.run.delay.seconds=" + o.integer("merge-next-seconds"),
        // members start together: a short wait before joining keeps a start quick
        "hazelcast.wait.seconds.before.join=1",
        "hazelcast.max.wait.seconds.before.join=5");

    List<String> names = openNodes(ctx, "h", List.of());
    for (String n : names) {
      addresses.put(n, runtime().host(n) + ":" + runtime().port(n, "hz", 5701));
    }
    // a fresh cluster name per run: a member of an earlier run on a reused port never merges in
    cluster = "partkit-" + UUID.randomUUID();
    List<String> flags = JavaCommand.productFlags("hazelcast");
    for (String n : names) {
      List<String> args = new ArrayList<>(List.of("--host", runtime().host(n),
          "--port", Integer.toString(runtime().port(n, "hz", 5701)),
          "--members", String.join(",", addresses.values()), "--cluster", cluster, "--map", MAP,
          "--backups", Integer.toString(o.integer("backups")), "--merge-policy", mergePolicy,
          "--partitioning", partkit ? "partkit" : "hazelcast"));
      o.optional("split-brain-protection").ifPresent(
          quorum -> args.addAll(List.of("--split-brain-protection", quorum)));
      for (String p : properties) {
        args.addAll(List.of("--property", p));
      }
      commands.put(n, JavaCommand.of(o.integer("heap-mb") + "m", flags,
          HazelcastMemberMain.class, args));
    }
    try {
      // every member is spawned before any is waited for: they start in parallel
      for (String n : names) {
        spawn(n);
      }
      for (String n : names) {
        process(n).awaitLine("HAZELCAST MEMBER READY ", START_TIMEOUT);
      }
      admin = newClient(List.copyOf(addresses.values()), true, false);
      awaitClusterSize(names.size(), START_TIMEOUT);
      // the workers' clients now, not on the first openClient: the run's clock (and the
      // nemesis) starts when the workers do
      List<String> all = List.copyOf(addresses.values());
      for (String n : names) {
        clients.add(newClient(smart ? all : List.of(addresses.get(n)), smart, partkit));
      }
    } catch (RuntimeException | Error e) {
      close(); // a failed start leaves nothing running
      throw e;
    }
  }

  private void spawn(String node) {
    try {
      started(node, runtime().start(node, commands.get(node), context().log(node)));
    } catch (IOException e) {
      throw new SetupException("cannot start hazelcast member " + node + ": " + e.getMessage(), e);
    }
  }

  /**
   * Starts a member again (a new member, no data) and waits until it has joined and the cluster
   * is safe (bounded).
   */
  @Override
  protected void startNode(String node) {
    spawn(node);
    NodeProcess p = process(node);
    p.awaitLine("HAZELCAST MEMBER READY ", START_TIMEOUT);
    try {
      p.awaitLine("HAZELCAST MEMBER SAFE", SAFE_TIMEOUT);
    } catch (SetupException e) {
      // not safe in time (a fault elsewhere, or a paused member): go on; the log says so
    }
  }

  private HazelcastInstance newClient(List<String> memberAddresses, boolean smartRouting,
      boolean partkitKeys) {
    ClientConfig c = new ClientConfig();
    c.setClusterName(cluster);
    c.setInstanceName(cluster + "-client-" + nextClient.incrementAndGet());
    c.getNetworkConfig().setAddresses(new ArrayList<>(memberAddresses));
    c.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(
        smartRouting ? RoutingMode.ALL_MEMBERS : RoutingMode.SINGLE_MEMBER);
    // while disconnected an operation fails at once instead of waiting for a reconnect it may
    // or may not get
    c.getConnectionStrategyConfig().setReconnectMode(ReconnectMode.ASYNC);
    c.getConnectionStrategyConfig().getConnectionRetryConfig()
        .setClusterConnectTimeoutMillis(START_TIMEOUT.toMillis());
    c.setProperty("hazelcast.client.heartbeat.interval", "1000");
    c.setProperty("hazelcast.client.heartbeat.timeout",
        Long.toString(noHeartbeatSeconds * 1000L));
    c.setProperty("hazelcast.client.invocation.timeout.seconds",
        Long.toString(Math.max(1, opTimeout.toSeconds())));
    c.setProperty("hazelcast.logging.type", "none"); // the members' logs tell the story
    if (partkitKeys) {
      // "hazelcast.partitioning.strategy.class" in 5.7 (not "hazelcast.client...."): with the
      // wrong name the client silently keeps Hazelcast's hashing, as the placement check showed
      c.setProperty(ClientProperty.PARTITIONING_STRATEGY_CLASS.getName(),
          HazelcastClientPartitioning.class.getName());
    }
    try {
      return HazelcastClient.newHazelcastClient(c);
    } catch (RuntimeException e) {
      throw new SetupException("cannot connect a hazelcast client to " + memberAddresses + ": "
          + e.getMessage(), e);
    }
  }

  /** Polls the admin client's member list until it has {@code size} members. */
  private void awaitClusterSize(int size, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    int seen = -1;
    while (true) {
      for (String n : nodes()) {
        if (!hasLeft(n) && !isGone(n) && !running(n)) {
          throw new SetupException("hazelcast member " + n + " is not running; see "
              + context().log(n));
        }
      }
      seen = admin.getCluster().getMembers().size();
      if (seen == size) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new SetupException("hazelcast cluster has " + seen + " members, not " + size
            + ", after " + timeout + "; see the members' logs in " + context().dir());
      }
      pollPause(POLL_MILLIS, "hazelcast");
    }
  }

  /** The master (the oldest member) as the admin client sees the cluster. */
  @Override
  public Optional<String> leader() {
    if (admin == null) {
      return Optional.empty();
    }
    // the member list is in join order: the oldest, first, is the master
    Optional<Member> master = admin.getCluster().getMembers().stream().findFirst();
    return master.flatMap(m -> {
      String address = m.getAddress().getHost() + ":" + m.getAddress().getPort();
      return addresses.entrySet().stream().filter(e -> e.getValue().equals(address))
          .map(Map.Entry::getKey).findFirst();
    });
  }

  /** A graceful shutdown: Hazelcast hands the member's partitions over before it exits. */
  @Override
  public void leave(String node) {
    NodeProcess p = process(node);
    long running = nodes().stream().filter(n -> !hasLeft(n))
        .filter(this::running).count();
    if (hasLeft(node) || !running(node) || running < 2) {
      return; // nothing to hand over to, or already out
    }
    markLeft(node);
    try {
      p.send("LEAVE");
      p.awaitLine("HAZELCAST MEMBER LEFT", START_TIMEOUT);
    } catch (IOException | SetupException e) {
      // it died on the way out: it is out either way
    }
    p.kill(); // it exits by itself after LEFT; make sure before it is started again
  }

  @Override
  public void join(String node) {
    rejoin(node);
  }

  /**
   * Every member runs again (killed ones restarted, left ones joined; crashed ones stay dead) and
   * the cluster has all of them: after a partition, that is the split clusters merged back.
   */
  @Override
  public void awaitRecovered(Duration timeout) {
    for (String n : nodes()) {
      if (hasLeft(n)) {
        join(n);
      } else {
        restart(n);
      }
    }
    awaitClusterSize((int) nodes().stream().filter(n -> !isGone(n)).count(), timeout);
  }

  @Override
  public String placement() {
    return partkit() ? "partkit" : "native";
  }

  @Override
  public int copies() {
    if (backups < 0) {
      throw new IllegalStateException("hazelcast is not started: its copies follow its options");
    }
    return backups + 1;
  }

  /** Hazelcast's default 271, which the members run and partkit's strategy assumes. */
  @Override
  public OptionalInt partitions() {
    return OptionalInt.of(HazelcastPlacement.DEFAULT_PARTITION_COUNT);
  }

  private boolean partkit() {
    if (backups < 0) {
      throw new IllegalStateException("hazelcast is not started: its placement follows its"
          + " options");
    }
    return partkit;
  }

  /** Long keys and byte[] values on the registers' map, through the workers' clients. */
  @Override
  public synchronized DataClient openDataClient() {
    if (clients.isEmpty()) {
      throw new IllegalStateException("hazelcast is not started");
    }
    HazelcastInstance c = clients.get(nextClient.getAndIncrement() % clients.size());
    return new HazelcastDataClient(c.getMap(MAP), opTimeout);
  }

  @Override
  public Map<String, Received> received() {
    Map<String, Received> received = new TreeMap<>();
    ask(nodes().stream().filter(this::running).toList()).forEach((node, answer) -> {
      if (answer.error() == null) {
        received.put(node, answer.received());
      }
    });
    return received;
  }

  @Override
  public Optional<String> rebalancing() {
    Map<String, String> expected = new LinkedHashMap<>();
    List<String> down = new ArrayList<>();
    for (String n : nodes()) {
      if (!hasLeft(n) && !isGone(n)) {
        expected.put(n, addresses.get(n));
        if (!running(n)) {
          down.add(n);
        }
      }
    }
    if (!down.isEmpty()) {
      // a member killed by the nemesis (not crashed for good) is expected back: not settled
      return Optional.of("not running: " + down);
    }
    return RebalanceAnswer.stillGoing(expected, ask(List.copyOf(expected.keySet())));
  }

  @Override
  public String crash(String node) {
    NodeProcess p = process(node); // an unknown node is refused
    if (isGone(node)) {
      return node + " crashed before; nothing to do";
    }
    if (hasLeft(node) || !running(node)) {
      return node + " is not running (it left or was killed); not crashed";
    }
    long pid = p.pid();
    killForGood(node);
    return "kill -9 of hazelcast member " + node + " (pid " + pid + "), for good; Hazelcast's"
        + " failure detector removes it after " + noHeartbeatSeconds + " s without a heartbeat";
  }

  /** The answers of {@code nodes} to REBALANCE, asked in parallel; a silent one is left out. */
  private Map<String, RebalanceAnswer> ask(List<String> nodes) {
    ExecutorService pool;
    synchronized (this) {
      if (askers == null) {
        askers = Executors.newCachedThreadPool(r -> {
          Thread t = new Thread(r, "partkit-hazelcast-ask");
          t.setDaemon(true);
          return t;
        });
      }
      pool = askers;
    }
    Map<String, Future<Optional<RebalanceAnswer>>> pending = new LinkedHashMap<>();
    for (String n : nodes) {
      pending.put(n, pool.submit(() -> askOne(n)));
    }
    Map<String, RebalanceAnswer> answers = new LinkedHashMap<>();
    for (Map.Entry<String, Future<Optional<RebalanceAnswer>>> e : pending.entrySet()) {
      try {
        e.getValue().get().ifPresent(a -> answers.put(e.getKey(), a));
      } catch (ExecutionException ex) {
        // a member's answer that cannot be read is a member that did not answer
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new SetupException("interrupted asking the hazelcast members", ex);
      }
    }
    return answers;
  }

  /** One member's answer, or empty when it did not give one within {@link #ANSWER_TIMEOUT}. */
  private Optional<RebalanceAnswer> askOne(String node) {
    synchronized (askLocks.computeIfAbsent(node, n -> new Object())) {
      NodeProcess p = process(node);
      if (p == null || !p.isAlive()) {
        return Optional.empty();
      }
      String id = Long.toString(nextRequest.incrementAndGet());
      long deadline = System.nanoTime() + ANSWER_TIMEOUT.toNanos();
      try {
        p.send("REBALANCE " + id);
        while (true) {
          Duration left = Duration.ofNanos(deadline - System.nanoTime());
          if (left.isNegative() || left.isZero()) {
            return Optional.empty();
          }
          String line = p.awaitLine(RebalanceAnswer.PREFIX, left);
          // an answer to an earlier request that timed out comes late: skip it
          if (line.startsWith(RebalanceAnswer.PREFIX + id + " ")) {
            return Optional.of(RebalanceAnswer.parse(id, line));
          }
        }
      } catch (IOException | SetupException e) {
        return Optional.empty(); // gone, or silent
      }
    }
  }

  /**
   * Asks the members where each stored key is: for every partition, the keys a partition query
   * finds there, compared with the partition partkit predicts (partitioning=partkit: the
   * strategy's partition) or Hazelcast's own hashing predicts ({@link HazelcastPlacement}). The
   * query goes through the admin client, which partitions the query's Integer key Hazelcast's
   * way, so partition p is read at p whatever strategy the writers used. Where a key is stored
   * does not settle (a key never moves between partitions), so one look is the answer whatever
   * the {@code patience}.
   */
  @Override
  public Optional<PlacementCheck> checkPlacement(Duration patience) {
    HazelcastPlacement placement = HazelcastPlacement.defaults();
    PartkitPartitioningStrategy strategy = PartkitPartitioningStrategy.defaults();
    IMap<Long, Long> map = admin.getMap(MAP);
    int partitions = admin.getPartitionService().getPartitions().size();
    if (partitions != placement.partitionCount()) {
      throw new IllegalStateException("the cluster has " + partitions + " partitions, "
          + placement.partitionCount() + " expected");
    }
    List<String> misplaced = new ArrayList<>();
    int keys = 0;
    for (int p = 0; p < partitions; p++) {
      Set<Long> here = map.keySet(Predicates.partitionPredicate(placement.partitionKeyFor(p),
          Predicates.alwaysTrue()));
      for (Long k : here) {
        keys++;
        int predicted = partkit ? strategy.partitionOf(k) : placement.partition(k);
        if (predicted != p) {
          misplaced.add("key " + k + " in partition " + p + ", predicted " + predicted);
        }
      }
    }
    String rule = partkit
        ? "PartkitPartitioningStrategy, " + partitions + " partitions"
        : "Hazelcast's own key hashing (HazelcastPlacement), " + partitions + " partitions";
    if (keys < written.size()) {
      // not a placement error (lost writes are the other check's business), but worth saying
      rule += "; " + (written.size() - keys) + " of " + written.size()
          + " written keys not found in any partition";
    }
    return Optional.of(new PlacementCheck(rule, keys, misplaced));
  }

  /**
   * A client for one worker. Clients are shared (one per member, round robin): a Hazelcast client
   * is thread-safe and heavy, and a history needs no connection per process.
   */
  @Override
  public synchronized Client openClient() {
    if (clients.isEmpty()) {
      throw new IllegalStateException("hazelcast is not started");
    }
    HazelcastInstance c = clients.get(nextClient.getAndIncrement() % clients.size());
    return new HazelcastRegisterClient(c.getMap(MAP), opTimeout, written);
  }

  @Override
  public synchronized void close() {
    List<HazelcastInstance> all = new ArrayList<>(clients);
    if (admin != null) {
      all.add(admin);
    }
    for (HazelcastInstance c : all) {
      try {
        c.getLifecycleService().terminate();
      } catch (RuntimeException e) {
        // already down
      }
    }
    clients.clear();
    if (askers != null) {
      askers.shutdownNow();
    }
    stopProcesses();
  }

  /** get / set / replace on one IMap entry per register; see the class doc for outcomes. */
  static final class HazelcastRegisterClient implements Client {
    private final IMap<Long, Long> map;
    private final Duration timeout;
    private final Set<Long> written;

    HazelcastRegisterClient(IMap<Long, Long> map, Duration timeout, Set<Long> written) {
      this.map = map;
      this.timeout = timeout;
      this.written = written;
    }

    @Override
    public Outcome invoke(Operation op) {
      Long key = op.key();
      try {
        switch (op.f()) {
          case Operation.READ -> {
            return Outcome.ok(map.getAsync(key).toCompletableFuture()
                .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
          }
          case Operation.WRITE -> {
            written.add(key);
            map.setAsync(key, (Long) op.value()).toCompletableFuture()
                .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            return Outcome.ok(op.value());
          }
          default -> {
            written.add(key);
            Long expected = op.casExpected();
            // no async form of either: both are bounded by the client's invocation timeout
            boolean set = expected == null ? map.putIfAbsent(key, op.casNew()) == null
                : map.replace(key, expected, op.casNew());
            return set ? Outcome.ok(op.value())
                : Outcome.mismatch(op.value(), "the register did not hold " + expected);
          }
        }
      } catch (java.util.concurrent.ExecutionException | RuntimeException
          | java.util.concurrent.TimeoutException e) {
        return unknownOrFailed(op, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return unknownOrFailed(op, e);
      }
    }

    /**
     * A read that threw failed (it changed nothing); a write or cas that threw may have happened,
     * whatever the exception says. Even a refusal is not proof: with routing=member the member a
     * client talks to forwards the operation to the owner and retries it on another member when
     * the owner seems to leave, so the refusal (split-brain protection, an offline client on a
     * retry) can come after an attempt that ran. A seed-41 run with split-brain protection showed
     * it: a write answered SplitBrainProtectionException after 2.7 s, and its value was read later.
     */
    private static Outcome unknownOrFailed(Operation op, Exception e) {
      Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
          ? e.getCause() : e;
      String why = cause.getClass().getSimpleName() + ": " + cause.getMessage();
      return Operation.READ.equals(op.f()) ? Outcome.fail(op.value(), why)
          : Outcome.info(op.value(), why);
    }

    @Override
    public void close() {
      // the underlying client is shared; the system closes it
    }
  }
}
