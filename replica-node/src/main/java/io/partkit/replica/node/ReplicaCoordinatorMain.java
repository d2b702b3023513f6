package io.partkit.replica.node;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Timing;
import io.partkit.replica.node.access.Admission;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.Partitioners;
import io.partkit.spi.TokenRanges;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs a partkit coordinator over replica-core nodes: a {@code ClusterCoordinator} decides the
 * table, and {@link ReplicaMigrationExecutor} runs the replica core's control in this process,
 * carrying the table out on the nodes ({@code ReplicaNodeMain --role node} processes whose {@code
 * --control} is this process's).
 *
 * <pre>
 * java -Xmx128m -XX:+ExitOnOutOfMemoryError -cp CP io.partkit.replica.node.ReplicaCoordinatorMain \
 *     --store file:PATH|etcd:URL,... --nodes h:p,h:p,h:p --control h:p --replicas 3 \
 *     [--strategy fixed|rendezvous|range|tokenring] [--partitions 16] [--vnodes 16] \
 *     [--timing R,S,P,D] [--step-timeout-ms 120000] [--name coordinator] \
 *     [--store-prefix /partkit/replica] [--load-aware true] [--secret-file FILE] \
 *     [--members NAME,NAME,NAME] [--split-size N]
 * </pre>
 *
 * <p>The strategy ({@code fixed} by default) is any whose tables the core numbers: hash slots of
 * a fixed count ({@code fixed}, {@code rendezvous}: {@code --partitions}), key ranges ({@code
 * range}: {@code --partitions} even ranges to start with) or a token ring ({@code tokenring}:
 * {@code --vnodes} tokens a node). A token ring re-cuts its ranges when a node joins (its tokens
 * cut existing ranges): the executor splits the core's partitions first ({@link
 * ReplicaMigrationExecutor#prepareSplit}), then the ranges move to the joiner. A leave of a
 * token ring merges ranges on different replicas, which would move data in the re-cut: the
 * coordinator refuses that rebalance. Key ranges that {@code range} merges on the same replicas
 * are carried out (the core keeps its finer partitions under the merged range).
 *
 * <p>With {@code --split-size N} ({@code range} only) every rebalance first re-cuts the
 * committed table by the sizes the nodes measure ({@link MeasuredSplits}, {@link
 * ReplicaMigrationExecutor#sizes}): a range above N keys is cut at its median key, both halves
 * on its replicas, each split printed as {@code REPLICA SPLITS PLANNED <n> AT <hex key,...>};
 * the placement may then move a half to another node. The coordinator commits the cut first,
 * the moves after. A line {@code rebalance} on standard input runs a rebalance, answered as a
 * membership change's; nothing runs one on a schedule.
 *
 * <p>Node {@code i} of {@code --nodes} is the coordinator's member {@code node-i}, or the
 * {@code i}-th name of {@code --members} (a strategy that hashes its members' ids, as {@code
 * rendezvous} does, then places as it would over nodes of those names; the names must stay the
 * same across restarts, as the store's table holds them). The store holds
 * the coordinator's state (members, table, pending migrations) and the control's, so the process
 * may be killed and restarted: the first start makes every node a member and commits the first
 * table; a restart finds them, resumes the migrations a kill interrupted, and restores the
 * control from its state. A node stays a member from its join to its leave (this process renews
 * every member's heartbeat): whether it is up is the control's to know. With {@code --load-aware
 * true} each rebalance also moves primaries by the load the nodes report ({@link
 * ReplicaMigrationExecutor#loadSource}: requests a second over the last 10 s). {@code
 * --secret-file} is the cluster's shared secret, as a node's ({@link ReplicaNodeMain}): without
 * it the control listens on loopback only.
 *
 * <p>Once the control runs it prints {@code REPLICA LISTENING host:port}, and {@code REPLICA
 * SETTLED} the first time every partition has its copies, all level. It reads commands on its
 * standard input ({@link ControlCommand}): {@code leave N} and {@code join N} change the
 * membership and rebalance, answered {@code REPLICA REBALANCED EPOCH E MIGRATIONS M} or {@code
 * REPLICA REBALANCE FAILED: why}; {@code forget N}, for a node lost for good with its disk, has
 * the control count none of its copies level first, then the member leaves (a later {@code join
 * N} brings a fresh node in its place, which the control then heartbeats again). A {@code
 * split} command is refused: the coordinator has no operation that splits one partition (a
 * {@code range} table splits when its strategy's plan re-cuts it, {@code RangeSplits} by
 * measured sizes, and a {@code tokenring} one when a node joins; either is a rebalance). It
 * exits when its standard input closes.
 *
 * <p>Exit statuses: 2 for a usage error (an unknown strategy, an option it does not take, one
 * whose tables are neither hash slots of a fixed count nor key ranges nor a token ring, a store
 * without versioned values), 74 when the store cannot be reached at start, and
 * the control's: 70, 74, 75 ({@link ReplicaNodeMain}).
 */
public final class ReplicaCoordinatorMain {

  /** How often every member's heartbeat is renewed (the coordinator's timeout is 10 s). */
  static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(1);

  /** Migrations the coordinator runs at once. */
  static final int MAX_CONCURRENT_MIGRATIONS = 4;

  private ReplicaCoordinatorMain() {}

  /** Entry point. */
  public static void main(String[] args) throws IOException {
    Consumer<String> log = ReplicaNodeMain.processLog();
    Map<String, String> options = ReplicaNodeMain.options(args);
    if (args.length % 2 != 0 || options.get("--store") == null
        || options.get("--nodes") == null || options.get("--control") == null
        || options.get("--replicas") == null) {
      System.err.println("usage: ReplicaCoordinatorMain --store <etcd:url,...|file:path>"
          + " --nodes <host:port,...> --control <host:port> --replicas <n>"
          + " [--strategy fixed|rendezvous|range|tokenring] [--partitions <n>] [--vnodes <n>]"
          + " [--timing <resend,suspect,ping,down ms>]"
          + " [--step-timeout-ms <ms>] [--name <name>] [--store-prefix <etcd key prefix>]"
          + " [--load-aware true|false] [--secret-file <file>] [--members <name,...>]"
          + " [--split-size <keys>]");
      System.exit(2);
      return;
    }
    List<InetSocketAddress> nodes;
    List<Member> members;
    InetSocketAddress address;
    Timing timing;
    PartitionerConfig config;
    int replicas;
    String strategy = options.getOrDefault("--strategy", "fixed");
    Duration stepTimeout;
    boolean loadAware;
    ConnectionPolicy policy;
    long splitSize;
    try {
      String load = options.getOrDefault("--load-aware", "false");
      if (!load.equals("true") && !load.equals("false")) {
        throw new IllegalArgumentException("--load-aware is true or false, not '" + load + "'");
      }
      loadAware = load.equals("true");
      nodes = ReplicaNodeMain.addresses(options.get("--nodes"));
      members = members(nodes, options.get("--members"));
      List<InetSocketAddress> controls = ReplicaNodeMain.addresses(options.get("--control"));
      if (controls.size() != 1) {
        throw new IllegalArgumentException("--control is the one address the control listens"
            + " on, not " + controls.size());
      }
      address = controls.get(0);
      policy = ReplicaNodeMain.policy(options.get("--secret-file"));
      Admission.requireSecretOffLoopback("the control", address, policy.secret());
      timing = ReplicaNodeMain.timing(options.get("--timing"));
      replicas = Integer.parseInt(options.get("--replicas"));
      config = config(options, replicas);
      numbered(strategy, config);
      stepTimeout = Duration.ofMillis(Long.parseLong(options.getOrDefault("--step-timeout-ms",
          "120000")));
      splitSize = splitSize(strategy, options.get("--split-size"));
    } catch (IllegalArgumentException e) {
      System.err.println("ReplicaCoordinatorMain: " + e.getMessage());
      System.exit(2);
      return;
    }
    MetadataStore store = ReplicaNodeMain.openStore(options, "ReplicaCoordinatorMain", log);
    VersionedValues values = (VersionedValues) store;
    String name = options.getOrDefault("--name", "coordinator");
    System.out.println("REPLICA STANDBY " + name);
    System.out.flush();
    ReplicaMigrationExecutor.Builder b = ReplicaMigrationExecutor.builder().control(address)
        .replicas(replicas).store(values).timing(timing).stepTimeout(stepTimeout)
        .secret(policy.secret()).log(log);
    for (int i = 0; i < nodes.size(); i++) {
      b.node(members.get(i).id(), nodes.get(i));
    }
    ReplicaMigrationExecutor executor = b.build();
    // built, it campaigns; leading, it resumes what a kill interrupted and activates the table,
    // which starts the control
    Coordinators.Builder cb = Coordinators.builder().store(store);
    if (splitSize > 0) {
      Partitioner range = Partitioners.load(ReplicaCoordinatorMain.class.getClassLoader())
          .create(strategy, config);
      cb.partitioner(new MeasuredSplits(range, splitSize, executor::sizes, line -> {
        System.out.println(line);
        System.out.flush();
      }, log));
    } else {
      cb.strategy(strategy, config);
    }
    cb.migrationExecutor(executor).maxConcurrentMigrations(MAX_CONCURRENT_MIGRATIONS)
        .name(name);
    if (loadAware) {
      cb.loadSource(executor.loadSource());
    }
    ClusterCoordinator coordinator = cb.build();
    if (coordinator.table().isEmpty()) {
      for (Member m : members) {
        coordinator.join(m);
      }
      RebalancePlan first = coordinator.rebalance();
      log.accept("coordinator: the first table, epoch " + first.proposed().epoch());
    }
    keepMembers(coordinator, log);
    // a standby waits here until it leads and its control runs
    ReplicaNode control = executor.startedControl().toCompletableFuture().join();
    ReplicaNodeMain.listening(control, true);
    readCommands(coordinator, executor, members, log);
    coordinator.close();
    executor.close();
    store.close();
    System.exit(0);
  }

  /**
   * Renews every member's heartbeat each {@link #HEARTBEAT_EVERY}, on a thread of its own. A
   * node is the coordinator's member from its join to its leave: whether it is up is the
   * control's to know, which fails a partition over within a down-time, where the coordinator
   * would move every partition off a node it found silent (and keep it out until it joined
   * again).
   */
  private static void keepMembers(ClusterCoordinator coordinator, Consumer<String> log) {
    ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "heartbeats");
      t.setDaemon(true);
      return t;
    });
    beats.scheduleWithFixedDelay(() -> {
      for (Member m : coordinator.membership().members()) {
        try {
          coordinator.heartbeat(m.id());
        } catch (RuntimeException e) {
          log.accept("coordinator: cannot renew the heartbeat of " + m.id() + ": " + e);
        }
      }
    }, 0, HEARTBEAT_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * {@code --split-size}: a count of keys, at least 1, for {@code range} alone; 0 when not given.
   *
   * @throws IllegalArgumentException naming the option, what it was given and what it takes
   */
  static long splitSize(String strategy, String value) {
    if (value == null) {
      return 0;
    }
    if (!strategy.equals("range")) {
      throw new IllegalArgumentException("--split-size splits key ranges by size: it needs"
          + " --strategy range, not " + strategy);
    }
    long keys;
    try {
      keys = Long.parseLong(value);
    } catch (NumberFormatException e) {
      keys = 0;
    }
    if (keys < 1) {
      throw new IllegalArgumentException("--split-size is a count of keys, at least 1, not '"
          + value + "'");
    }
    return keys;
  }

  /**
   * The strategy's options: the replicas, and {@code --partitions} and {@code --vnodes} when
   * given (a strategy refuses an option it does not take, naming it).
   */
  static PartitionerConfig config(Map<String, String> options, int replicas) {
    Map<String, Object> c = new java.util.LinkedHashMap<>();
    if (options.get("--partitions") != null) {
      c.put("partitions", Integer.parseInt(options.get("--partitions")));
    }
    if (options.get("--vnodes") != null) {
      c.put("vnodes", Integer.parseInt(options.get("--vnodes")));
    }
    c.put("replicas", replicas);
    return PartitionerConfig.of(c);
  }

  /**
   * Checks that the strategy's tables are ones the executor carries out: hash slots of a fixed
   * count, or, for a strategy whose partitions follow the members or the keys, key ranges or a
   * token ring (the executor splits the core's partitions as they re-cut), judged on a table
   * over one node.
   *
   * @throws IllegalArgumentException for an unknown strategy (naming the known ones), bad
   *     options, or a strategy of other tables
   */
  static void numbered(String strategy, PartitionerConfig config) {
    Partitioners strategies = Partitioners.load(ReplicaCoordinatorMain.class.getClassLoader());
    PartitionerProvider provider = strategies.provider(strategy).orElseThrow(() ->
        new IllegalArgumentException("unknown --strategy " + strategy + "; known: "
            + String.join(", ", strategies.names())));
    Partitioner p = provider.create(config);
    if (p.fixedPartitionCount().isPresent()) {
      return;
    }
    PartitionScheme trial = p.place(MembershipView.ofEqualNodes("trial", 1), Optional.empty(), 1)
        .scheme();
    if (!(trial instanceof KeyRanges) && !(trial instanceof TokenRanges)) {
      throw new IllegalArgumentException("--strategy " + strategy + " has no fixed partition"
          + " count and cuts keys by " + trial + ": the replica core's control carries out"
          + " tables of a fixed count (fixed, rendezvous), and key ranges (range) or a token"
          + " ring (tokenring), whose splits it makes");
    }
  }

  /**
   * The nodes as the coordinator's members, node {@code i} named {@code node-i} or by the
   * {@code i}-th of {@code names} (comma-separated; null: none given).
   *
   * @throws IllegalArgumentException when the names are not one distinct, non-empty name a node
   */
  static List<Member> members(List<InetSocketAddress> nodes, String names) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      ids.add("node-" + i);
    }
    if (names != null) {
      ids = List.of(names.split(",", -1));
      if (ids.size() != nodes.size() || ids.stream().anyMatch(String::isBlank)
          || new java.util.HashSet<>(ids).size() != ids.size()) {
        throw new IllegalArgumentException("--members names " + ids.size() + " members ("
            + names + "): expected one distinct, non-empty name for each of the "
            + nodes.size() + " --nodes");
      }
    }
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      InetSocketAddress a = nodes.get(i);
      members.add(new Member(NodeId.of(ids.get(i)), a.getHostString() + ":" + a.getPort(), 1,
          "", ""));
    }
    return List.copyOf(members);
  }

  /** Standard input until it closes: a command a line, answered on standard output. */
  private static void readCommands(ClusterCoordinator coordinator,
      ReplicaMigrationExecutor executor, List<Member> members, Consumer<String> log)
      throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.strip().equals("rebalance")) {
        System.out.println(rebalance(coordinator, log));
        System.out.flush();
        continue;
      }
      Optional<ControlCommand> c;
      try {
        c = ControlCommand.parse(line);
      } catch (IllegalArgumentException e) {
        log.accept("coordinator: standard input: " + e.getMessage());
        continue;
      }
      if (c.isEmpty()) {
        continue;
      }
      System.out.println(answer(coordinator, executor, members, c.get(), log));
      System.out.flush();
    }
  }

  /** A rebalance on the membership as it is (with {@code --split-size}: splits by size). */
  static String rebalance(ClusterCoordinator coordinator, Consumer<String> log) {
    try {
      RebalancePlan plan = coordinator.rebalance();
      return "REPLICA REBALANCED EPOCH " + plan.proposed().epoch() + " MIGRATIONS "
          + plan.migrations().size();
    } catch (RuntimeException e) {
      log.accept("coordinator: rebalance failed: " + e);
      return "REPLICA REBALANCE FAILED: " + e.getMessage();
    }
  }

  /**
   * Carries {@code command} out: a membership change and its rebalance. {@code forget N} (a node
   * lost for good, disk and all) tells the control first, then the member leaves; a {@code join
   * N} of a node that is not a member tells the control of it first, a fresh node in the place of
   * one lost or gone.
   */
  static String answer(ClusterCoordinator coordinator, ReplicaMigrationExecutor executor,
      List<Member> members, ControlCommand command, Consumer<String> log) {
    int node;
    if (command instanceof ControlCommand.Leave l) {
      node = l.node();
    } else if (command instanceof ControlCommand.Join j) {
      node = j.node();
    } else if (command instanceof ControlCommand.Forget f) {
      node = f.node();
    } else {
      return command.refusal("the coordinator has no operation that splits one partition: a"
          + " range table splits when its strategy's plan re-cuts it, a tokenring one when a"
          + " node joins, each as a rebalance");
    }
    if (node >= members.size()) {
      return "REPLICA REBALANCE FAILED: no node " + node + ": the nodes are 0.."
          + (members.size() - 1);
    }
    try {
      if (command instanceof ControlCommand.Forget) {
        // the control first, so that no copy of the lost node counts level while the
        // coordinator's rebalance moves its partitions
        executor.forget(node).toCompletableFuture().join();
        coordinator.leave(members.get(node).id());
      } else if (command instanceof ControlCommand.Leave) {
        coordinator.leave(members.get(node).id());
      } else {
        NodeId id = members.get(node).id();
        if (coordinator.membership().members().stream().noneMatch(m -> m.id().equals(id))) {
          executor.join(node).toCompletableFuture().join();
        }
        coordinator.join(members.get(node));
      }
      RebalancePlan plan = coordinator.rebalance();
      return "REPLICA REBALANCED EPOCH " + plan.proposed().epoch() + " MIGRATIONS "
          + plan.migrations().size();
    } catch (RuntimeException e) {
      log.accept("coordinator: " + command + " failed: " + e);
      return "REPLICA REBALANCE FAILED: " + e.getMessage();
    }
  }
}
