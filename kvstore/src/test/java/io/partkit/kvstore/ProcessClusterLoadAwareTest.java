package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.LoadPlan;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.kvstore.client.KvClient;
import io.partkit.replica.node.load.LoadMeasure;
import io.partkit.kvstore.load.LoadSampler;
import io.partkit.kvstore.migration.KvMigrationExecutor;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.spi.Member;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.PartitionerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load-aware rebalancing end to end on the real store: three node processes, a coordinator in
 * this JVM with the real {@code fixed} strategy and {@link KvMigrationExecutor}, and a {@link
 * LoadSampler} reading the nodes' load view as the coordinator's load source. A seeded workload
 * makes one node's partitions take 90% of the requests; the dry run must show that and plan
 * moves, the rebalance must move hot partitions off that node, fresh traffic measured under the
 * new table must be balanced, every acknowledged write must be at its new owner, and a second
 * plan must make no load move.
 */
class ProcessClusterLoadAwareTest {

  private static final int PARTITIONS = 12;
  private static final long SEED = 1414L;
  private static final int REQUESTS = 3000;
  private static final double THRESHOLD = 1.25;
  /** Loads of the hot node's four partitions, hottest first; every other partition has COLD. */
  private static final double[] HOT = {6, 5, 4, 3};
  private static final double COLD = 0.25;
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private ProcessCluster cluster;
  private MetadataStore store;
  private KvMigrationExecutor executor;
  private ClusterCoordinator coordinator;
  private KvClient client;
  /** Set once the first table exists (a client needs one); until then the source has nothing. */
  private volatile LoadSampler sampler;

