package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.PendingMigration;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.testkit.MigrationExecutorContractKit.MigrationCluster;
import io.partkit.testkit.MigrationExecutorContractKit.WriteOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Two replica-core nodes in this JVM (they still talk over loopback TCP), the coordinator's
 * embedded metadata store and a {@link ReplicaMigrationExecutor} whose control keeps its state in
 * that store: the fixture of the migration contract kit on the cores. The coordinator's store part
 * (record, commit, abandon) is played by hand against the store, as the coordinator's wave
 * protocol does it; the kit calls the executor. A crash of the coordinator side closes the
 * executor, and with it the control; the next executor restores the control from the store.
 *
 * <p>Every partition has one copy (rows of one node, {@code replicas(1)}), the kit's simplest
 * case: a move joins the target as a second copy, levels it while the source serves, and the
 * activation hands over.
 *
 * <p>A write sent straight to a node carries no epoch in the core (a request names its partition
 * and key only; the core fences by configuration epochs between the control, primaries and
 * backups), so the kit's epoch is not sent: a node accepts a write when it is the partition's
 * primary at its configuration, whatever table the writer routed by.
 */
final class ReplicaMigrationCluster implements MigrationCluster {

  static final int PARTITIONS = 8;
  static final String RECORDED = "RECORDED";
  static final String JOINED = "JOINED";
  static final String LEVEL = "LEVEL";
  static final String COMMITTED = "COMMITTED";
  static final String SERVING = "SERVING";
  private static final List<String> STEPS = List.of(RECORDED, JOINED, LEVEL, COMMITTED, SERVING);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final List<NodeId> IDS = List.of(NodeId.of("n0"), NodeId.of("n1"));

  private final MetadataStore store;
  private final List<InetSocketAddress> addresses = new ArrayList<>();
  private final InetSocketAddress controlAddress;
  private final List<ReplicaNode> nodes = new ArrayList<>();
  private final Map<Integer, List<String>> keys = new HashMap<>();
  private final List<ClientConnection> connections =
      Collections.synchronizedList(new ArrayList<>());
  private final ThreadLocal<Map<Integer, ClientConnection>> direct =
      ThreadLocal.withInitial(HashMap::new);
  private final AtomicLong ids = new AtomicLong(1);
  private final ReplicaClient router;
  /** What the nodes and the controls logged, for a failing test's message. */
  final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
  /** Failures of a node's decision or storage path (a test's close fails on any). */
  final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private ReplicaMigrationExecutor executor;

  ReplicaMigrationCluster(MetadataStore store, Path dir) throws Exception {
    this.store = store;
    for (int i = 0; i < IDS.size(); i++) {
      addresses.add(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    }
    controlAddress = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    for (int i = 0; i < IDS.size(); i++) {
      int n = i;
      nodes.add(ReplicaNode.node(i, addresses, List.of(controlAddress), dir.resolve("node-" + i),
          ReplicaNodeMain.TIMING, Wal.COMPACT_BYTES, ConnectionPolicy.OPEN,
          line -> log.add("node " + n + ": " + line),
          (why, status) -> failures.add("node " + n + " would exit " + status + ": " + why)));
    }
    List<List<NodeId>> rows = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      rows.add(List.of(IDS.get(p % 2)));
    }
    PartitionAssignment first = PartitionAssignment.of("test", 1, 0, HashSlots.of(PARTITIONS),
        rows);
    if (!store.compareAndSetTable(MetadataStore.NO_TABLE, first)) {
      throw new IllegalStateException("the store already has a table: " + store.describe());
    }
    router = new ReplicaClient(controlAddress, addresses, TIMEOUT);
    executor = newExecutor();
    executor.activate(first).toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    awaitServing();
  }

