package io.partkit.kvstore.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.PendingMigration;
import io.partkit.kvstore.StoreWiring;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.KvException;
import io.partkit.kvstore.migration.KvMigrationExecutor;
import io.partkit.kvstore.migration.MigrationStep;
import io.partkit.kvstore.node.KvNode;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.test.support.LatencySamples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One live migration of a partition holding 100k keys while clients write, on two nodes over
 * loopback TCP (in this JVM: the numbers include the clients competing with the nodes for CPU).
 *
 * <p>It loads 100k keys into partition 0 (of 8, all on node {@code src}), moves a small
 * partition to {@code src} and back to warm the path up (a node of a running cluster has moved
 * partitions before), starts client threads doing 50% puts and 50% gets on seeded random keys of
 * all partitions, measures for a while, then migrates partition 0 to node {@code dst} as the
 * coordinator would (record, migrate, commit, activate). It reports the fenced window (from
 * sending FENCE to the source until the target serves: an upper bound of the time the partition
 * refused writes, which starts when the source applies the fence), the longest gap between two
 * operations on partition 0 answered OK from the move's start until the clients stop (the window
 * as the clients saw it, which the replica core's {@code MoveBenchmark} reports too), and
 * p50/p99/max latency of client operations before the move and during it, for all partitions and
 * for the moving one.
 *
 * <pre>
 * ./mvnw -q -o -pl kvstore -am test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath
 * java -Xmx512m \
 *     -cp kvstore/target/test-classes:kvstore/target/classes:$(cat kvstore/target/test.classpath) \
 *     io.partkit.kvstore.bench.MigrationBenchmark [keys=100000] [clients=4] [seed=42]
 * </pre>
 */
public final class MigrationBenchmark {

  private static final int PARTITIONS = 8;

  private MigrationBenchmark() {}

  /** Moves {@code partition} to {@code to} as the coordinator would (warm-up moves). */
  private static PartitionAssignment move(MetadataStore store, KvMigrationExecutor executor,
      PartitionAssignment table, int partition, NodeId to) throws Exception {
    Migration m = new Migration(partition, table.primary(partition), to, table.epoch() + 1);
    store.recordMigrations(table.epoch(), List.of(new PendingMigration(m, List.of(to))));
    executor.migrate(m).toCompletableFuture().get(10, TimeUnit.MINUTES);
    List<List<NodeId>> next = new ArrayList<>(table.replicaTable());
    next.set(partition, List.of(to));
    PartitionAssignment committed = PartitionAssignment.of("bench", m.targetEpoch(), 0,
        table.scheme(), next);
    store.compareAndSetTable(table.epoch(), committed);
    executor.activate(committed).toCompletableFuture().get(1, TimeUnit.MINUTES);
    return committed;
  }

  public static void main(String[] args) throws Exception {
    int keys = LatencySamples.arg(args, "keys", 100_000);
    int clients = LatencySamples.arg(args, "clients", 4);
    long seed = LatencySamples.arg(args, "seed", 42);
    Path dir = Files.createTempDirectory("partkit-migration-bench");
    MetadataStore store = MetadataStores.embedded();
    KvNode src = KvNode.start(NodeId.of("src"), dir.resolve("src"), 0);
    KvNode dst = KvNode.start(NodeId.of("dst"), dir.resolve("dst"), 0);
    store.putMember(Member.of("src").withAddress(src.hostAndPort()), Duration.ofHours(1));
    store.putMember(Member.of("dst").withAddress(dst.hostAndPort()), Duration.ofHours(1));
    List<List<NodeId>> replicas = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      replicas.add(List.of(p == 0 ? src.id() : (p % 2 == 0 ? src.id() : dst.id())));
    }
    PartitionAssignment first = PartitionAssignment.of("bench", 1, 0, HashSlots.of(PARTITIONS),
        replicas);
    store.compareAndSetTable(MetadataStore.NO_TABLE, first);
    AtomicLong fenceSentAt = new AtomicLong();
    AtomicLong fencedAt = new AtomicLong();
    AtomicLong servingAt = new AtomicLong();
    KvMigrationExecutor executor = StoreWiring.executor(store)
        .onStep((m, step) -> {
          if (m.partition() != 0) {
            return; // a warm-up move
          }
          if (step == MigrationStep.PLANNED || step == MigrationStep.PRECOPIED) {
            fenceSentAt.set(System.nanoTime()); // the executor sends FENCE next
          } else if (step == MigrationStep.FENCED) {
            fencedAt.set(System.nanoTime());
          } else if (step == MigrationStep.COMMITTED) {
            servingAt.compareAndSet(0, System.nanoTime());
          }
        }).build();
    executor.assignInitial(first);
    KvClient client = KvClient.builder().tables(() -> store.read().table().orElseThrow())
        .addresses(id -> id.equals(src.id()) ? src.hostAndPort() : dst.hostAndPort())
        .retryBudget(Duration.ofSeconds(60)).build();
    store.watchTable(client::offer);