  @AfterEach
  void stop() {
    if (coordinator != null) {
      coordinator.close();
    }
    if (executor != null) {
      executor.close();
    }
    if (client != null) {
      client.close();
    }
    if (store != null) {
      store.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void hotPartitionsMoveOffTheHotNodeAndTheMeasuredLoadEvensOut(@TempDir Path dir)
      throws Exception {
    String seed = "seed " + SEED;
    SplittableRandom random = new SplittableRandom(SEED);
    cluster = new ProcessCluster(dir, PARTITIONS);
    List<String> ids = List.of("n1", "n2", "n3");
    cluster.startNodes(ids.toArray(String[]::new));
    Map<NodeId, String> addresses = new HashMap<>();
    ids.forEach(id -> addresses.put(NodeId.of(id), cluster.address(NodeId.of(id))));

    store = MetadataStores.embedded();
    executor = KvMigrationExecutor.builder().addresses(addresses::get).nodes(addresses::keySet)
        .maxConcurrentMigrations(2).requestTimeout(Duration.ofSeconds(10))
        .stepTimeout(Duration.ofSeconds(60)).build();
    coordinator = Coordinators.builder().store(store)
        .strategy("fixed", PartitionerConfig.of("partitions", PARTITIONS, "replicas", 1))
        .minClusterSize(1).heartbeatTimeout(Duration.ofHours(1)).migrationExecutor(executor)
        .maxConcurrentMigrations(2)
        .loadSource(table -> sampler == null ? Optional.empty() : sampler.loads(table))
        .maxLoadMoves(8).loadImbalanceThreshold(THRESHOLD).build();
    for (String id : ids) {
      coordinator.join(new Member(NodeId.of(id), addresses.get(NodeId.of(id)), 1, "", ""));
    }
    RebalancePlan first = coordinator.rebalance();
    assertThat(first.load()).map(LoadPlan::applied).contains(false);
    PartitionAssignment initial = store.read().table().orElseThrow();
    executor.assignInitial(initial);
    client = KvClient.builder().tables(() -> store.read().table().orElseThrow())
        .addresses(addresses::get).retryBudget(Duration.ofSeconds(60)).build();
    sampler = LoadSampler.of(client::load, LoadMeasure.OPS_PER_SECOND);

    // The hot node: the primary of partition 0. Its four partitions get HOT, the rest COLD.
    NodeId hotNode = initial.primary(0);
    double[] weights = new double[PARTITIONS];
    int h = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      weights[p] = initial.primary(p).equals(hotNode) ? HOT[h++] : COLD;
    }
    assertThat(h).as("fixed gives each of 3 nodes 4 of 12 partitions").isEqualTo(HOT.length);
    int hottest = 0;
    List<List<String>> keys = keysPerPartition(initial);
    Map<String, String> acked = new LinkedHashMap<>();

    sampler.sample(); // the base of the rate
    double[] requestsA = drive(random, weights, keys, acked, "a");
    PartitionLoads measuredBefore = sampler.sample();
    assertThat(measuredBefore.describes(initial)).as(seed).isTrue();
    Map<NodeId, Double> before = perNode(initial, measuredBefore);
    double beforeMaxOverMean = maxOverMean(before);
    assertThat(max(before)).as("%s: the hot node under %s", seed, before).isEqualTo(hotNode);
    assertThat(beforeMaxOverMean).as("%s: max/mean before, %s", seed, before)
        .isGreaterThan(2.0);

    // The dry run shows the imbalance and the moves, and changes nothing.
    RebalancePlan dryRun = coordinator.plan();
    LoadPlan planned = dryRun.load().orElseThrow();
    System.out.printf("dry run (%s): %s%n", seed, planned.reason());
    assertThat(planned.applied()).as("%s: %s", seed, planned.reason()).isTrue();
    assertThat(planned.before().orElseThrow().maxOverMean()).as(seed)
        .isCloseTo(beforeMaxOverMean, within(1e-6));
    assertThat(planned.moves()).as("%s: %s", seed, planned.reason()).isPositive();
    assertThat(dryRun.migrations()).as(seed).isNotEmpty();
    assertThat(planned.after().orElseThrow().maxOverMean()).as("%s: %s", seed, planned.reason())
        .isLessThanOrEqualTo(THRESHOLD);
    assertThat(store.read().table().orElseThrow().epoch()).isEqualTo(initial.epoch());

    // The real one: the same plan, committed, while a writer keeps writing the moving
    // partitions' keys.
    List<String> raceKeys = dryRun.migrations().stream()
        .flatMap(m -> keys.get(m.partition()).stream().limit(5)).toList();
    RebalancePlan done;
    long started;
    long writesDuring;
    try (Writer writer = new Writer(addresses, raceKeys)) {
      writer.awaitWrites(20);
      long writesBefore = writer.acked();
      started = System.nanoTime();
      done = coordinator.rebalance();
      writesDuring = writer.acked() - writesBefore;
      writer.stopAndMergeInto(acked);
    }
    PartitionAssignment moved = store.read().table().orElseThrow();
    System.out.printf("rebalance (%s): %d migrations in %d ms, epoch %d -> %d, %d writes of"
        + " the moving partitions acknowledged meanwhile%n", seed, done.migrations().size(),
        (System.nanoTime() - started) / 1_000_000, initial.epoch(), moved.epoch(),
        writesDuring);
    assertThat(writesDuring).as("%s: writes that raced the migrations", seed).isPositive();
    assertThat(moved.epoch()).as(seed).isGreaterThan(initial.epoch());
    assertThat(moved.samePlacementAs(dryRun.proposed())).as("%s: the dry run was the plan", seed)
        .isTrue();
    assertThat(moved.primary(hottest)).as("%s: the hottest partition's owner", seed)
        .isNotEqualTo(hotNode);
    double left = 0;
    double came = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      boolean was = initial.primary(p).equals(hotNode);
      boolean is = moved.primary(p).equals(hotNode);
      left += was && !is ? weights[p] : 0;
      came += is && !was ? weights[p] : 0;
    }
    assertThat(left).as("%s: load that left the hot node, over load that came", seed)
        .isGreaterThan(came);

    // The loads measured under the old table no longer apply: the next plan says so.
    assertThat(sampler.loads(moved)).as(seed).isEmpty();
    LoadPlan stale = coordinator.plan().load().orElseThrow();
    assertThat(stale.applied()).as("%s: %s", seed, stale.reason()).isFalse();

    // Fresh traffic, measured under the new table, is balanced.
    client.offer(moved);
    sampler.sample();
    double[] requestsB = drive(random, weights, keys, acked, "b");
    PartitionLoads measuredAfter = sampler.sample();
    assertThat(measuredAfter.describes(moved)).as(seed).isTrue();
    Map<NodeId, Double> after = perNode(moved, measuredAfter);
    double afterMaxOverMean = maxOverMean(after);
    System.out.printf("measured max/mean (%s): %.3f %s -> %.3f %s; the plan predicted %.3f%n",
        seed, beforeMaxOverMean, rounded(before), afterMaxOverMean, rounded(after),
        planned.after().orElseThrow().maxOverMean());
    double sentBefore = maxOverMean(perNode(initial, PartitionLoads.of(0, requestsA)));
    double sentAfter = maxOverMean(perNode(moved, PartitionLoads.of(0, requestsB)));
    System.out.printf("requests sent, max/mean (%s): round a %.3f under the old table and %.3f"
        + " under the new one; round b %.3f under the new one%n", seed, sentBefore,
        maxOverMean(perNode(moved, PartitionLoads.of(0, requestsA))), sentAfter);
    // The nodes' view measures what was sent: rates over slightly different windows per node.
    assertThat(beforeMaxOverMean).as("%s: measured against sent, before", seed)
        .isCloseTo(sentBefore, within(0.05));
    assertThat(afterMaxOverMean).as("%s: measured against sent, after", seed)
        .isCloseTo(sentAfter, within(0.05));
    assertThat(afterMaxOverMean).as("%s: measured max/mean after, %s", seed, after)
        .isLessThan(beforeMaxOverMean).isLessThanOrEqualTo(THRESHOLD)
        .isCloseTo(planned.after().orElseThrow().maxOverMean(), within(0.15));

    // Every acknowledged write is at its partition's new owner.
    assertAllAt(moved, addresses, acked, seed);
    for (Map.Entry<String, String> e : acked.entrySet()) {
      assertThat(client.get(b(e.getKey()))).as("%s: %s through the client", seed, e.getKey())
          .isEqualTo(b(e.getValue()));
    }

    // Measured again under the new table: nothing left to move for load.
    RebalancePlan again = coordinator.plan();
    LoadPlan second = again.load().orElseThrow();
    System.out.printf("second plan (%s): %s%n", seed, second.reason());
    assertThat(second.applied()).as("%s: %s", seed, second.reason()).isTrue();
    assertThat(second.moves()).as("%s: %s", seed, second.reason()).isZero();
    assertThat(again.isNoOp()).as("%s: %s", seed, again.migrations()).isTrue();
  }

