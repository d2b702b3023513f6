package io.partkit.kvstore.migration;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.PendingMigration;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.testkit.MigrationExecutorContractKit.MigrationCluster;
import io.partkit.testkit.MigrationExecutorContractKit.WriteOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Two {@link KvNode}s in this JVM (they still talk over TCP), a metadata store, and a
 * {@link KvMigrationExecutor}: the fixture of the migration contract kit. The coordinator's store
 * part (record, commit, abandon) is played by hand against the store, exactly as the
 * coordinator's wave protocol does it; the kit calls the executor. The executor only gets the
 * nodes' addresses: it never reads the store.
 */
final class InProcessMigrationCluster implements MigrationCluster {

  static final int PARTITIONS = 8;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final List<String> STEPS = List.of(MigrationStep.PLANNED.name(),
      MigrationStep.PRECOPIED.name(), MigrationStep.FENCED.name(), MigrationStep.COPIED.name(),
      MigrationStep.COMMITTED.name(),
      MigrationStep.SOURCE_DROPPED.name());

  private final MetadataStore store;
  private final List<KvNode> nodes = new ArrayList<>();
  private final Map<NodeId, String> addresses = new HashMap<>();
  private final Map<Integer, List<String>> keys = new HashMap<>();
  private final ThreadLocal<Map<NodeId, KvNodeClient>> clients =
      ThreadLocal.withInitial(HashMap::new);
  private final List<KvNodeClient> allClients = new ArrayList<>();
  private final KvClient router;
  private KvMigrationExecutor executor;

  InProcessMigrationCluster(MetadataStore store, Path dir) throws IOException {
    this.store = store;
    for (String id : List.of("n1", "n2")) {
      KvNode node = KvNode.start(NodeId.of(id), dir.resolve(id), 0);
      nodes.add(node);
      addresses.put(node.id(), node.hostAndPort());
      store.putMember(Member.of(id).withAddress(node.hostAndPort()), Duration.ofHours(1));
    }
    List<List<NodeId>> replicas = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      replicas.add(List.of(nodes.get(p % 2).id()));
    }
    PartitionAssignment first = PartitionAssignment.of("test", 1, 0, HashSlots.of(PARTITIONS),
        replicas);
    if (!store.compareAndSetTable(MetadataStore.NO_TABLE, first)) {
      throw new IllegalStateException("the store already has a table: " + store.describe());
    }
    executor = newExecutor((m, s) -> { });
    executor.assignInitial(first);
    router = KvClient.builder().tables(() -> store.read().table().orElseThrow())
        .addresses(addresses::get).retryBudget(Duration.ofSeconds(30)).build();
  }

  private KvMigrationExecutor newExecutor(
      java.util.function.BiConsumer<Migration, MigrationStep> listener) {
    // no kit test waits for a step to time out: the timeout only has to outlast a busy machine
    return KvMigrationExecutor.builder().addresses(addresses::get)
        .stepTimeout(Duration.ofSeconds(30)).onStep(listener).build();
  }

  @Override
  public PartitionAssignment table() {
    return store.read().table().orElseThrow();
  }

  @Override
  public MigrationExecutor executor() {
    return executor;
  }

  KvMigrationExecutor kvExecutor() {
    return executor;
  }

  @Override
  public void record(Migration m) {
    long epoch = store.read().epoch();
    if (!store.recordMigrations(epoch, List.of(new PendingMigration(m, List.of(m.target()))))) {
      throw new IllegalStateException("could not record " + m + " at epoch " + epoch);
    }
  }

  @Override
  public void commit(Migration m) {
    PartitionAssignment current = table();
    List<List<NodeId>> replicas = new ArrayList<>(current.replicaTable());
    replicas.set(m.partition(), List.of(m.target()));
    PartitionAssignment next = PartitionAssignment.of(current.strategy(), m.targetEpoch(),
        current.membershipVersion(), current.scheme(), replicas);
    if (!store.compareAndSetTable(current.epoch(), next)) {
      throw new IllegalStateException("could not commit " + m + " over epoch " + current.epoch());
    }
  }

  @Override
  public void abandon(Migration m) {
    store.clearMigrations(store.read().epoch());
  }

  private KvNodeClient client(NodeId node) {
    return clients.get().computeIfAbsent(node, n -> {
      KvNodeClient c = KvNodeClient.connect(addresses.get(n), TIMEOUT);
      synchronized (allClients) {
        allClients.add(c);
      }
      return c;
    });
  }

  @Override
  public WriteOutcome write(NodeId node, int partition, long epoch, String key, String value) {
    try {
      KvReply r = client(node).put(partition, epoch, bytes(key), bytes(value));
      return switch (r.status()) {
        case OK -> WriteOutcome.ACCEPTED;
        case MOVING -> WriteOutcome.MOVING;
        case REDIRECT -> WriteOutcome.REJECTED;
        default -> throw new IllegalStateException("write to " + node + ": " + r);
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Optional<String> read(String key) {
    byte[] v = router.get(bytes(key));
    return Optional.ofNullable(v).map(b -> new String(b, StandardCharsets.UTF_8));
  }

  @Override
  public synchronized String keyIn(int partition, int i) {
    List<String> list = keys.computeIfAbsent(partition, p -> new ArrayList<>());
    PartitionAssignment t = table();
    for (int j = list.isEmpty() ? 0 : Integer.parseInt(list.get(list.size() - 1).substring(4)) + 1;
        list.size() <= i; j++) {
      String k = "key-" + j;
      if (t.partitionOf(k) == partition) {
        list.add(k);
      }
    }
    return list.get(i);
  }

  @Override
  public List<String> recordedSteps() {
    return STEPS;
  }

  @Override
  public void crashAfter(Migration m, String step) {
    MigrationStep target = MigrationStep.valueOf(step);
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch crashed = new CountDownLatch(1);
    AtomicReference<KvMigrationExecutor> doomed = new AtomicReference<>();
    boolean beforeCommit = target.compareTo(MigrationStep.COMMITTED) < 0;
    KvMigrationExecutor old = executor;
    old.close();
    doomed.set(newExecutor((mig, s) -> {
      if (s == target && mig.partition() == m.partition()) {
        reached.countDown();
        awaitQuietly(crashed); // hold the "coordinator" here until it is declared dead
      }
    }));
    record(m);
    var running = doomed.get().migrate(m).toCompletableFuture();
    try {
      if (beforeCommit) {
        await(reached, step);
      } else {
        running.get(30, TimeUnit.SECONDS); // up to COPIED
        commit(m); // the coordinator commits, then dies before activating or after the drop
        if (target == MigrationStep.SOURCE_DROPPED) {
          doomed.get().activate(table()); // never completes: the listener holds it
          await(reached, step);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not drive " + m + " to " + step, e);
    }
    doomed.get().close(); // dead: from now on it issues no node operation
    crashed.countDown();
    executor = newExecutor((mig, s) -> { });
  }

  @Override
  public void crashAfterCommit(Migration m) {
    crashAfter(m, MigrationStep.COMMITTED.name());
  }

  private static void await(CountDownLatch latch, String step) throws InterruptedException {
    if (!latch.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("step " + step + " not reached in 30 s");
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String step(Migration m) {
    return executor.step(m, table()).name();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    executor.close();
    router.close();
    synchronized (allClients) {
      allClients.forEach(KvNodeClient::close);
    }
    nodes.forEach(KvNode::close);
    store.close();
  }

}