  private ReplicaMigrationExecutor newExecutor() {
    // no kit test waits for a step to time out: the timeout only has to outlast a busy machine
    ReplicaMigrationExecutor.Builder b = ReplicaMigrationExecutor.builder()
        .control(controlAddress).replicas(1).store((VersionedValues) store)
        .stepTimeout(TIMEOUT).log(line -> log.add("executor: " + line));
    for (int i = 0; i < IDS.size(); i++) {
      b.node(IDS.get(i), addresses.get(i));
    }
    return b.build();
  }

  /** Waits until every partition's primary serves it, as its node says. */
  private void awaitServing() throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      int serving = 0;
      try {
        for (int i = 0; i < IDS.size(); i++) {
          for (Replica.Status s : router.partitions(i)) {
            if (s.role() == Role.PRIMARY && s.serving()) {
              serving++;
            }
          }
        }
        if (serving == PARTITIONS) {
          return;
        }
        last = serving + " of " + PARTITIONS + " partitions served";
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("the first table is not served within " + TIMEOUT + ": "
        + last + "\n" + String.join("\n", log));
  }

  static int number(NodeId id) {
    return IDS.indexOf(id);
  }

  @Override
  public PartitionAssignment table() {
    return store.read().table().orElseThrow();
  }

  @Override
  public MigrationExecutor executor() {
    return executor;
  }

  @Override
  public void record(Migration m) {
    long epoch = store.read().epoch();
    if (!store.recordMigrations(epoch, List.of(new PendingMigration(m, m.targetReplicas())))) {
      throw new IllegalStateException("could not record " + m + " at epoch " + epoch);
    }
  }

  @Override
  public void commit(Migration m) {
    PartitionAssignment current = table();
    List<List<NodeId>> rows = new ArrayList<>(current.replicaTable());
    rows.set(m.partition(), m.targetReplicas());
    PartitionAssignment next = PartitionAssignment.of(current.strategy(), m.targetEpoch(),
        current.membershipVersion(), current.scheme(), rows);
    if (!store.compareAndSetTable(current.epoch(), next)) {
      throw new IllegalStateException("could not commit " + m + " over epoch " + current.epoch());
    }
  }

  @Override
  public void abandon(Migration m) {
    store.clearMigrations(store.read().epoch());
  }

  /** The kit's epoch is not sent: see the class comment. */
  @Override
  public WriteOutcome write(NodeId node, int partition, long epoch, String key, String value) {
    int n = number(node);
    long id = ids.getAndIncrement();
    Request r = new Request(id, partition, Kind.PUT, Bytes.of(key.getBytes(UTF_8)), null,
        Bytes.of(value.getBytes(UTF_8)));
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    Reply reply;
    try {
      ClientConnection c = direct.get().get(n);
      if (c == null || c.isStale()) {
        c = ClientConnection.open(addresses.get(n), deadline, null);
        connections.add(c);
        direct.get().put(n, c);
      }
      reply = (Reply) c.call(new Envelope(0, n, r), id, deadline);
    } catch (IOException e) {
      direct.get().remove(n);
      throw new UncheckedIOException("a write to node " + n, e);
    }
    if (reply.outcome() == Outcome.OK) {
      return WriteOutcome.ACCEPTED;
    }
    if (reply.outcome() == Outcome.UNKNOWN) {
      // the kit has no name for a write that may have taken effect
      throw new IllegalStateException("a write to node " + n + " of partition " + partition
          + " answered UNKNOWN: " + reply.why());
    }
    // not the primary (or deposed): a redirect; any other refusal (a drained source's queued
    // request failing at the handover) never took effect and is to be retried elsewhere
    return reply.why() != null && reply.why().contains("is not the primary")
        ? WriteOutcome.REJECTED : WriteOutcome.MOVING;
  }

  @Override
  public Optional<String> read(String key) {
    ReplicaClient.BytesResult r = router.get(key.getBytes(UTF_8));
    if (r.outcome() != Outcome.OK) {
      throw new IllegalStateException("read " + key + ": " + r);
    }
    return Optional.ofNullable(r.value()).map(v -> new String(v, UTF_8));
  }