  /**
   * One thread putting values round the given keys through its own client until stopped,
   * remembering each key's last acknowledged value: writes that race the migrations.
   */
  private final class Writer implements AutoCloseable {
    private final KvClient writes;
    private final Map<String, String> last = new ConcurrentHashMap<>();
    private final AtomicLong count = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean stopped;

    Writer(Map<NodeId, String> addresses, List<String> keys) {
      writes = KvClient.builder().tables(() -> store.read().table().orElseThrow())
          .addresses(addresses::get).retryBudget(DEADLINE).build();
      thread = new Thread(() -> {
        try {
          for (int i = 0; !stopped; i++) {
            String key = keys.get(i % keys.size());
            String value = "w" + i;
            writes.put(b(key), b(value));
            last.put(key, value);
            count.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      }, "racing-writer");
      thread.start();
    }

    long acked() {
      return count.get();
    }

    /** Waits (a condition, with a deadline) until {@code n} writes were acknowledged. */
    void awaitWrites(long n) throws InterruptedException {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (count.get() < n && failure.get() == null && System.nanoTime() < deadline) {
        thread.join(10);
      }
      assertThat(count.get()).as("writes acknowledged before the rebalance; failure %s",
          failure.get()).isGreaterThanOrEqualTo(n);
    }

    /** Stops the thread, checks it never failed, and adds its last values to {@code acked}. */
    void stopAndMergeInto(Map<String, String> acked) throws InterruptedException {
      stopped = true;
      thread.join(DEADLINE.toMillis());
      assertThat(thread.isAlive()).as("the writer stopped").isFalse();
      assertThat(failure.get()).as("the writer's failure").isNull();
      acked.putAll(last); // its writes came after every earlier write of these keys
    }

    @Override
    public void close() throws InterruptedException {
      stopped = true;
      thread.join(DEADLINE.toMillis());
      writes.close();
    }
  }

  /** Drives REQUESTS gets and puts, partition drawn by weight; remembers acknowledged puts. */
  private double[] drive(SplittableRandom random, double[] weights, List<List<String>> keys,
      Map<String, String> acked, String round) {
    double[] requests = new double[PARTITIONS];
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    for (int i = 0; i < REQUESTS; i++) {
      double x = random.nextDouble() * total;
      int p = 0;
      while (p < weights.length - 1 && x >= weights[p]) {
        x -= weights[p];
        p++;
      }
      requests[p]++;
      List<String> inP = keys.get(p);
      String key = inP.get(random.nextInt(inP.size()));
      if (random.nextBoolean()) {
        String value = round + i;
        client.put(b(key), b(value));
        acked.put(key, value); // acknowledged: put returned
      } else {
        byte[] got = client.get(b(key));
        String expected = acked.get(key);
        assertThat(got == null ? null : new String(got, UTF_8)).as("seed %d: %s", SEED, key)
            .isEqualTo(expected);
      }
    }
    return requests;
  }

  /**
   * Reads each key from its owner under {@code table}, asking the node directly; a node that
   * is still taking a partition over answers MOVING for a moment, so this waits for OK.
   */
  private static void assertAllAt(PartitionAssignment table, Map<NodeId, String> addresses,
      Map<String, String> acked, String seed) throws IOException, InterruptedException {
    Map<NodeId, KvNodeClient> nodes = new HashMap<>();
    try {
      for (Map.Entry<String, String> e : acked.entrySet()) {
        int p = table.partitionOf(b(e.getKey()));
        NodeId owner = table.primary(p);
        KvNodeClient node = nodes.computeIfAbsent(owner,
            o -> KvNodeClient.connect(addresses.get(o), Duration.ofSeconds(10)));
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        KvReply reply = node.get(p, table.epoch(), b(e.getKey()));
        long backoffMillis = 1;
        while (reply.status() == KvReply.Status.MOVING && System.nanoTime() < deadline) {
          Thread.sleep(backoffMillis); // poll the condition, not spin on the node
          backoffMillis = Math.min(100, backoffMillis * 2);
          reply = node.get(p, table.epoch(), b(e.getKey()));
        }
        assertThat(reply.status()).as("%s: %s on %s, partition %d: %s", seed, e.getKey(),
            owner, p, reply).isEqualTo(KvReply.Status.OK);
        assertThat(reply.value()).as("%s: %s on %s", seed, e.getKey(), owner)
            .isEqualTo(b(e.getValue()));
      }
    } finally {
      nodes.values().forEach(KvNodeClient::close);
    }
  }

  private static List<List<String>> keysPerPartition(PartitionAssignment table) {
    List<List<String>> keys = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      keys.add(new ArrayList<>());
    }
    for (int i = 0; keys.stream().anyMatch(k -> k.size() < 40); i++) {
      String key = "load-" + i;
      List<String> inP = keys.get(table.partitionOf(b(key)));
      if (inP.size() < 40) {
        inP.add(key);
      }
    }
    return keys;
  }

  /** Load per node: each partition's load on its primary, as the planner counts it. */
  private static Map<NodeId, Double> perNode(PartitionAssignment table, PartitionLoads loads) {
    Map<NodeId, Double> perNode = new TreeMap<>();
    table.nodes().forEach(n -> perNode.put(n, 0.0));
    for (int p = 0; p < table.partitionCount(); p++) {
      perNode.merge(table.primary(p), loads.load(p), Double::sum);
    }
    return perNode;
  }

  private static double maxOverMean(Map<NodeId, Double> perNode) {
    double total = perNode.values().stream().mapToDouble(Double::doubleValue).sum();
    return perNode.get(max(perNode)) / (total / perNode.size());
  }

  private static NodeId max(Map<NodeId, Double> perNode) {
    return perNode.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  private static Map<NodeId, Long> rounded(Map<NodeId, Double> perNode) {
    Map<NodeId, Long> r = new TreeMap<>();
    perNode.forEach((n, l) -> r.put(n, Math.round(l)));
    return r;
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }
}
