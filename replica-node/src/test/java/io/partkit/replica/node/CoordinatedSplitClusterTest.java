package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.spi.TokenRanges;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A partkit coordinator whose scheme changes, carried out on replica-core node processes by
 * {@link ReplicaMigrationExecutor}: a {@code tokenring} coordinator where a node joins (its
 * tokens cut ranges, the core splits, then ranges move to it) and a {@code range} coordinator
 * whose ranges split (later indices shift, the core's numbers do not), each under writes. Each
 * ends with the control's table as the coordinator's committed one, span for span and primary
 * for primary, and every acknowledged write read back.
 */
class CoordinatedSplitClusterTest {

  final CoordinatedClusterTest nodes = new CoordinatedClusterTest();
  final ReplicaClusterTest cluster = nodes.cluster;

  @AfterEach
  void stop() throws Exception {
    nodes.stop();
  }

  /**
   * The {@code range} strategy, its previous table first cut at {@link #cut} when that key is
   * no split key yet: both halves keep the range's replicas, as {@code RangeSplits} cuts a range
   * by measured sizes.
   */
  static final class SplittingRange extends WrappedStrategy {
    volatile byte[] cut;

    SplittingRange(PartitionerConfig config) {
      super(Partitioners.load().create("range", config));
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int replicas) {
      byte[] at = cut;
      Optional<PartitionAssignment> base = previous;
      if (at != null && previous.isPresent()
          && previous.get().scheme() instanceof KeyRanges ranges
          && ranges.splits().stream().noneMatch(s -> java.util.Arrays.equals(s, at))) {
        int p = ranges.partitionOfKey(at);
        List<List<NodeId>> rows = new ArrayList<>(previous.get().replicaTable());
        rows.add(p + 1, rows.get(p));
        base = Optional.of(PartitionAssignment.of(strategy.name(), 0,
            previous.get().membershipVersion(), ranges.withSplit(p, at), rows));
      }
      return strategy.place(view, base, replicas);
    }
  }

  /**
   * What keeps the control's table {@code t} from being the committed one: a coordinator
   * partition without a core partition of equal span, or whose primary is not the committed
   * one; null when it is, settled.
   */
  static String mismatch(PartitionAssignment committed, ReplicaClient.Table t) {
    if (!t.settled()) {
      return "unsettled: " + t.unsettled();
    }
    SortedMap<Integer, Numbering> numberings = new TreeMap<>();
    SortedMap<Integer, Integer> primaries = new TreeMap<>();
    for (ReplicaClient.Row r : t.rows()) {
      numberings.put(r.partition(), r.numbering());
      primaries.put(r.partition(), r.primary());
    }
    SpanMap map;
    try {
      map = SpanMap.of(committed.scheme(), numberings);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    if (!map.equalSpans() || numberings.size() != committed.partitionCount()) {
      return "the control's " + numberings.size() + " partitions are not the "
          + committed.partitionCount() + " of the table at epoch " + committed.epoch();
    }
    PartitionScheme scheme = committed.scheme();
    for (int i = 0; i < committed.partitionCount(); i++) {
      int core = map.cores(i).get(0);
      Numbering n = numberings.get(core);
      String span;
      String want;
      if (scheme instanceof KeyRanges ranges) {
        Bytes[] s = ((Numbering.KeySpans) n).span(core);
        byte[] upper = ranges.upperBound(i);
        span = s[0] + ".." + s[1];
        want = Bytes.of(ranges.lowerBound(i)) + ".." + (upper == null ? null : Bytes.of(upper));
      } else {
        TokenRanges ring = (TokenRanges) scheme;
        long[] s = ((Numbering.TokenSpans) n).span(core);
        span = s[0] + ".." + s[1];
        want = ring.token(i == 0 ? ring.partitionCount() - 1 : i - 1) + ".." + ring.token(i);
      }
      if (!span.equals(want)) {
        return "coordinator partition " + i + " is " + want + ", its core partition " + core
            + " " + span;
      }
      int primary = CoordinatedClusterTest.number(committed.primary(i));
      if (primaries.get(core) != primary) {
        return "coordinator partition " + i + " (core " + core + ") is led by "
            + primaries.get(core) + ", committed " + primary;
      }
    }
    return null;
  }

  /** Waits, with a generous deadline, until the control's table is {@code committed}. */
  void awaitMatches(ReplicaClient c, PartitionAssignment committed) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String why = "not read";
    while (System.nanoTime() < deadline) {
      try {
        why = mismatch(committed, c.table());
      } catch (IOException e) {
        why = "the control did not answer: " + e;
      }
      if (why == null) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the control's table is not the committed one at epoch "
        + committed.epoch() + " (" + committed.scheme() + "): " + why);
  }

  /** A client writing the keys in turn on a thread of its own until stopped. */
  final class Writer implements AutoCloseable {
    final AtomicBoolean writing = new AtomicBoolean(true);
    final AtomicReference<Throwable> failed = new AtomicReference<>();
    final Thread thread = new Thread(this::run, "writer");
    final int before = cluster.acknowledged;

    Writer() {
      thread.start();
    }

    private void run() {
      try (ReplicaClient w = new ReplicaClient(cluster.controlAddress, cluster.addresses,
          Duration.ofSeconds(2))) {
        for (long v = 1_000; writing.get(); v++) {
          cluster.write(w, v % ReplicaClusterTest.KEYS, v, Duration.ofSeconds(30));
        }
      } catch (Throwable t) {
        failed.set(t);
      }
    }

    @Override
    public void close() throws InterruptedException {
      writing.set(false);
      thread.join(TimeUnit.SECONDS.toMillis(90));
      assertThat(thread.isAlive()).as("the writer still runs").isFalse();
      assertThat(failed.get()).as("the writer").isNull();
      assertThat(cluster.acknowledged - before).as("writes acknowledged under the change")
          .isGreaterThan(0);
    }
  }

  ReplicaMigrationExecutor executor(MetadataStore store, String name) throws IOException {
    Files.createDirectories(cluster.dir);
    PrintWriter log = new PrintWriter(Files.newBufferedWriter(
        cluster.dir.resolve(name + ".log")), true);
    nodes.closing.add(log);
    ReplicaMigrationExecutor executor = nodes.executor(store).log(log::println).build();
    nodes.closing.add(executor);
    return executor;
  }

  /** Members 0..2 join and the coordinator commits its first table. */
  PartitionAssignment firstTable(ClusterCoordinator coordinator) {
    for (int i = 0; i < 3; i++) {
      coordinator.join(nodes.member(i));
    }
    coordinator.rebalance();
    return coordinator.table().orElseThrow();
  }

  /** A client, once the control carried {@code first} out, and every key written through it. */
  ReplicaClient clientWithEveryKeyWritten(PartitionAssignment first) throws Exception {
    ReplicaClient client = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(2));
    nodes.closing.add(client);
    awaitMatches(client, first);
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k, Duration.ofSeconds(30));
    }
    return client;
  }

  @Test
  void aTokenRingJoinSplitsTheCoreAndMovesRangesToTheJoinerUnderWrites() throws Exception {
    nodes.startNodes();
    MetadataStore store = MetadataStores.embedded();
    ReplicaMigrationExecutor executor = executor(store, "tokenring");
    ClusterCoordinator coordinator = Coordinators.builder().store(store)
        .strategy("tokenring", PartitionerConfig.of("vnodes", 2, "replicas", 2))
        .migrationExecutor(executor).maxConcurrentMigrations(2).build();
    nodes.closing.add(coordinator);
    PartitionAssignment first = firstTable(coordinator);
    ReplicaClient client = clientWithEveryKeyWritten(first);

    PartitionAssignment joined;
    try (Writer writer = new Writer()) {
      coordinator.join(nodes.member(3));
      RebalancePlan plan = coordinator.rebalance();
      assertThat(plan.migrations()).as("ranges move to the joiner").isNotEmpty();
      joined = coordinator.table().orElseThrow();
      assertThat(joined.partitionCount()).as("the joiner's tokens cut ranges")
          .isGreaterThan(first.partitionCount());
      assertThat(joined.primaryPartitionsOf(CoordinatedClusterTest.id(3)))
          .as("node 3 leads ranges").isNotEmpty();
      awaitMatches(client, joined);
    }
    cluster.readAll(client);

    // a leave merges ranges, which the core cannot: refused, the table stays
    coordinator.leave(CoordinatedClusterTest.id(0));
    assertThatThrownBy(coordinator::rebalance).hasMessageContaining("merge");
    assertThat(coordinator.table()).hasValue(joined);
    awaitMatches(client, joined);
  }

  @Test
  void aKeyRangeSplitShiftsTheCoordinatorsIndicesNotTheCoresUnderWrites() throws Exception {
    nodes.startNodes();
    MetadataStore store = MetadataStores.embedded();
    ReplicaMigrationExecutor executor = executor(store, "range");
    SplittingRange range = new SplittingRange(PartitionerConfig.of("partitions", 4,
        "replicas", 2));
    ClusterCoordinator coordinator = Coordinators.builder().store(store).partitioner(range)
        .migrationExecutor(executor).maxConcurrentMigrations(2).build();
    nodes.closing.add(coordinator);
    PartitionAssignment first = firstTable(coordinator);
    ReplicaClient client = clientWithEveryKeyWritten(first);

    try (Writer writer = new Writer()) {
      // every written key (0..39, 8 big-endian bytes) is in the first range: cut it at 20, and
      // a fourth node joins, so the halves and the later ranges are placed anew
      range.cut = Bytes.ofLong(20).toArray();
      coordinator.join(nodes.member(3));
      coordinator.rebalance();
      PartitionAssignment split = coordinator.table().orElseThrow();
      assertThat(split.partitionCount()).isEqualTo(5);
      assertThat(split.scheme().partitionOfLongKey(25)).as("the upper half is index 1")
          .isEqualTo(1);
      awaitMatches(client, split);
      // a second cut, inside the upper half: indices shift again
      range.cut = Bytes.ofLong(30).toArray();
      coordinator.rebalance();
      PartitionAssignment again = coordinator.table().orElseThrow();
      assertThat(again.partitionCount()).isEqualTo(6);
      awaitMatches(client, again);
      ReplicaClient.Table t = client.table();
      assertThat(t.route(35).orElseThrow().partition())
          .as("keys from 30 on: the core partition split off twice").isEqualTo(4 + 8);
    }
    cluster.readAll(client);
  }

  /**
   * {@code ReplicaCoordinatorMain} runs {@code range} and {@code tokenring} coordinators: their
   * first tables settle and serve; {@code split P} is refused, naming why; a token ring's leave
   * (a merge) fails its rebalance and the process goes on.
   */
  @ParameterizedTest
  @ValueSource(strings = {"range", "tokenring"})
  void theCoordinatorProcessRunsRangeAndTokenRingTables(String strategy) throws Exception {
    nodes.startNodes();
    List<String> args = new ArrayList<>(List.of("--store", "file:"
        + cluster.dir.resolve("store.json"), "--nodes", cluster.list(cluster.addresses),
        "--control", cluster.list(List.of(cluster.controlAddress)), "--replicas", "2",
        "--strategy", strategy, "--step-timeout-ms", "60000"));
    args.addAll(strategy.equals("range") ? List.of("--partitions", "4")
        : List.of("--vnodes", "2"));
    cluster.control = cluster.spawn("coordinator", ReplicaCoordinatorMain.class, args);
    cluster.control.await("REPLICA SETTLED", Duration.ofSeconds(90));
    ReplicaClient client = new ReplicaClient(cluster.controlAddress, cluster.addresses,
        Duration.ofSeconds(2));
    nodes.closing.add(client);
    int partitions = strategy.equals("range") ? 4 : 2 * CoordinatedClusterTest.NODES;
    assertThat(client.table().partitions()).isEqualTo(partitions);
    for (long k = 0; k < ReplicaClusterTest.KEYS; k++) {
      cluster.write(client, k, k, Duration.ofSeconds(30));
    }
    cluster.send(cluster.control, "split 1");
    assertThat(cluster.control.await("REPLICA SPLIT", Duration.ofSeconds(30)))
        .startsWith("REPLICA SPLIT REFUSED 1: the coordinator has no operation that splits");
    if (strategy.equals("tokenring")) {
      cluster.send(cluster.control, "leave 3");
      assertThat(cluster.control.await("REPLICA REBALANCE", Duration.ofSeconds(60)))
          .startsWith("REPLICA REBALANCE FAILED").contains("merge");
    }
    cluster.readAll(client);
    assertThat(client.table().partitions()).isEqualTo(partitions);
  }
}
