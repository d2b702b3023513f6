package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.coordinator.VersionedValues;
import io.partkit.replica.Message.Outcome;
import io.partkit.spi.Member;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.PartitionerConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A partkit coordinator ({@code ClusterCoordinator}, the {@code fixed} strategy) deciding the
 * table of replica-core node processes through {@link ReplicaMigrationExecutor}: members join
 * and leave under writes, each rebalance's migrations are carried out by the control's safe
 * steps, the control's table ends as the coordinator's committed rows, and every acknowledged
 * write is read back.
 */
class CoordinatedClusterTest {

  static final int NODES = 4;
  static final int PARTITIONS = 8;

  /** The process helpers, writes and reads of the cluster tests, on a cluster of our own. */
  final ReplicaClusterTest cluster = new ReplicaClusterTest();
  final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    cluster.stop();
  }

  /** {@code NODES} node processes on free loopback ports, their control's address chosen. */
  void startNodes() throws Exception {
    for (int i = 0; i < NODES; i++) {
      cluster.addresses.add(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    }
    cluster.controlAddress = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    cluster.nodeControls = List.of(cluster.controlAddress);
    for (int i = 0; i < NODES; i++) {
      cluster.startNode(i);
    }
  }

  /** A coordinator's executor over the nodes, its control keeping its state in {@code store}. */
  ReplicaMigrationExecutor.Builder executor(MetadataStore store) {
    ReplicaMigrationExecutor.Builder b = ReplicaMigrationExecutor.builder()
        .control(cluster.controlAddress).replicas(2).store((VersionedValues) store)
        .stepTimeout(Duration.ofSeconds(60));
    for (int i = 0; i < NODES; i++) {
      b.node(id(i), cluster.addresses.get(i));
    }
    return b;
  }

  /** Whether {@code loads} has load on the hot partitions and none on any other. */
  static boolean onlyHot(Optional<PartitionLoads> loads, Set<Integer> hot) {
    if (loads.isEmpty()) {
      return false;
    }
    double onHot = 0;
    for (int p = 0; p < loads.get().partitionCount(); p++) {
      if (hot.contains(p)) {
        onHot += loads.get().load(p);
      } else if (loads.get().load(p) > 0) {
        return false;
      }
    }
    return onHot > 0;
  }

  static NodeId id(int node) {
    return NodeId.of("n" + node);
  }

  Member member(int node) {
    InetSocketAddress a = cluster.addresses.get(node);
    return new Member(id(node), a.getHostString() + ":" + a.getPort(), 1, "", "");
  }

  static int number(NodeId id) {
    return Integer.parseInt(id.value().substring(1));
  }

  /** The control's table as its rows' primaries, by partition. */
  static Map<Integer, Integer> primaries(ReplicaClient c) throws IOException {
    Map<Integer, Integer> p = new HashMap<>();
    c.table().rows().forEach(r -> p.put(r.partition(), r.primary()));
    return p;
  }

  /** Waits until the control's table is settled with the committed rows' primaries. */
  void awaitCarriedOut(ReplicaClient c, PartitionAssignment committed) throws Exception {
    Map<Integer, Integer> wanted = new HashMap<>();
    for (int p = 0; p < committed.partitionCount(); p++) {
      wanted.put(p, number(committed.primary(p)));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    Map<Integer, Integer> seen = Map.of();
    String unsettled = "";
    while (System.nanoTime() < deadline) {
      ReplicaClient.Table t;
      try {
        t = c.table();
      } catch (IOException e) {
        unsettled = ", the control did not answer: " + e;
        Thread.sleep(100);
        continue;
      }
      seen = new HashMap<>();
      for (ReplicaClient.Row r : t.rows()) {
        seen.put(r.partition(), r.primary());
      }
      if (t.settled() && seen.equals(wanted)) {
        return;
      }
      unsettled = t.settled() ? "" : ", unsettled: " + t.unsettled();
      Thread.sleep(100);
    }
    throw new AssertionError("the control's primaries " + seen + " are not the committed table's "
        + wanted + " at epoch " + committed.epoch() + unsettled);
  }

  /** With {@code range}, the table is key ranges, which the core numbers as the coordinator. */
  @ParameterizedTest
  @ValueSource(strings = {"fixed", "range"})
  void theCoordinatorsMigrationsAreCarriedOutByTheControlUnderWrites(String strategy)
      throws Exception {
    startNodes();
    MetadataStore store = MetadataStores.embedded();
    Files.createDirectories(cluster.dir);
    PrintWriter controlLog = new PrintWriter(Files.newBufferedWriter(
        cluster.dir.resolve("executor.log")), true);
    closing.add(controlLog);
    ReplicaMigrationExecutor executor = executor(store).log(controlLog::println).build();
    closing.add(executor);
    Map<NodeId, Integer> numbers = new HashMap<>();
    for (int i = 0; i < NODES; i++) {
      numbers.put(id(i), i);
    }
    // each commit's moves: the source leads and the target is a level member until the
    // activation, which hands over
    CheckedActivations checked = new CheckedActivations(executor, numbers);
    ClusterCoordinator coordinator = Coordinators.builder().store(store)
        .strategy(strategy, PartitionerConfig.of("partitions", PARTITIONS, "replicas", 2))
        .migrationExecutor(checked).maxConcurrentMigrations(2).build();
    closing.add(coordinator);
    // one member first: its table's rows have one replica; the next two members give them two
    coordinator.join(member(0));
    RebalancePlan first = coordinator.rebalance();
    assertThat(first.current()).as("the first table").isEmpty();
    assertThat(first.proposed().replicationFactor()).isEqualTo(1);
    ReplicaClient client = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(2));
    closing.add(client);
    awaitCarriedOut(client, coordinator.table().orElseThrow());
    for (int i = 1; i < 3; i++) {
      coordinator.join(member(i));
    }
    assertThat(coordinator.rebalance().proposed().replicationFactor()).isEqualTo(2);
    awaitCarriedOut(client, coordinator.table().orElseThrow());
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k, Duration.ofSeconds(30));
    }

    // the fourth node joins and then the first leaves, each rebalanced while a client writes
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicReference<Throwable> writerFailed = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try (ReplicaClient w = new ReplicaClient(cluster.controlAddress, cluster.addresses,
          Duration.ofSeconds(2))) {
        for (long v = 1_000; writing.get(); v++) {
          cluster.write(w, v % ReplicaClusterTest.KEYS, v, Duration.ofSeconds(30));
        }
      } catch (Throwable t) {
        writerFailed.set(t);
      }
    });
    writer.start();
    int before = cluster.acknowledged;
    coordinator.join(member(3));
    RebalancePlan joined = coordinator.rebalance();
    assertThat(joined.migrations()).as("the join moves partitions to node 3").isNotEmpty();
    PartitionAssignment afterJoin = coordinator.table().orElseThrow();
    assertThat(afterJoin.primaryPartitionsOf(id(3))).as("node 3 leads partitions").isNotEmpty();
    awaitCarriedOut(client, afterJoin);

    coordinator.leave(id(0));
    RebalancePlan left = coordinator.rebalance();
    assertThat(left.migrations()).as("the leave moves partitions off node 0").isNotEmpty();
    PartitionAssignment afterLeave = coordinator.table().orElseThrow();
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(afterLeave.replicas(p)).as("partition %d", p).doesNotContain(id(0));
    }
    awaitCarriedOut(client, afterLeave);
    assertThat(checked.wrong).as("activations of moves not ready, or not handed over")
        .isEmpty();
    assertThat(checked.checked.get()).as("activations that moved partitions")
        .isGreaterThanOrEqualTo(2);
    writing.set(false);
    writer.join(TimeUnit.SECONDS.toMillis(90));
    assertThat(writerFailed.get()).as("the writer").isNull();
    assertThat(cluster.acknowledged - before).as("writes acknowledged during the moves")
        .isGreaterThan(0);

    // node 0 holds nothing any more: killed, it loses no acknowledged write
    cluster.kill(0);
    cluster.readAll(client);
    assertThat(Files.readString(cluster.dir.resolve("executor.log")))
        .contains("executor: control started on");
    assertThat(client.get(0).outcome()).isEqualTo(Outcome.OK);
  }

  /** The nodes started, and the arguments of a coordinator process over them with 2 copies. */
  private List<String> coordinatorProcessArgs() throws Exception {
    startNodes();
    return List.of("--store", "file:" + cluster.dir.resolve("store.json"),
        "--nodes", cluster.list(cluster.addresses), "--control",
        cluster.list(List.of(cluster.controlAddress)), "--partitions",
        Integer.toString(PARTITIONS), "--replicas", "2", "--step-timeout-ms", "60000");
  }

  /** The coordinator process of {@code args}, settled, and every key written through a client. */
  private ReplicaClient coordinatorProcessWithEveryKeyWritten(List<String> args)
      throws Exception {
    cluster.control = cluster.spawn("coordinator", ReplicaCoordinatorMain.class, args);
    cluster.control.await("REPLICA SETTLED", Duration.ofSeconds(90));
    ReplicaClient client = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(2));
    closing.add(client);
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k, Duration.ofSeconds(30));
    }
    return client;
  }

  @Test
  void theCoordinatorProcessRebalancesOnCommandsAndRestartsFromItsStore() throws Exception {
    List<String> args = coordinatorProcessArgs();
    ReplicaClient client = coordinatorProcessWithEveryKeyWritten(args);
    cluster.send(cluster.control, "leave 3");
    assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(150)))
        .startsWith("REPLICA REBALANCED EPOCH").doesNotEndWith("MIGRATIONS 0");
    cluster.awaitSettled(client);
    assertThat(primaries(client)).as("node 3 left").doesNotContainValue(3);
    cluster.send(cluster.control, "split 1");
    assertThat(cluster.control.await("REPLICA SPLIT", Duration.ofSeconds(30)))
        .startsWith("REPLICA SPLIT REFUSED 1: the coordinator has no operation that splits");
    cluster.send(cluster.control, "leave 9");
    assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(30)))
        .isEqualTo("REPLICA REBALANCE FAILED: no node 9: the nodes are 0..3");

    // kill -9 of the coordinator, and a restart from its store: the table and the control's
    // state come back, and so does every acknowledged write. Meanwhile the nodes serve clients
    // that hold the table (written once before, the client holds the table as it is now).
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k + 50, Duration.ofSeconds(30));
    }
    cluster.control.process().destroyForcibly();
    cluster.control.process().waitFor(30, TimeUnit.SECONDS);
    int acknowledged = cluster.acknowledged;
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k + 100, Duration.ofSeconds(5));
    }
    // each write has 2 s: one a loaded machine leaves unanswered is unknown, not lost
    assertThat(cluster.acknowledged - acknowledged).as("writes acknowledged without a control")
        .isGreaterThanOrEqualTo(ReplicaClusterTest.KEYS / 2);
    cluster.control = cluster.spawn("coordinator", ReplicaCoordinatorMain.class, args);
    cluster.control.await("REPLICA LISTENING", Duration.ofSeconds(90));
    cluster.send(cluster.control, "join 3");
    assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(150)))
        .startsWith("REPLICA REBALANCED EPOCH").doesNotEndWith("MIGRATIONS 0");
    cluster.awaitSettled(client);
    assertThat(primaries(client)).as("node 3 joined again").containsValue(3);
    cluster.readAll(client);
    assertThat(Files.readString(cluster.dir.resolve("coordinator.log")))
        .contains("state read from");
  }

  /**
   * A node lost for good under a coordinator: killed, its data directory deleted, {@code forget
   * N} on the coordinator's standard input. The control counts none of its copies level, the
   * member leaves and its partitions' copies are made again on the others; a fresh, empty node
   * then joins in its place ({@code join N}) and takes copies again. Every acknowledged write
   * is read back at each step.
   */
  @Test
  void aNodeLostForGoodIsForgottenItsCopiesMadeElsewhereAndAFreshOneJoinsInItsPlace()
      throws Exception {
    List<String> args = coordinatorProcessArgs();
    ReplicaClient client = coordinatorProcessWithEveryKeyWritten(args);
    assertThat(primaries(client)).as("node 1 leads partitions before").containsValue(1);
    cluster.kill(1);
    deleteTree(cluster.dir.resolve("data-1"));
    cluster.send(cluster.control, "forget 1");
    assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(150)))
        .startsWith("REPLICA REBALANCED EPOCH").doesNotEndWith("MIGRATIONS 0");
    cluster.awaitSettled(client);
    assertThat(primaries(client)).as("node 1 is lost").doesNotContainValue(1);
    cluster.readAll(client);

    cluster.startNode(1); // an empty disk under its number
    cluster.send(cluster.control, "join 1");
    assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(150)))
        .startsWith("REPLICA REBALANCED EPOCH").doesNotEndWith("MIGRATIONS 0");
    cluster.awaitSettled(client);
    assertThat(primaries(client)).as("the fresh node 1 leads partitions again").containsValue(1);
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k + 50, Duration.ofSeconds(30));
    }
    cluster.readAll(client);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Test
  void theLoadViewLetsTheCoordinatorMoveAHotPrimaryAway() throws Exception {
    startNodes();
    MetadataStore store = MetadataStores.embedded();
    ReplicaMigrationExecutor executor = executor(store).loadWindow(Duration.ofSeconds(1))
        .log(line -> { }).build();
    closing.add(executor);
    ClusterCoordinator coordinator = Coordinators.builder().store(store)
        .strategy("fixed", PartitionerConfig.of("partitions", PARTITIONS, "replicas", 2))
        .migrationExecutor(executor).loadSource(executor.loadSource()).build();
    closing.add(coordinator);
    for (int i = 0; i < NODES; i++) {
      coordinator.join(member(i));
    }
    coordinator.rebalance();
    PartitionAssignment first = coordinator.table().orElseThrow();
    ReplicaClient client = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(2));
    closing.add(client);
    awaitCarriedOut(client, first);
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k, Duration.ofSeconds(30));
    }
    // every request goes to the partitions node 0 leads
    ReplicaClient.Table table = client.table();
    List<Long> hot = new ArrayList<>();
    Set<Integer> hotPartitions = new TreeSet<>();
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      ReplicaClient.Row r = table.route(k).orElseThrow();
      if (r.primary() == 0) {
        hot.add(k);
        hotPartitions.add(r.partition());
      }
    }
    assertThat(hotPartitions).as("partitions node 0 leads").hasSizeGreaterThanOrEqualTo(2);
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      // a client of its own: a client is for one thread at a time
      try (ReplicaClient w = new ReplicaClient(cluster.controlAddress, cluster.addresses,
          Duration.ofSeconds(2))) {
        for (long v = 1_000; writing.get(); v++) {
          cluster.write(w, hot.get((int) (v % hot.size())), v, Duration.ofSeconds(30));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    writer.start();
    try {
      // a window after the first writes: load on the hot partitions, none on any other
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Optional<PartitionLoads> loads = Optional.empty();
      while (!onlyHot(loads, hotPartitions) && System.nanoTime() < deadline) {
        Thread.sleep(100);
        loads = executor.loadSource().loads(first);
      }
      assertThat(onlyHot(loads, hotPartitions)).as("loads %s, hot %s", loads, hotPartitions)
          .isTrue();
      RebalancePlan moved = coordinator.rebalance();
      assertThat(moved.load()).as("the plan's load figures").isPresent();
      assertThat(moved.load().get().applied()).as(moved.load().get().reason()).isTrue();
      assertThat(moved.load().get().moves()).as(moved.load().get().reason()).isPositive();
      PartitionAssignment after = coordinator.table().orElseThrow();
      assertThat(hotPartitions.stream().filter(p -> number(after.primary(p)) == 0).count())
          .as("hot partitions node 0 still leads in %s", after).isLessThan(hotPartitions.size());
      awaitCarriedOut(client, after);
    } finally {
      writing.set(false);
      writer.join(TimeUnit.SECONDS.toMillis(90));
    }
    cluster.readAll(client);
  }
}
