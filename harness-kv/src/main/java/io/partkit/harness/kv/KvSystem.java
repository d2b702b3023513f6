package io.partkit.harness.kv;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.etcd.EtcdMetadataStores;
import io.partkit.harness.etcd.EtcdSystem;
import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.SystemContext;
import io.partkit.replica.Checkpoints;
import io.partkit.replica.Record;
import io.partkit.replica.Timing;
import io.partkit.replica.node.ReplicaClient;
import io.partkit.replica.node.ReplicaCoordinatorMain;
import io.partkit.replica.node.ReplicaNodeMain;
import io.partkit.replica.node.StoredReplica;
import io.partkit.replica.node.access.SharedSecret;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * partkit's kv store under test, the Fixed Partitions protocol's replica cores: {@code n} node
 * processes ({@link ReplicaNodeMain}, node {@code i} of the core is {@code n<i+1>}), each a
 * replica core with its
 * write-ahead log under the run's {@code data/}, and one control process ({@code control}), which
 * decides configurations and answers clients' table requests. Clients are {@link ReplicaClient}s:
 * a key's partition goes to the primary the control's table names, asked again after a refusal
 * or a timeout.
 *
 * <p>Each run has a fresh shared secret ({@code data/secret}, {@link SharedSecret}): every node,
 * control and client proves it ({@code --secret-file}), so the processes may listen on any
 * address the runtime gives them.
 *
 * <p>Faults: {@code kill} ({@code kill -9}, restarted on heal with the same log) and {@code pause}
 * of data nodes and of the control, which {@link #leader()} names, so that the nemesis picks it
 * one time in n+1: the control keeps its table in a log of its own under {@code data/control}
 * and restarts from it. {@code split}: the control splits one partition of the coarsest
 * numbering (one of those at the smallest modulus, so that {@code n} splits double a table of
 * {@code n}), told on its standard input; the fault is over once the control has committed the
 * split, the nodes divide their copies as the new numbering reaches them. {@code partition}:
 * the shape is drawn over the data nodes and the controls ({@link #alsoCut()}).
 *
 * <p>Options: {@code partitions} (default 16), {@code replicas} (copies of each partition,
 * default 3), {@code request-timeout-ms} (how long a client waits before an operation is
 * unknown, default {@value #REQUEST_TIMEOUT_MILLIS}), {@code timing} (the protocol's resend,
 * suspect, ping and down milliseconds, default {@link ReplicaNodeMain#TIMING}), {@code
 * max-partitions} (the table size past which {@code split} splits no further, default {@value
 * #MAX_PARTITIONS}), {@code numbering} (the first table: {@value #HASHED}, hash slots; {@value
 * #KEYS}, key ranges; {@value #TOKENS}, a token ring), {@code strategy} (how
 * the control places copies: {@value #CORE_PLACEMENT},
 * its own rule, or {@code fixed} or {@code rendezvous}, given to every start of the control),
 * {@code metadata} (where the control keeps its state: {@value #LOG_METADATA}, a log of its own,
 * the default; or {@code etcd}: a one-member etcd cluster {@code m1} started on the same runtime,
 * never faulted, holds it, and two controls run, {@code control} and {@code control2}, of which
 * the store's election makes one the leader; {@link #leader()} names that one, so a kill of the
 * leader makes the other take over), {@code compact-bytes} (how much a node's log grows before
 * it is compacted while running, default {@link ReplicaNodeMain#COMPACT_BYTES}), {@code mutant}
 * (a planted bug on every data node, one the simulator also plants: the nodes run as {@link
 * MutantNodeMain}, so the run must be invalid; default none). With {@code
 * metadata=coordinator} the process {@code control} is a partkit coordinator instead ({@link
 * ReplicaCoordinatorMain}): a {@code ClusterCoordinator} with the {@code strategy} ({@code fixed}
 * for {@code core}) decides the table, and the control runs in its process, both keeping their
 * state in one embedded store under {@code data/control}; a split is refused there (the table's
 * partition count is the strategy's), so the {@code split} nemesis splits nothing.
 *
 * <p>{@code membership}: a node leaves gracefully ({@code leave N} on the leading control's or
 * the coordinator's standard input: its copies move to the others) and joins again on heal; the
 * control answers once the change is durable, the coordinator once it rebalanced. {@code
 * migration}: a member leaves, and the first copy that joins a partition after that ({@code
 * REPLICA JOINING} on the control's or the coordinator's output) is the migration caught, its
 * primary the source. {@code lose}: a node is killed, its data directory deleted and the
 * control or the coordinator told to forget it ({@code forget N}; the coordinator has the control
 * count none of its copies level, then the member leaves and the rebalance re-creates them on the
 * others); the heal starts an empty node in its place, which joins. After the run, {@link
 * #checkPlacement} compares what every node holds on its disk with the control's table.
 *
 * <p>For {@code partkit bench --live} ({@link Capability.Rebalancing}): what each node received
 * to create copies is its own count, read with its load view ({@link ReplicaClient#received}:
 * whole copies as snapshot pages, and levels taken by name); the system is rebalanced once the
 * control's table is settled (every partition with its copies, all level and up, no move under
 * way, each where the placement wants it) and, with {@code metadata=coordinator}, the coordinator
 * has answered the last membership change. A crash is a {@code kill -9} for good, the node's data
 * deleted, and its removal as an operator would make it: {@code forget N} to the control, or
 * {@code leave N} to the coordinator, which renews every member's heartbeat itself and so never
 * finds a node dead. The placement the bench names is the control's ({@code core}, {@code fixed}
 * or {@code rendezvous}), the coordinator's strategy with {@code metadata=coordinator}.
 *
 * <p>{@code heap-mb} is each data node's heap (default {@value #NODE_HEAP_MB}): a node keeps its
 * partitions' keys and values in memory.
 */
final class KvSystem extends NodeProcessSystem
    implements Capability.Splits, Capability.CutsAlso, Capability.Membership,
    Capability.Migrations, Capability.LoseNodes, Capability.CheckPlacement,
    Capability.Rebalancing {

  static final String CONTROL = "control";
  /** A data node's default heap, in MB: the harness's runs keep little data. */
  static final int NODE_HEAP_MB = 128;
  /** How long a node may take to answer what it received, on a loaded machine. */
  private static final Duration RECEIVED_TIMEOUT = Duration.ofSeconds(2);
  /** The standby control with {@code metadata=etcd}. */
  static final String CONTROL2 = "control2";
  /** The {@code metadata} option's default: the control keeps its state in a log of its own. */
  static final String LOG_METADATA = "log";
  /** The {@code metadata} option for a partkit coordinator deciding the table. */
  static final String COORDINATOR_METADATA = "coordinator";
  /** How long a membership change may take: a rebalance waits for its moves, a kill stalls one. */
  private static final Duration MEMBERSHIP_TIMEOUT = Duration.ofMinutes(3);
  /** How long the coordinator gives a migration before it withdraws it, in a run. */
  private static final int STEP_TIMEOUT_MILLIS = 20_000;
  private static final String ETCD_PREFIX = "/partkit/replica";
  static final int REQUEST_TIMEOUT_MILLIS = 2000;
  static final int MAX_PARTITIONS = 1024;
  /** The {@code strategy} option's default: the control places copies by its own rule. */
  static final String CORE_PLACEMENT = "core";
  /** The {@code numbering} option's default: hash slots. */
  static final String HASHED = "hashed";
  /** The {@code numbering} option for key ranges. */
  static final String KEYS = "keys";
  /** The {@code numbering} option for a token ring. */
  static final String TOKENS = "tokens";
  /** The workload's keys a partition of the first table of key ranges holds. */
  static final int KEYS_A_RANGE = 8;

  /** How long the control may take to answer a split, on a loaded machine. */
  private static final Duration SPLIT_TIMEOUT = Duration.ofSeconds(30);
  private static final int PORT = 7400;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  /** How long a lost node waits for a settled table: its copies must be level elsewhere. */
  private static final Duration LOSE_SETTLE_TIMEOUT = Duration.ofSeconds(30);

  private final Map<String, List<String>> commands = new ConcurrentHashMap<>();
  /** Data nodes that left ({@code leave N}) and did not join again. */
  private final Set<String> left = ConcurrentHashMap.newKeySet();
  /** Data nodes lost for good ({@link #lose}) and not replaced yet. */
  private final Set<String> lost = ConcurrentHashMap.newKeySet();
  /** Data nodes crashed for good ({@link #crash}): never started again. */
  private final Set<String> crashed = ConcurrentHashMap.newKeySet();
  /**
   * A leave the coordinator has not answered yet ({@link #startMigration} returns once a copy
   * joins, before the rebalance it started is answered), and the process that owes the answer.
   */
  private String pendingLeave;
  private NodeProcess pendingFrom;
  private Random random;
  private int replicas;
  private int partitions;
  private String strategy;
  private int maxPartitions;
  private Duration requestTimeout;
  private List<InetSocketAddress> addresses;
  /** The controls by name: one, or two with {@code metadata=etcd}. */
  private final Map<String, InetSocketAddress> controls = new java.util.LinkedHashMap<>();
  /** With {@code metadata=etcd}: the controls' store, and its client that names the leader. */
  private EtcdSystem metadataCluster;
  private MetadataStore metadata;
  /** With {@code metadata=coordinator}: the control is a partkit coordinator's process. */
  private boolean coordinated;
  /** The run's shared secret: every node, control and client proves it. */
  private SharedSecret secret;

  KvSystem() {
    super("kv");
  }

  static String timingText() {
    Timing t = ReplicaNodeMain.TIMING;
    return t.resendMillis() + "," + t.suspectMillis() + "," + t.pingMillis() + ","
        + t.downMillis();
  }

  @Override
  public void start(SystemContext ctx) {
    partitions = ctx.options().integer("partitions");
    strategy = ctx.options().text("strategy");
    maxPartitions = ctx.options().integer("max-partitions");
    replicas = ctx.options().integer("replicas");
    random = new Random(ctx.seed());
    requestTimeout = Duration.ofMillis(ctx.options().integer("request-timeout-ms"));
    String timing = ctx.options().text("timing");
    boolean etcd = ctx.options().text("metadata").equals("etcd");
    coordinated = ctx.options().text("metadata").equals(COORDINATOR_METADATA);
    String numbering = ctx.options().text("numbering");
    if (coordinated && !numbering.equals(HASHED)) {
      throw new IllegalArgumentException("numbering=" + numbering + " with metadata="
          + COORDINATOR_METADATA + ": a coordinator's table of the replica cores is hash slots"
          + " (numbering=" + HASHED + ")");
    }
    List<String> others = new ArrayList<>(etcd ? List.of(CONTROL, CONTROL2) : List.of(CONTROL));
    if (etcd) {
      others.addAll(EtcdSystem.memberNames(1));
    }
    openNodes(ctx, "n", others);
    if (etcd) {
      metadataCluster = EtcdSystem.forMetadata();
      metadataCluster.start(
          new SystemContext(ctx.runtime(), ctx.dir(), 1, ctx.seed(), ctx.options()));
      metadata = EtcdMetadataStores.builder().endpoints(metadataCluster.clientUrls())
          .prefix(ETCD_PREFIX).build();
    }
    addresses = new ArrayList<>();
    for (String n : nodes()) {
      addresses.add(new InetSocketAddress(runtime().host(n), runtime().port(n, "replica", PORT)));
    }
    for (String c : etcd ? List.of(CONTROL, CONTROL2) : List.of(CONTROL)) {
      controls.put(c, new InetSocketAddress(runtime().host(c), runtime().port(c, "replica",
          PORT)));
    }
    Path secretFile = ctx.dir().resolve("data").resolve("secret");
    try {
      Files.createDirectories(secretFile.getParent());
      secret = SharedSecret.generate(secretFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String nodeList = addresses.stream().map(a -> a.getHostString() + ":" + a.getPort())
        .collect(Collectors.joining(","));
    String controlList = controls.values().stream()
        .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    // out of memory, a process exits (and a node is restarted by the run) instead of hanging
    List<String> flags = List.of("-XX:+ExitOnOutOfMemoryError");
    Optional<String> mutant = ctx.options().optional("mutant");
    for (int i = 0; i < nodes().size(); i++) {
      String n = nodes().get(i);
      Path data = ctx.dir().resolve("data").resolve(n);
      List<String> args = new ArrayList<>();
      mutant.ifPresent(m -> args.addAll(List.of("--mutant", m)));
      args.addAll(List.of("--role", "node", "--id", Integer.toString(i), "--data",
          data.toString(), "--nodes", nodeList, "--control", controlList, "--timing", timing,
          "--compact-bytes", Integer.toString(ctx.options().integer("compact-bytes")),
          "--secret-file", secretFile.toString()));
      commands.put(n, JavaCommand.of(ctx.options().integer("heap-mb") + "m", flags,
          mutant.isPresent() ? MutantNodeMain.class : ReplicaNodeMain.class, args));
    }
    for (Map.Entry<String, InetSocketAddress> c : controls.entrySet()) {
      if (coordinated) {
        commands.put(c.getKey(), JavaCommand.of("128m", flags, ReplicaCoordinatorMain.class,
            List.of("--store", "file:" + ctx.dir().resolve("data").resolve(c.getKey())
                .resolve("store.json"), "--nodes", nodeList, "--control",
                c.getValue().getHostString() + ":" + c.getValue().getPort(), "--partitions",
                Integer.toString(partitions), "--replicas", Integer.toString(replicas),
                "--timing", timing, "--strategy",
                strategy.equals(CORE_PLACEMENT) ? "fixed" : strategy, "--step-timeout-ms",
                Integer.toString(STEP_TIMEOUT_MILLIS), "--secret-file", secretFile.toString(),
                // the coordinator's members are named as the run names the nodes, so that a
                // strategy hashing the names places as a prediction over them does
                "--members", String.join(",", nodes()))));
        continue;
      }
      List<String> controlArgs = new ArrayList<>(List.of("--role", "control", "--nodes",
          nodeList, "--control", c.getValue().getHostString() + ":" + c.getValue().getPort(),
          "--replicas", Integer.toString(replicas), "--timing", timing, "--secret-file",
          secretFile.toString()));
      controlArgs.addAll(firstTable(numbering, partitions));
      if (etcd) {
        controlArgs.addAll(List.of("--store", "etcd:" + String.join(",",
            metadataCluster.clientUrls()), "--store-prefix", ETCD_PREFIX, "--name", c.getKey()));
      } else {
        controlArgs.addAll(List.of("--data", ctx.dir().resolve("data").resolve(c.getKey())
            .toString()));
      }
      if (!strategy.equals(CORE_PLACEMENT)) {
        controlArgs.addAll(List.of("--strategy", strategy));
      }
      commands.put(c.getKey(), JavaCommand.of("128m", flags, ReplicaNodeMain.class,
          controlArgs));
    }
    try {
      CompletableFuture.allOf(nodes().stream()
          .map(n -> CompletableFuture.runAsync(() -> startNode(n)))
          .toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    // the nodes listen first, so that the control finds every one of them up; with two
    // controls, the first is the leader (it campaigns alone), the second its standby
    try {
      NodeProcess c = started(CONTROL, runtime().start(CONTROL, commands.get(CONTROL),
          context().log(CONTROL)));
      c.awaitLine("REPLICA LISTENING ", START_TIMEOUT);
      c.awaitLine("REPLICA SETTLED", START_TIMEOUT);
    } catch (IOException e) {
      throw new SetupException("cannot start the replica control: " + e.getMessage(), e);
    }
    if (controls.containsKey(CONTROL2)) {
      startNode(CONTROL2);
    }
  }

  /**
   * The control that leads: a kill or pause aimed at the leader hits it. With one control, that
   * one; with two, the one the store names (the first when none leads at the moment).
   */
  @Override
  public Optional<String> leader() {
    if (metadata == null) {
      return Optional.of(CONTROL);
    }
    return Optional.of(metadata.leader().filter(controls::containsKey).orElse(CONTROL));
  }

  /**
   * The controls: a partition may cut one off from some nodes, so that it finds them down while
   * clients still reach them. etcd is never cut.
   */
  @Override
  public List<String> alsoCut() {
    return List.copyOf(controls.keySet());
  }

  /**
   * Starts a data node or a control (again after a kill: the same log and address). A control
   * on the store is started once it campaigns: it listens when it wins.
   */
  @Override
  protected void startNode(String node) {
    boolean standby = metadata != null && controls.containsKey(node);
    try {
      NodeProcess p = started(node, runtime().start(node, commands.get(node),
          context().log(node)));
      p.awaitLine(standby ? "REPLICA STANDBY " : "REPLICA LISTENING ", START_TIMEOUT);
    } catch (IOException e) {
      throw new SetupException("cannot start replica node " + node + ": " + e.getMessage(), e);
    }
  }

  /**
   * Restarts the control and every killed node, then waits until the control's table is
   * settled: every partition with its copies, all level and up, which the final reads need.
   */
  @Override
  public void awaitRecovered(Duration timeout) {
    for (String c : controls.keySet()) {
      restart(c);
    }
    for (String n : List.copyOf(lost)) {
      replace(n);
    }
    for (String n : nodes()) {
      restart(n);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    try (ReplicaClient c = client()) {
      while (System.nanoTime() < deadline) {
        try {
          if (c.table().settled()) {
            return;
          }
        } catch (IOException e) {
          // the control did not answer in time: asked again
        }
        pollPause(100, "the replica cluster to settle");
      }
    }
  }

  /**
   * The control's options for the first table of {@code partitions}: hash slots; key ranges of
   * {@value #KEYS_A_RANGE} of the workload's consecutive keys each (eight big-endian bytes,
   * numbered from 0), the last open-ended; or a ring of evenly spaced tokens, half a range off the
   * hash slots' bounds (on them the ring would number keys as the hash halves do).
   */
  static List<String> firstTable(String numbering, int partitions) {
    if (numbering.equals(KEYS)) {
      List<String> keys = new ArrayList<>();
      for (int i = 1; i < partitions; i++) {
        keys.add(java.util.HexFormat.of().formatHex(
            io.partkit.replica.Bytes.ofLong((long) i * KEYS_A_RANGE).toArray()));
      }
      return keys.isEmpty() ? List.of("--partitions", "1")
          : List.of("--split-keys", String.join(",", keys));
    }
    if (numbering.equals(TOKENS)) {
      long step = Long.divideUnsigned(-1L, partitions);
      List<String> tokens = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tokens.add(Long.toString(Long.MIN_VALUE + step * i + step / 2));
      }
      return List.of("--tokens", String.join(",", tokens));
    }
    return List.of("--partitions", Integer.toString(partitions));
  }

  /**
   * Splits a partition of the coarsest numbering, chosen with {@code random} among those at the
   * table's smallest modulus: {@code split P} on the control's standard input, then its answer.
   */
  @Override
  public Optional<String> split(Random random) {
    if (coordinated) {
      return Optional.empty(); // the coordinator's table keeps its strategy's partition count
    }
    ReplicaClient.Table table = null;
    IOException last = null;
    long deadline = System.nanoTime() + SPLIT_TIMEOUT.toNanos();
    try (ReplicaClient c = client()) {
      while (table == null && System.nanoTime() < deadline) {
        try {
          table = c.table();
        } catch (IOException e) {
          last = e;
          pollPause(100, "the replica control's table");
        }
      }
    }
    if (table == null) {
      throw new IllegalStateException("the replica control did not answer a table request within "
          + SPLIT_TIMEOUT.toSeconds() + " s: " + last);
    }
    if (table.partitions() >= maxPartitions) {
      return Optional.empty();
    }
    Optional<ReplicaClient.Row> chosen = SplitChoice.choose(table, random);
    if (chosen.isEmpty()) {
      return Optional.empty();
    }
    int partition = chosen.get().partition();
    NodeProcess control = process(leader().orElseThrow());
    try {
      control.send("split " + partition);
    } catch (IOException e) {
      throw new IllegalStateException("cannot tell the replica control to split partition "
          + partition + ": " + e.getMessage(), e);
    }
    String line = control.awaitLine("REPLICA SPLIT ", SPLIT_TIMEOUT);
    if (line.startsWith("REPLICA SPLIT REFUSED ") && (line.endsWith("this control is a standby")
        || line.contains(ReplicaNodeMain.NO_MIDPOINT))) {
      // the leadership moved since the store named the leader, or a range of one key (or
      // token) was the coarsest: nothing split
      return Optional.empty();
    }
    if (line.startsWith("REPLICA SPLIT REFUSED ")) {
      throw new IllegalStateException("the replica control refused: " + line);
    }
    return Optional.of("split " + line.substring("REPLICA SPLIT ".length()).toLowerCase());
  }

  /** {@code leave N} on the leading control's or the coordinator's standard input. */
  @Override
  public void leave(String node) {
    membership("leave", node);
  }

  /** {@code join N} on the leading control's or the coordinator's standard input. */
  @Override
  public void join(String node) {
    membership("join", node);
  }

  private void membership(String change, String node) {
    NodeProcess control = tell(change, node);
    String line = control.awaitLine(answerTo(change), MEMBERSHIP_TIMEOUT);
    if (refused(line)) {
      throw new IllegalStateException("the replica control did not " + change + " node "
          + node + ": " + line);
    }
    changed(change, node);
  }

  private static boolean refused(String answer) {
    return answer.contains(" REFUSED ") || answer.startsWith("REPLICA REBALANCE FAILED");
  }

  /** The membership this system keeps, once the control or coordinator carried out a change. */
  private void changed(String change, String node) {
    if (change.equals("leave")) {
      left.add(node);
    } else if (change.equals("join")) {
      left.remove(node);
    }
  }

  /**
   * {@code change N} (leave, join or forget) on the leading control's or the coordinator's
   * standard input, once the answers it still owes are in. Returns the process told, whose
   * answer is then awaited with {@link #answerTo}.
   */
  private NodeProcess tell(String change, String node) {
    int number = nodes().indexOf(node);
    if (number < 0) {
      throw new IllegalArgumentException("no data node " + node + " to " + change + ": the nodes"
          + " are " + nodes());
    }
    NodeProcess control = process(leader().orElseThrow());
    settlePending(control);
    try {
      control.send(change + " " + number);
    } catch (IOException e) {
      throw new IllegalStateException("cannot tell the replica control to " + change + " node "
          + number + ": " + e.getMessage(), e);
    }
    return control;
  }

  /** Awaits the coordinator's answer to a leave {@link #startMigration} did not await. */
  private void settlePending(NodeProcess control) {
    if (pendingFrom == control && pendingLeave != null) {
      if (!refused(control.awaitLine("REPLICA REBALANCE", MEMBERSHIP_TIMEOUT))) {
        changed("leave", pendingLeave);
      }
    }
    pendingLeave = null;
  }

  /** The beginning of the line that answers {@code change}. */
  private String answerTo(String change) {
    return coordinated ? "REPLICA REBALANCE" : "REPLICA " + change.toUpperCase();
  }

  /**
   * A member leaves (after a node that left joins again when no other member could leave
   * without taking copies with it), and the first copy that joins a partition's configuration
   * after that is the migration caught: {@code REPLICA JOINING P N FROM PRIMARY EPOCH E} on the
   * control's or the coordinator's output, the primary streaming its copy to node {@code N}.
   * With the control's own placement a join moves nothing (a partition takes a spare only when
   * short of copies), so each catch is a leave.
   */
  @Override
  public Optional<Migration> startMigration(Duration timeout) {
    NodeProcess control = process(leader().orElseThrow());
    if (control == null || !control.isAlive()) {
      return Optional.empty();
    }
    try {
      settlePending(control); // before the lines so far are skipped: its answer may be among them
      List<String> members = members();
      List<String> out = nodes().stream().filter(left::contains).toList();
      control.skipLines();
      if (members.size() <= replicas) {
        if (out.isEmpty()) {
          return Optional.empty(); // a leave now would take copies with it
        }
        String back = out.get(random.nextInt(out.size()));
        membership("join", back);
        members = new ArrayList<>(members);
        members.add(back);
      }
      String leaving = members.get(random.nextInt(members.size()));
      control.skipLines(); // a copy the join moved is no longer in flight
      tell("leave", leaving);
      if (coordinated) {
        pendingFrom = control; // answered once the coordinator rebalanced: after the moves
        pendingLeave = leaving;
      } else {
        if (refused(control.awaitLine(answerTo("leave"), MEMBERSHIP_TIMEOUT))) {
          return Optional.empty(); // the leadership moved since the store named the leader
        }
        changed("leave", leaving);
      }
      String[] joining = control.awaitLine("REPLICA JOINING ", timeout).split(" ");
      return Optional.of(new Migration(Integer.parseInt(joining[2]),
          nodes().get(Integer.parseInt(joining[5])), nodes().get(Integer.parseInt(joining[3]))));
    } catch (SetupException e) {
      return Optional.empty(); // nothing joined in time, or the control died
    }
  }

  @Override
  public Optional<String> cannotLoseNodes(OptionValues options, int nodes) {
    int r = options.integer("replicas");
    if (r < 2) {
      return Optional.of("kv keeps one copy of each partition (replicas=" + r + "): a node"
          + " lost for good takes its writes with it; run it with --option replicas=2 or more");
    }
    if (nodes <= r) {
      return Optional.of("kv with replicas=" + r + " needs more than " + r + " nodes to"
          + " lose one and still place every copy: have " + nodes);
    }
    return Optional.empty();
  }

  /**
   * Kills the node, deletes its data directory and has the control forget it ({@code forget N}):
   * its copies are re-created on the others. Only once the table is settled (every partition
   * with its copies, all level), so that a level copy of each of its partitions remains; and
   * only while the nodes that stay are at least as many as the copies. Otherwise the node is only
   * killed and restarted with its data, and the description says so.
   */
  @Override
  public String lose(String node) {
    long members = members().size();
    String not = !members().contains(node) ? "it is out of the membership"
        : members - 1 < replicas ? members + " members, " + replicas + " copies"
        : unsettledAfter(LOSE_SETTLE_TIMEOUT).map(why -> "the table did not settle within "
            + LOSE_SETTLE_TIMEOUT.toSeconds() + " s: " + why).orElse(null);
    if (not != null) {
      kill(node);
      restart(node);
      return "kill " + node + " (not lost: " + not + ")";
    }
    kill(node);
    try {
      runtime().wipe(node, dataDir(node));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the data of " + node, e);
    }
    lost.add(node);
    NodeProcess control = tell("forget", node);
    // the coordinator answers once it rebalanced the lost member's partitions onto the others
    String line = control.awaitLine(answerTo("forget"), MEMBERSHIP_TIMEOUT);
    if (refused(line)) {
      // the leadership moved: the control finds it down, and its empty disk when it is back
      return "lose " + node + " (the control was not told: " + line + ")";
    }
    return "lose " + node;
  }

  /**
   * A new node with an empty data directory starts in the lost one's place (same name, number
   * and address) and joins ({@code join N}); it holds nothing and takes copies as partitions
   * need them.
   */
  @Override
  public void replace(String node) {
    restart(node);
    if (lost.remove(node)) {
      membership("join", node);
    }
  }

  /**
   * Empty once the control's table is settled within {@code timeout}; otherwise what kept it
   * from settling when last asked (the control's own words, or why it did not answer).
   */
  private Optional<String> unsettledAfter(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String why = "the control was not asked";
    try (ReplicaClient c = client()) {
      while (System.nanoTime() < deadline) {
        try {
          ReplicaClient.Table t = c.table();
          if (t.settled()) {
            return Optional.empty();
          }
          why = t.unsettled();
        } catch (IOException e) {
          why = "the control did not answer: " + e.getMessage(); // asked again
        }
        pollPause(100, "the replica table to settle");
      }
    }
    return Optional.of(why);
  }

  private Path dataDir(String node) {
    return context().dir().resolve("data").resolve(node);
  }

  /**
   * Reads each data node's log (beside it, without touching it: {@link StoredReplica}) and
   * compares what it holds durably with the control's table: each partition's primary holds it
   * as primary at the table's epoch and modulus, and its configuration there has as many members
   * as copies are kept ({@code replicas}, fewer when fewer nodes are members); every backup of
   * that configuration holds it at that epoch with exactly the primary's keys and values; no
   * other node holds any of its keys; and every key a primary holds is one the partition numbers
   * ({@code Partitioning}). Repeated until it holds or {@code patience} passes: copies being
   * levelled, a record being appended.
   */
  @Override
  public Optional<PlacementCheck> checkPlacement(Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    PlacementCheck check = placementNow();
    while (!check.ok() && System.nanoTime() < deadline) {
      pollPause(200, "the replica placement to hold");
      check = placementNow();
    }
    return Optional.of(check);
  }

  PlacementCheck placementNow() {
    long members = members().size();
    int copies = (int) Math.min(replicas, members);
    String rule = "the control's table (" + copies + " cop" + (copies == 1 ? "y" : "ies")
        + " of each partition, on distinct members)";
    ReplicaClient.Table table;
    try (ReplicaClient c = client()) {
      table = c.table();
    } catch (IOException | RuntimeException e) {
      return new PlacementCheck(rule, 0, List.of("no table from the control: " + e));
    }
    Map<String, Map<Integer, Record.Checkpoint>> held = new TreeMap<>();
    for (int i = 0; i < nodes().size(); i++) {
      String n = nodes().get(i);
      Map<Integer, Record.Checkpoint> parts;
      try {
        Path log = runtime().fetch(n, dataDir(n).resolve(StoredReplica.LOG));
        // a large partition's checkpoint is in pages: each taken whole, and not the pages of a
        // copy still arriving
        parts = Checkpoints.whole(StoredReplica.checkpoint(log, i));
      } catch (IOException | RuntimeException e) {
        return new PlacementCheck(rule, 0, List.of("cannot read the log of " + n + ": " + e));
      }
      held.put(n, parts);
    }
    return new PlacementCheck(rule, table.rows().size(),
        KvPlacement.misplaced(table.rows(), nodes(), copies, held));
  }

  /** The data nodes in the membership: neither left, lost nor crashed. */
  private List<String> members() {
    return nodes().stream().filter(n -> !left.contains(n) && !lost.contains(n)
        && !crashed.contains(n)).toList();
  }

  // ---------------------------------------------------------------- rebalancing

  /**
   * The control's placement as {@code partkit bench --live} names it: {@code core} (its own
   * rule), {@code fixed} or {@code rendezvous}; with {@code metadata=coordinator}, the
   * coordinator's strategy ({@code fixed} for {@code core}).
   */
  @Override
  public String placement() {
    return coordinated && strategy.equals(CORE_PLACEMENT) ? "fixed" : strategy;
  }

  @Override
  public int copies() {
    return replicas;
  }

  /** The first table's partitions: only the {@code split} nemesis changes the count. */
  @Override
  public OptionalInt partitions() {
    return OptionalInt.of(partitions);
  }

  /**
   * A client of plain keys (8 big-endian bytes, as partkit encodes a long, so that the table's
   * hash slots place the key itself) and byte values.
   */
  @Override
  public DataClient openDataClient() {
    return new ReplicaDataClient(client());
  }

  /** Each running node's own counts ({@link ReplicaClient#received}), asked of it now. */
  @Override
  public Map<String, Received> received() {
    Map<String, Received> out = new TreeMap<>();
    try (ReplicaClient c = new ReplicaClient(List.copyOf(controls.values()), addresses,
        RECEIVED_TIMEOUT, secret)) {
      for (int i = 0; i < nodes().size(); i++) {
        String n = nodes().get(i);
        if (!running(n)) {
          continue;
        }
        try {
          c.received(i).ifPresent(r -> out.put(n, new Received(r.keys(), r.bytes(),
              r.partitions())));
        } catch (IOException e) {
          // a node that does not answer is left out, as the interface says
        }
      }
    }
    return out;
  }

  /**
   * Empty once the coordinator (with {@code metadata=coordinator}) has answered the last
   * membership change and the control's table is settled: every partition with as many copies
   * as the members allow, all level and up, no move under way, each where the placement wants
   * it. A crashed node is down in the control's view until its copies are elsewhere, so the
   * answer cannot be empty between a crash and the reaction to it.
   *
   * @throws IllegalStateException when the coordinator refused the last change (it will not
   *     rebalance for it)
   */
  @Override
  public Optional<String> rebalancing() {
    String leading = leader().orElseThrow();
    NodeProcess control = process(leading);
    if (control == null || !control.isAlive()) {
      return Optional.of("the control " + leading + " is down");
    }
    if (pendingLeave != null && pendingFrom != null) {
      String line;
      try {
        // a look, not a wait: the caller polls
        line = pendingFrom.awaitLine("REPLICA REBALANCE", Duration.ofMillis(50));
      } catch (SetupException e) {
        return Optional.of("the coordinator is rebalancing after the leave of " + pendingLeave);
      }
      String node = pendingLeave;
      pendingLeave = null;
      if (refused(line)) {
        throw new IllegalStateException("the coordinator did not leave " + node + ": " + line);
      }
      changed("leave", node);
    }
    try (ReplicaClient c = client()) {
      ReplicaClient.Table t = c.table();
      return t.settled() ? Optional.empty() : Optional.of(t.unsettled());
    } catch (IOException e) {
      return Optional.of("the control did not answer a table request: " + e.getMessage());
    }
  }

  /**
   * {@code kill -9} of {@code node} for good, its data deleted, and its removal as an operator
   * makes it: {@code forget N} to the control (answered once durable), or {@code leave N} to the
   * coordinator (answered once it rebalanced, which {@link #rebalancing()} awaits): the
   * coordinator renews its members' heartbeats itself, so it never finds a node dead, while the
   * control only fails its partitions over and keeps it a member until it is forgotten. Returns
   * as the removal is set in motion.
   *
   * @throws IllegalArgumentException if {@code node} is not a member
   * @throws IllegalStateException if the members left would be fewer than the copies
   */
  @Override
  public String crash(String node) {
    List<String> members = members();
    if (!members.contains(node)) {
      throw new IllegalArgumentException("cannot crash " + node + ": not a member of "
          + members);
    }
    if (members.size() - 1 < replicas) {
      throw new IllegalStateException("cannot crash " + node + ": the " + (members.size() - 1)
          + " members left could not hold " + replicas + " copies");
    }
    killForGood(node);
    try {
      runtime().wipe(node, dataDir(node));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the data of " + node, e);
    }
    crashed.add(node);
    List<String> rest = members();
    if (coordinated) {
      // the control counts none of its copies level, then the member leaves: answered once the
      // coordinator rebalanced, after the moves
      NodeProcess control = tell("forget", node);
      pendingFrom = control;
      pendingLeave = node;
      return "kill -9 " + node + ", its data deleted, forget " + node + " told to the"
          + " coordinator (it keeps its members' heartbeats itself): its copies are re-created"
          + " on " + rest;
    }
    NodeProcess control = tell("forget", node);
    String line = control.awaitLine("REPLICA FORGET", MEMBERSHIP_TIMEOUT);
    if (line.contains(" REFUSED ")) {
      throw new IllegalStateException("the replica control did not forget " + node + ": "
          + line);
    }
    return "kill -9 " + node + ", its data deleted, forget " + node + " told to the control:"
        + " its copies are re-created on " + rest;
  }

  /** A client of the run's nodes and controls, as the workers get (tests ask it more). */
  ReplicaClient client() {
    return new ReplicaClient(List.copyOf(controls.values()), addresses, requestTimeout, secret);
  }

  /** Stops the processes, then the controls' store. */
  @Override
  public void close() {
    try {
      super.close();
    } finally {
      if (metadata != null) {
        metadata.close();
      }
      if (metadataCluster != null) {
        metadataCluster.close();
      }
    }
  }

  @Override
  public Client openClient() {
    return new RegisterClient(client());
  }

  /** Plain keys and byte values for the bench's load; any answer but OK is an exception. */
  private static final class ReplicaDataClient implements DataClient {
    private final ReplicaClient client;

    ReplicaDataClient(ReplicaClient client) {
      this.client = client;
    }

    private static byte[] key(long key) {
      return java.nio.ByteBuffer.allocate(Long.BYTES).putLong(key).array();
    }

    @Override
    public void put(long key, byte[] value) throws IOException {
      ReplicaClient.BytesResult r = client.put(key(key), value);
      if (r.outcome() != io.partkit.replica.Message.Outcome.OK) {
        throw new IOException("put of key " + key + ": " + r.outcome() + ": " + r.why());
      }
    }

    @Override
    public byte[] get(long key) throws IOException {
      ReplicaClient.BytesResult r = client.get(key(key));
      if (r.outcome() != io.partkit.replica.Message.Outcome.OK) {
        throw new IOException("get of key " + key + ": " + r.outcome() + ": " + r.why());
      }
      return r.value();
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /** One register per key: verify's long keys and values as they are. */
  private static final class RegisterClient implements Client {
    private final ReplicaClient client;

    RegisterClient(ReplicaClient client) {
      this.client = client;
    }

    @Override
    public Outcome invoke(Operation op) {
      switch (op.f()) {
        case Operation.READ -> {
          ReplicaClient.Result r = client.get(op.key());
          if (r.outcome() == io.partkit.replica.Message.Outcome.OK) {
            return Outcome.ok(r.value());
          }
          // a read changes nothing: one that did not answer failed either way
          return Outcome.fail(null, r.why());
        }
        case Operation.WRITE -> {
          return outcome(op, client.put(op.key(), (Long) op.value()));
        }
        default -> {
          return outcome(op, client.cas(op.key(), op.casExpected(), op.casNew()));
        }
      }
    }

    private static Outcome outcome(Operation op, ReplicaClient.Result r) {
      switch (r.outcome()) {
        case OK -> {
          return Outcome.ok(op.value());
        }
        case FAIL -> {
          return r.mismatch() ? Outcome.mismatch(op.value(), r.why())
              : Outcome.fail(op.value(), r.why());
        }
        default -> {
          return Outcome.info(op.value(), r.why());
        }
      }
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