    // load: keys of partition 0, written by many threads so that group commit batches them
    List<byte[]> moving = new ArrayList<>(keys);
    for (int i = 0; moving.size() < keys; i++) {
      byte[] k = ("key-" + i).getBytes(UTF_8);
      if (first.partitionOf(k) == 0) {
        moving.add(k);
      }
    }
    long loadStart = System.nanoTime();
    ExecutorService loaders = Executors.newFixedThreadPool(32);
    List<CompletableFuture<Void>> loads = new ArrayList<>();
    for (int t = 0; t < 32; t++) {
      int from = t;
      loads.add(CompletableFuture.runAsync(() -> {
        for (int i = from; i < moving.size(); i += 32) {
          client.put(moving.get(i), ("v" + i).getBytes(UTF_8));
        }
      }, loaders));
    }
    CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)).join();
    loaders.shutdown();
    System.out.printf("loaded %d keys into partition 0 in %.1f s%n", keys,
        (System.nanoTime() - loadStart) / 1e9);

    // Warm-up: a node of a running cluster has moved partitions before. In a fresh JVM the first
    // move loads classes and links lambdas on every step of its path, which added milliseconds
    // to each step of the fenced window here; two moves of a small partition take that out.
    for (int i = 0; i < 2_000; i++) {
      byte[] k = ("warm-" + i).getBytes(UTF_8);
      if (first.partitionOf(k) == 1) {
        client.put(k, "w".getBytes(UTF_8));
      }
    }
    PartitionAssignment table = first;
    table = move(store, executor, table, 1, src.id());
    table = move(store, executor, table, 1, dst.id());

    LatencySamples before = new LatencySamples();
    LatencySamples during = new LatencySamples();
    LatencySamples duringMoving = new LatencySamples();
    LatencySamples servedMoving = new LatencySamples();
    LatencySamples servedBefore = new LatencySamples(); // the same, before the move
    AtomicBoolean moveRunning = new AtomicBoolean();
    AtomicBoolean moveDone = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong failures = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < clients; t++) {
      SplittableRandom random = new SplittableRandom(seed + t);
      Thread thread = new Thread(() -> {
        while (!stop.get()) {
          boolean inMoving = random.nextInt(PARTITIONS) == 0;
          byte[] key = inMoving ? moving.get(random.nextInt(moving.size()))
              : ("other-" + random.nextInt(1_000_000)).getBytes(UTF_8);
          boolean running = moveRunning.get() && !moveDone.get();
          boolean idle = !moveRunning.get();
          long start = System.nanoTime();
          try {
            if (random.nextBoolean()) {
              client.put(key, "x".getBytes(UTF_8));
            } else {
              client.get(key);
            }
          } catch (KvException e) {
            failures.incrementAndGet();
            continue;
          }
          long end = System.nanoTime();
          long took = end - start;
          if (inMoving && moveRunning.get()) {
            servedMoving.add(end); // from the move's start until the clients stop
          } else if (inMoving) {
            servedBefore.add(end);
          }
          if (idle) {
            before.add(took);
          } else if (running) {
            during.add(took);
            if (inMoving) {
              duringMoving.add(took);
            }
          }
        }
      }, "bench-client-" + t);
      threads.add(thread);
      thread.start();
    }
    TimeUnit.SECONDS.sleep(5); // the measurement window before the move (a benchmark, not a test)

    Migration m = new Migration(0, src.id(), dst.id(), table.epoch() + 1);
    long moveStart = System.nanoTime();
    moveRunning.set(true);
    store.recordMigrations(table.epoch(),
        List.of(new PendingMigration(m, List.of(dst.id()))));
    executor.migrate(m).toCompletableFuture().get(10, TimeUnit.MINUTES);
    long copied = System.nanoTime();
    List<List<NodeId>> next = new ArrayList<>(table.replicaTable());
    next.set(0, List.of(dst.id()));
    PartitionAssignment committed = PartitionAssignment.of("bench", m.targetEpoch(), 0,
        table.scheme(), next);
    store.compareAndSetTable(table.epoch(), committed);
    long tableCommitted = System.nanoTime();
    executor.activate(committed); // the coordinator's step after the commit
    while (servingAt.get() == 0) {
      Thread.onSpinWait();
    }
    moveDone.set(true);
    long moveEnd = servingAt.get();
    TimeUnit.SECONDS.sleep(1);
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    System.out.printf("migration of partition 0 (%d keys): fenced window (FENCE sent -> target "
        + "serves) %.1f ms: FENCE %.1f ms, copy of the delta %.1f ms, commit %.1f ms, activation "
        + "%.1f ms; whole move %.0f ms%n", keys, (moveEnd - fenceSentAt.get()) / 1e6,
        (fencedAt.get() - fenceSentAt.get()) / 1e6, (copied - fencedAt.get()) / 1e6,
        (tableCommitted - copied) / 1e6, (moveEnd - tableCommitted) / 1e6,
        (moveEnd - moveStart) / 1e6);
    System.out.printf("longest gap between operations on partition 0 answered OK, as the replica"
        + " core's MoveBenchmark measures it: %.1f ms (in the 5 s before the move: %.1f ms)%n",
        servedMoving.longestGap() / 1e6, servedBefore.longestGap() / 1e6);
    System.out.println("client ops before the move:            " + before.summary());
    System.out.println("client ops during the move (all):      " + during.summary());
    System.out.println("client ops during the move (moving p): " + duringMoving.summary());
    System.out.println("failed client ops: " + failures.get() + " (" + clients + " clients)");
    client.close();
    executor.close();
    src.close();
    dst.close();
    store.close();
  }
}