  @Override
  public synchronized String keyIn(int partition, int i) {
    List<String> list = keys.computeIfAbsent(partition, p -> new ArrayList<>());
    PartitionAssignment t = table();
    for (int j = list.isEmpty() ? 0 : Integer.parseInt(list.get(list.size() - 1).substring(4)) + 1;
        list.size() <= i; j++) {
      String k = "key-" + j;
      if (t.scheme().partitionOfKey(k.getBytes(UTF_8)) == partition) {
        list.add(k);
      }
    }
    return list.get(i);
  }

  @Override
  public List<String> recordedSteps() {
    return STEPS;
  }

  /**
   * Runs the migration to {@code step}, then closes the executor (the coordinator side dies; its
   * control stops with it) and builds a new one over the same store and nodes, not yet started:
   * the kit's {@code resume} or {@code activate} restores its control from the store.
   */
  @Override
  public void crashAfter(Migration m, String step) {
    if (!STEPS.contains(step)) {
      throw new IllegalArgumentException("no step " + step + ": the steps are " + STEPS);
    }
    record(m);
    CompletableFuture<Migration> running = executor.migrate(m).toCompletableFuture();
    try {
      if (step.equals(JOINED)) {
        awaitControl("the target to join", c -> c.configuration(m.partition()).members()
            .contains(number(m.target())));
      } else if (!step.equals(RECORDED)) {
        running.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (step.equals(COMMITTED) || step.equals(SERVING)) {
          commit(m);
        }
        if (step.equals(SERVING)) {
          executor.activate(table()).toCompletableFuture()
              .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not drive " + m + " to " + step + "\n"
          + String.join("\n", log), e);
    }
    executor.close(); // dead: its control stops, its state stays in the store
    executor = newExecutor();
  }

  @Override
  public void crashAfterCommit(Migration m) {
    crashAfter(m, COMMITTED);
  }

  /** Waits until {@code holds} of the executor's control, looked at on its thread. */
  private void awaitControl(String what, Function<Control, Boolean> holds) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (lookAtControl(holds).orElse(false)) {
        return;
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("timed out waiting for " + what);
  }

  /** {@code look} of the executor's control on its thread; empty before it started. */
  private <T> Optional<T> lookAtControl(Function<Control, T> look) throws Exception {
    CompletionStage<ReplicaNode> started = executor.startedControl();
    if (!started.toCompletableFuture().isDone()) {
      return Optional.empty();
    }
    CompletableFuture<T> seen = new CompletableFuture<>();
    started.toCompletableFuture().get().inspect(c -> {
      seen.complete(look.apply(c));
      return null;
    });
    return Optional.of(seen.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
  }

  @Override
  public String step(Migration m) {
    PartitionAssignment t = table();
    int p = m.partition();
    int target = number(m.target());
    Optional<Integer> primary;
    Optional<Boolean> member;
    Optional<Boolean> level;
    try {
      primary = lookAtControl(c -> c.primary(p));
      member = lookAtControl(c -> c.configuration(p).members().contains(target));
      level = lookAtControl(c -> c.levelMembers(p).contains(target));
    } catch (Exception e) {
      throw new IllegalStateException("cannot look at the control", e);
    }
    if (t.epoch() >= m.targetEpoch() && t.replicas(p).equals(m.targetReplicas())) {
      return primary.orElse(-1) == target ? SERVING : COMMITTED;
    }
    if (t.epoch() < m.targetEpoch() && member.orElse(false)) {
      return level.orElse(false) ? LEVEL : JOINED;
    }
    boolean pending = store.read().pending().stream()
        .anyMatch(pm -> pm.migration().equals(m));
    return pending ? RECORDED : "ROLLED_BACK";
  }

  @Override
  public void close() {
    executor.close();
    router.close();
    synchronized (connections) {
      connections.forEach(ClientConnection::close);
    }
    nodes.forEach(ReplicaNode::close);
    store.close();
    if (!failures.isEmpty()) {
      throw new AssertionError("nodes failed: " + failures);
    }
  }
}
