package io.partkit.harness.kv;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.coordinator.MetadataSnapshot;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.etcd.EtcdMetadataStores;
import io.partkit.harness.etcd.EtcdSystem;
import io.partkit.harness.runtime.NodeProcess;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Capability;
import io.partkit.harness.system.Client;
import io.partkit.harness.system.DataClient;
import io.partkit.harness.system.JavaCommand;
import io.partkit.harness.system.NodeProcessSystem;
import io.partkit.harness.system.Operation;
import io.partkit.harness.system.OptionValues;
import io.partkit.harness.system.PlacementCheck;
import io.partkit.harness.system.Outcome;
import io.partkit.harness.system.SystemContext;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.KvException;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.node.KvNodeMain;
import io.partkit.kvstore.wire.ReceivedCopies;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.PartitionAssignment;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * partkit's own kvstore under test: {@code n} {@link KvNodeMain} processes, one coordinator
 * process ({@link KvCoordinatorMain}, a partkit strategy, an embedded metadata store persisted
 * in a file) and routing clients ({@link KvClient}).
 *
 * <p>Clients learn tables the way the kvstore's client does without a watch: from the metadata
 * store, read again whenever a node answers REDIRECT or MOVING. So a client whose table is stale
 * keeps routing to the old owner until a node tells it otherwise, which is what fencing by epoch
 * must make safe.
 *
 * <p>The {@code migration} nemesis catches a move in flight: without copies once its source is
 * fenced, with copies as a replica move starts (the coordinator's {@code REPLICAS} line). After
 * the run, {@link #checkPlacement(Duration)} compares every node's partitions with the committed
 * table.
 *
 * <p>For {@code partkit bench --live} ({@link Capability.Rebalancing}): what each node received
 * to create copies is its own count (the RECEIVED answer, {@link ReceivedCopies}); the system is
 * rebalanced once the coordinator has converged to the membership, no migration is pending and
 * the running nodes hold what the committed table says; a crash is a {@link #lose} that does not
 * wait (the kvstore has no failure detector: the operator removes the dead node).
 *
 * <p>Options: {@code partitions} (default 16), {@code strategy} (the coordinator's: {@code
 * fixed}, the default, {@code rendezvous} or {@code range} cut the keys into {@code partitions};
 * {@code tokenring} has its own count, 16 tokens a node, and cannot run with copies, nor take a
 * member out, see {@link #strategyProblem}), {@code metadata} ({@code embedded}, the default: a
 * file the coordinator persists; or {@code etcd}: a one-member etcd cluster {@code m1} started on
 * the same runtime, never faulted, holds the table, migrations and members, and clients read
 * tables from it), {@code fault} (a deliberate kvstore bug for every node:
 * {@code ack-before-log}, {@code serve-while-fenced}, {@code skip-epoch-check},
 * {@code skip-replication}), {@code replicas} (copies of each partition, default 1; with 2 or
 * more, and more nodes than copies, the {@code lose} nemesis can take a node and its disk away
 * for good), {@code replica-timeout-ms} (how long a primary waits for a backup before failing
 * the request and reporting the backup to the coordinator; default 5000, {@link
 * KvNode#REPLICA_TIMEOUT}; given to every node and to the coordinator's executor), {@code
 * suspect-after-ms} (how long a primary waits for a backup before it reports it to the
 * coordinator as a suspect, waiting on; below the replica timeout; default {@link
 * KvNode#SUSPECT_AFTER}, or half the replica timeout when that is shorter).
 */
final class KvSystem extends NodeProcessSystem
    implements Capability.Membership, Capability.Migrations, Capability.LoseNodes,
    Capability.CheckPlacement, Capability.Rebalancing {

  static final String COORDINATOR = "coord";
  /** A data node's default heap: the harness's runs keep little data. */
  static final int NODE_HEAP_MB = 96;
  private static final String ETCD_PREFIX = "/partkit/kv";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(120);

  private final Map<String, List<String>> commands = new ConcurrentHashMap<>();
  private final Set<String> members = new TreeSet<>();
  private Path storeFile;
  /** The run's shared secret: every node, the coordinator and the clients prove it. */
  private SharedSecret secret;
  private Path secretFile;
  private int partitions;
  private int replicas;
  /** The coordinator's strategy (option strategy). */
  private String strategy = "fixed";
  /** Every node's --replica-timeout-ms, and the coordinator's. */
  private String replicaTimeoutMillis;
  /** Every node's --suspect-after-ms. */
  private String suspectAfterMillis;
  private Random random;

  /**
   * With the option metadata=etcd: the coordinator's etcd, and the store clients read tables from.
   */
  private EtcdSystem metadataCluster;

  private MetadataStore etcdTables;
  /** MEMBERS commands sent to the running coordinator and DONE lines seen for them. */
  private int sent;
  private int done;

  KvSystem() {
    super("kv");
  }

  /**
   * The suspicion deadline for the nodes: the option's, which must be below the replica
   * timeout, or by default the node's own default for that timeout.
   */
  static String suspectAfter(OptionValues options, long replicaTimeoutMillis) {
    if (!options.isGiven("suspect-after-ms")) {
      return Long.toString(KvNode.defaultSuspectAfter(Duration.ofMillis(replicaTimeoutMillis))
          .toMillis());
    }
    int given = options.integer("suspect-after-ms");
    if (given >= replicaTimeoutMillis) {
      throw new IllegalArgumentException("kv option suspect-after-ms=" + given
          + " must be below replica-timeout-ms (" + replicaTimeoutMillis + "): a backup is"
          + " suspected before the wait on it fails");
    }
    return Integer.toString(given);
  }

  /**
   * Why the kvstore cannot run the option {@code strategy} with the other options, or empty when
   * it can. A token ring with copies cannot change its membership at all: a join splits ranges,
   * and a node refuses to split a replicated partition (SPLIT PREPARE); a leave merges ranges,
   * which the coordinator refuses with a migration executor. Refused before anything starts
   * rather than left to a join that fails and a leave that retries until it gives up.
   */
  static Optional<String> strategyProblem(OptionValues options) {
    int r = options.integer("replicas");
    if (options.text("strategy").equals("tokenring") && r >= 2) {
      return Optional.of("kv option strategy=tokenring cannot run with replicas=" + r
          + ": a token-ring join splits ranges and the kvstore's nodes refuse to split a"
          + " replicated partition, and a token-ring leave merges ranges, which the coordinator"
          + " refuses (docs/kvstore.md, section Splits); use replicas=1 (joins only), or"
          + " strategy fixed, rendezvous or range");
    }
    return Optional.empty();
  }

  @Override
  public void start(SystemContext ctx) {
    strategyProblem(ctx.options()).ifPresent(problem -> {
      throw new IllegalArgumentException(problem);
    });
    this.strategy = ctx.options().text("strategy");
    this.random = new Random(ctx.seed() ^ 0x6b76L);
    this.partitions = ctx.options().integer("partitions");
    this.replicas = ctx.options().integer("replicas");
    this.replicaTimeoutMillis = Integer.toString(ctx.options().integer("replica-timeout-ms"));
    this.suspectAfterMillis = suspectAfter(ctx.options(), Long.parseLong(replicaTimeoutMillis));
    String fault = ctx.options().optional("fault").orElse(null);
    List<String> others = new ArrayList<>(List.of(COORDINATOR));
    String metadata = ctx.options().text("metadata");
    if (metadata.equals("etcd")) {
      others.addAll(EtcdSystem.memberNames(1));
    }
    openNodes(ctx, "n", others);
    if (metadata.equals("etcd")) {
      metadataCluster = EtcdSystem.forMetadata();
      metadataCluster.start(
          new SystemContext(ctx.runtime(), ctx.dir(), 1, ctx.seed(), ctx.options()));
      etcdTables = EtcdMetadataStores.builder().endpoints(metadataCluster.clientUrls())
          .prefix(ETCD_PREFIX).build();
    }
    this.storeFile = ctx.dir().resolve("data").resolve("coordinator.json");
    this.secretFile = ctx.dir().resolve("data").resolve("secret");
    try {
      Files.createDirectories(storeFile.getParent());
      this.secret = SharedSecret.generate(secretFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String n : nodes()) {
      List<String> args = new ArrayList<>(List.of("--id", n,
          "--data", ctx.dir().resolve("data").resolve(n).toString(),
          "--host", runtime().host(n), "--port", Integer.toString(runtime().port(n, "kv", 7000)),
          "--secret-file", secretFile.toString(), "--replica-timeout-ms", replicaTimeoutMillis,
          "--suspect-after-ms", suspectAfterMillis));
      if (fault != null) {
        args.addAll(List.of("--unsafe-test-fault", fault));
      }
      // out of memory, a node exits (and is restarted by the run) instead of hanging
      commands.put(n, JavaCommand.of(ctx.options().integer("heap-mb") + "m",
          List.of("-XX:+ExitOnOutOfMemoryError"),
          KvNodeMain.class, args));
    }
    try {
      CompletableFuture.allOf(nodes().stream()
          .map(n -> CompletableFuture.runAsync(() -> startDataNode(n)))
          .toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    members.addAll(nodes());
    startCoordinator();
  }

  private String address(String node) {
    return runtime().host(node) + ":" + runtime().port(node, "kv", 7000);
  }

  /** Starts the coordinator or a data node (again: with the membership wanted now). */
  @Override
  protected void startNode(String node) {
    if (COORDINATOR.equals(node)) {
      startCoordinator(); // it resumes the change in flight and converges
    } else {
      startDataNode(node);
    }
  }

  private void startDataNode(String node) {
    try {
      NodeProcess p = started(node, runtime().start(node, commands.get(node), context().log(node)));
      p.awaitLine("KVNODE LISTENING ", START_TIMEOUT);
    } catch (IOException e) {
      throw new SetupException("cannot start kv node " + node + ": " + e.getMessage(), e);
    }
  }

  private void startCoordinator() {
    List<String> args = new ArrayList<>(List.of("--store", storeFile.toString(), "--partitions",
        Integer.toString(partitions), "--members", memberList(), "--addresses",
        nodes().stream().map(n -> n + "=" + address(n)).collect(Collectors.joining(",")),
        "--max-concurrent", "2", "--secret-file", secretFile.toString(),
        "--replicas", Integer.toString(replicas), "--replica-timeout-ms", replicaTimeoutMillis,
        "--strategy", strategy));
    if (metadataCluster != null) {
      args.addAll(List.of("--etcd", String.join(",", metadataCluster.clientUrls()),
          "--etcd-prefix", ETCD_PREFIX));
    }
    try {
      NodeProcess p = started(COORDINATOR, runtime().start(COORDINATOR,
          JavaCommand.of("128m", KvCoordinatorMain.class, args), context().log(COORDINATOR)));
      sent = 0;
      done = 0;
      p.awaitLine("READY ", START_TIMEOUT);
    } catch (IOException e) {
      throw new SetupException("cannot start the kv coordinator: " + e.getMessage(), e);
    }
  }

  private String memberList() {
    return members.stream().map(m -> m + "=" + address(m)).collect(Collectors.joining(","));
  }

  @Override
  public Optional<String> leader() {
    return Optional.of(COORDINATOR);
  }

  @Override
  public Optional<String> cannotCatchMigrations(OptionValues options) {
    if (options.text("strategy").equals("tokenring")) {
      return Optional.of(TOKEN_RING_LEAVE);
    }
    return Optional.empty();
  }

  /** Why a member cannot leave a token ring on the kvstore. */
  private static final String TOKEN_RING_LEAVE = "kv with strategy=tokenring cannot take a member"
      + " out: a token-ring leave merges ranges, which the coordinator refuses with a migration"
      + " executor (docs/kvstore.md, section Splits); use strategy fixed, rendezvous or range";

  @Override
  public Optional<String> cannotLoseNodes(OptionValues options, int nodes) {
    if (options.text("strategy").equals("tokenring")) {
      return Optional.of(TOKEN_RING_LEAVE);
    }
    int r = options.integer("replicas");
    if (r < 2) {
      return Optional.of("kv keeps one copy of each partition (replicas=" + r + "): a node lost"
          + " for good takes its writes with it; run it with -o replicas=2 or more");
    }
    if (nodes <= r) {
      return Optional.of("kv with replicas=" + r + " needs more than " + r + " nodes to lose"
          + " one and still place every copy: have " + nodes);
    }
    return Optional.empty();
  }

  /**
   * Kills the node, deletes its data directory and takes it out of the membership, which the
   * coordinator handles as a failure: every partition it held gets its copies back on the others.
   * When that would leave fewer members than copies (another fault took one out already), the
   * node is only killed and restarted with its data: the description says so.
   */
  @Override
  public String lose(String node) {
    if (!members.contains(node) || members.size() - 1 < replicas) {
      kill(node);
      restart(node);
      return "kill " + node + " (not lost: " + members.size() + " members, " + replicas
          + " copies)";
    }
    removeForGood(node);
    awaitSettled(CHANGE_TIMEOUT);
    return "lose " + node;
  }

  /**
   * {@code kill -9} of {@code node}, its data deleted, and its removal from the membership sent
   * to the coordinator, which re-creates its copies on the others (not waited for).
   */
  private void removeForGood(String node) {
    kill(node);
    try {
      runtime().wipe(node, context().dir().resolve("data").resolve(node));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the data of " + node, e);
    }
    members.remove(node);
    sendMembers();
  }

  /** A fresh node (empty data directory, same address) joins in the lost one's place. */
  @Override
  public void replace(String node) {
    restart(node);
    if (members.add(node)) {
      sendMembers();
      awaitSettled(CHANGE_TIMEOUT);
    }
  }

  /**
   * @throws IllegalStateException with strategy {@code tokenring}, whose leaves the coordinator
   *     refuses (see {@link #TOKEN_RING_LEAVE})
   */
  @Override
  public void leave(String node) {
    if (strategy.equals("tokenring") && members.contains(node)) {
      throw new IllegalStateException(TOKEN_RING_LEAVE);
    }
    if (members.size() > 1 && members.remove(node)) {
      sendMembers();
      awaitSettled(CHANGE_TIMEOUT);
    }
  }

  @Override
  public void join(String node) {
    if (nodes().contains(node) && members.add(node)) {
      sendMembers();
      awaitSettled(CHANGE_TIMEOUT);
    }
  }

  private void sendMembers() {
    NodeProcess c = process(COORDINATOR);
    if (c == null || !c.isAlive()) {
      return; // the coordinator is down: it gets the membership when it restarts
    }
    try {
      c.send("MEMBERS " + memberList());
      sent++;
    } catch (IOException e) {
      // it died just now: the restart carries the membership
    }
  }

  private void awaitSettled(Duration timeout) {
    NodeProcess c = process(COORDINATOR);
    while (done < sent && c != null && c.isAlive()) {
      c.awaitLine("DONE ", timeout);
      done++;
    }
  }

  @Override
  public Optional<Migration> startMigration(Duration timeout) {
    NodeProcess c = process(COORDINATOR);
    if (c == null || !c.isAlive()) {
      return Optional.empty();
    }
    awaitSettled(CHANGE_TIMEOUT);
    List<String> out = nodes().stream().filter(n -> !members.contains(n)).toList();
    // with copies, a member leaves only while every copy still has a member of its own to go to
    int fewest = Math.max(1, replicas);
    if (!out.isEmpty() && (members.size() <= fewest || random.nextBoolean())) {
      members.add(out.get(random.nextInt(out.size())));
    } else if (members.size() > fewest) {
      List<String> in = List.copyOf(members);
      members.remove(in.get(random.nextInt(in.size())));
    } else {
      return Optional.empty();
    }
    c.skipLines();
    sendMembers();
    try {
      // Without copies a move fences its source, then copies. With copies it changes the replica
      // list instead: the old primary streams to a joining copy, then the reconfiguration fences
      // them; REPLICAS says so as it starts (KvCoordinatorMain.replicasLine).
      if (replicas > 1) {
        String[] line = c.awaitLine("REPLICAS ", timeout).split(" ");
        return Optional.of(new Migration(Integer.parseInt(line[1]), line[2], line[3]));
      }
      String[] step = c.awaitLine("STEP FENCED ", timeout).split(" ");
      return Optional.of(new Migration(Integer.parseInt(step[2]), step[3], step[4]));
    } catch (SetupException e) {
      return Optional.empty(); // the change moved nothing, or the coordinator died
    }
  }

  @Override
  public void awaitRecovered(Duration timeout) {
    for (String n : nodes()) {
      restart(n);
    }
    restart(COORDINATOR);
    // One more round of the same membership: the coordinator rebalances (a no-op) and reconciles
    // until quiet, with every node reachable again. Its last reconcile may have run while a node
    // was cut off or paused, and nothing else would start another.
    sendMembers();
    awaitSettled(timeout);
    awaitServing(timeout);
  }

  /**
   * Waits until every partition of the committed table is OWNED by its primary, which is what
   * the final reads need. A partition that never gets there is a liveness problem of the store:
   * its state on every node is written to {@code kv-partitions.txt} in the run directory, so an
   * unread key in the results explains itself.
   */
  private void awaitServing(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> stuck = List.of();
    while (System.nanoTime() < deadline) {
      stuck = notServing();
      if (stuck.isEmpty()) {
        return;
      }
      try {
        Thread.sleep(200); // polling the nodes within a deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    try {
      Files.write(context().dir().resolve("kv-partitions.txt"), stuck);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * After recovery, every partition sits where the committed table puts it: the table's row
   * holds {@code min(replicas, members)} distinct members; on the nodes, its primary OWNS it,
   * each backup holds it as a BACKUP at the primary's epoch with as many keys, and every other
   * node holds nothing of it. A backup that rejoined late is still being levelled by its primary,
   * so the check is repeated until it holds or {@code patience} passes; what is still wrong then
   * is reported, one line per partition.
   */
  @Override
  public Optional<PlacementCheck> checkPlacement(Duration patience) {
    return Optional.of(placementWithin(patience));
  }

  /** The placement check, repeated until it holds or {@code patience} passes. */
  PlacementCheck placementWithin(Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    PlacementCheck check = placementNow();
    while (!check.ok() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200); // polling the nodes within a deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      check = placementNow();
    }
    return check;
  }

  private PlacementCheck placementNow() {
    String rule = "the committed table (" + strategy + ", " + partitions + " partitions, "
        + replicas + " cop" + (replicas == 1 ? "y" : "ies") + " on distinct members)";
    PartitionAssignment t;
    try {
      t = table();
    } catch (RuntimeException e) {
      return new PlacementCheck(rule, 0, List.of("no table: " + e.getMessage()));
    }
    Map<String, Map<Integer, PartitionStatus>> held = new TreeMap<>();
    for (String n : nodes()) {
      heldBy(n).ifPresent(answer -> held.put(n, answer));
    }
    List<String> misplaced = KvPlacementRule.misplaced(t, members, replicas, held);
    return new PlacementCheck(rule, t.partitionCount(), misplaced);
  }

  /** Partitions whose primary does not own them now, with every node's view of each. */
  private List<String> notServing() {
    PartitionAssignment t;
    try {
      t = table();
    } catch (RuntimeException e) {
      return List.of("no table: " + e.getMessage());
    }
    List<String> stuck = new ArrayList<>();
    for (int p = 0; p < t.partitionCount(); p++) {
      String primary = t.primary(p).value();
      PartitionStatus s = status(primary, p);
      if (s == null || s.state() != PartitionState.OWNED || s.epoch() > t.epoch()) {
        StringBuilder line = new StringBuilder("partition " + p + " (table epoch " + t.epoch()
            + ", primary " + primary + "):");
        for (String n : nodes()) {
          line.append(' ').append(n).append('=').append(status(n, p));
        }
        stuck.add(line.toString());
      }
    }
    return stuck;
  }

  PartitionStatus status(String node, int partition) {
    try {
      return KvClient.partitionStatus(address(node), partition, Duration.ofSeconds(2), secret);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public Client openClient() {
    KvClient client = KvClient.builder().tables(this::table)
        .addresses(id -> address(id.value())).secret(secret)
        .requestTimeout(Duration.ofSeconds(2)).retryBudget(Duration.ofSeconds(5)).build();
    return new KvRegisterClient(client);
  }

  /** The committed table, read from etcd or the store file as a client of that store does. */
  PartitionAssignment table() {
    return metadata().table()
        .orElseThrow(() -> new IllegalStateException("no table committed yet"));
  }

  /** The coordinator's metadata now: from etcd, or a copy of its store file. */
  private MetadataSnapshot metadata() {
    if (etcdTables != null) {
      return etcdTables.read();
    }
    Path copy;
    try {
      copy = runtime().fetch(COORDINATOR, storeFile); // the coordinator's host keeps it
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the coordinator's store", e);
    }
    try (MetadataStore store = MetadataStores.embedded(copy)) {
      return store.read();
    }
  }

  // ---------------------------------------------------------------- rebalancing

  @Override
  public String placement() {
    return strategy;
  }

  @Override
  public int copies() {
    return replicas;
  }

  @Override
  public OptionalInt partitions() {
    return strategy.equals("tokenring") ? OptionalInt.empty() : OptionalInt.of(partitions);
  }

  @Override
  public DataClient openDataClient() {
    return new KvDataClient(KvClient.builder().tables(this::table)
        .addresses(id -> address(id.value())).secret(secret)
        .requestTimeout(Duration.ofSeconds(2)).retryBudget(Duration.ofSeconds(10)).build());
  }

  /** Each running node's RECEIVED answer (its own counts since it started). */
  @Override
  public Map<String, Received> received() {
    Map<String, Received> out = new TreeMap<>();
    for (String n : nodes()) {
      if (!running(n)) {
        continue;
      }
      try {
        ReceivedCopies r = KvClient.receivedCopies(address(n), Duration.ofSeconds(2), secret);
        out.put(n, new Received(r.entries(), r.bytes(), r.partitions()));
      } catch (IOException | RuntimeException e) {
        // a node that does not answer is left out, as the interface says
      }
    }
    return out;
  }

  /**
   * Empty once the coordinator has converged to the membership last sent (its DONE line: every
   * migration and replica change it planned is done), no migration is pending in the metadata,
   * and the running nodes hold what the committed table says ({@link #misplaced}). The
   * membership is part of it: a row still naming a crashed node is not in place, so the answer
   * cannot be empty between a crash and the coordinator's reaction to it.
   */
  @Override
  public Optional<String> rebalancing() {
    NodeProcess c = process(COORDINATOR);
    if (c == null || !c.isAlive()) {
      return Optional.of("the coordinator is down");
    }
    if (done < sent) {
      try {
        c.awaitLine("DONE ", Duration.ofMillis(50)); // a look, not a wait: polled by the caller
        done++;
      } catch (SetupException e) {
        // not yet
      }
      if (done < sent) {
        return Optional.of("the coordinator is converging to members " + members);
      }
    }
    MetadataSnapshot snapshot;
    try {
      snapshot = metadata();
    } catch (RuntimeException e) {
      return Optional.of("no metadata: " + e.getMessage());
    }
    if (!snapshot.pending().isEmpty()) {
      return Optional.of(snapshot.pending().size() + " migration(s) pending, e.g. "
          + snapshot.pending().get(0).migration());
    }
    if (snapshot.table().isEmpty()) {
      return Optional.of("no table committed yet");
    }
    Map<String, Map<Integer, PartitionStatus>> held = new TreeMap<>();
    for (String n : nodes()) {
      if (running(n)) {
        Optional<Map<Integer, PartitionStatus>> answer = heldBy(n);
        if (answer.isEmpty()) {
          return Optional.of("node " + n + " does not answer LIST");
        }
        held.put(n, answer.get());
      }
    }
    List<String> wrong = KvPlacementRule.misplaced(snapshot.table().get(), members, replicas, held);
    if (wrong.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(wrong.size() + " partition(s) not in place, e.g. " + wrong.get(0));
  }

  /** {@code node}'s LIST answer by partition, or empty when it does not answer. */
  private Optional<Map<Integer, PartitionStatus>> heldBy(String node) {
    if (!running(node)) {
      return Optional.empty();
    }
    try (TcpNodeClient client = new TcpNodeClient(Wire.parseAddress(address(node)),
        Duration.ofSeconds(2), secret)) {
      Map<Integer, PartitionStatus> byPartition = new TreeMap<>();
      client.list().forEach(st -> byPartition.put(st.partition(), st));
      return Optional.of(byPartition);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code kill -9} of {@code node}, its data deleted, and its removal from the membership, as
   * {@link #lose} does: the kvstore has no failure detector of its own, an operator removes a
   * dead node, and the coordinator re-creates every copy it held on the others. Returns as the
   * removal is sent; {@link #rebalancing()} says when the copies are back.
   *
   * @throws IllegalArgumentException if {@code node} is not a member
   * @throws IllegalStateException if the members left would be fewer than the copies
   */
  @Override
  public String crash(String node) {
    if (!members.contains(node)) {
      throw new IllegalArgumentException("cannot crash " + node + ": not a member of " + members);
    }
    if (members.size() - 1 < replicas) {
      throw new IllegalStateException("cannot crash " + node + ": the " + (members.size() - 1)
          + " members left could not hold " + replicas + " copies");
    }
    if (strategy.equals("tokenring")) {
      throw new IllegalStateException(TOKEN_RING_LEAVE);
    }
    removeForGood(node);
    return "kill -9 " + node + ", its data deleted, removed from the members by the operator"
        + " (the kvstore has no failure detector): its copies are re-created on " + members;
  }

  @Override
  public void close() {
    if (etcdTables != null) {
      etcdTables.close();
    }
    stopProcesses();
    if (metadataCluster != null) {
      metadataCluster.close();
    }
  }

  /**
   * Plain keys and values for the bench's load: a key is its 8 big-endian bytes (as partkit
   * encodes a long), so the strategy places the key itself.
   */
  private static final class KvDataClient implements DataClient {
    private final KvClient client;

    KvDataClient(KvClient client) {
      this.client = client;
    }

    static byte[] key(long key) {
      return java.nio.ByteBuffer.allocate(Long.BYTES).putLong(key).array();
    }

    @Override
    public void put(long key, byte[] value) {
      client.put(key(key), value);
    }

    @Override
    public byte[] get(long key) {
      return client.get(key(key));
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /** One register per key: key bytes {@code k<key>}, values decimal text. */
  private static final class KvRegisterClient implements Client {
    private final KvClient client;

    KvRegisterClient(KvClient client) {
      this.client = client;
    }

    @Override
    public Outcome invoke(Operation op) {
      byte[] key = ("k" + op.key()).getBytes(UTF_8);
      try {
        switch (op.f()) {
          case Operation.READ -> {
            byte[] v = client.get(key);
            return Outcome.ok(v == null ? null : Long.valueOf(new String(v, UTF_8)));
          }
          case Operation.WRITE -> {
            client.put(key, bytes((Long) op.value()));
            return Outcome.ok(op.value());
          }
          default -> {
            Long expected = op.casExpected();
            boolean set = client.cas(key, expected == null ? null : bytes(expected),
                bytes(op.casNew()));
            return set ? Outcome.ok(op.value()) : Outcome.mismatch(op.value(), "value differs");
          }
        }
      } catch (KvException e) {
        // A read changes nothing: when it did not answer, it is a failure either way.
        boolean unknown = e.indeterminate() && !Operation.READ.equals(op.f());
        return unknown ? Outcome.info(op.value(), e.getMessage())
            : Outcome.fail(op.value(), e.getMessage());
      }
    }

    private static byte[] bytes(long v) {
      return Long.toString(v).getBytes(UTF_8);
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
