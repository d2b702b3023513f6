package io.partkit.replica.node;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.replica.Message.Outcome;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.test.support.LatencySamples;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * One live move of a partition holding 100k keys while clients write, on two replica-core nodes
 * over loopback TCP, driven as a partkit coordinator drives them ({@link
 * ReplicaMigrationExecutor}: migrate, commit the table, activate). Everything runs in this JVM:
 * the figures include the clients competing with the nodes for the CPU.
 *
 * <p>It loads 100k keys into partition 0 (of 8, one copy each, partition 0 and the even ones on
 * node {@code src}, the odd ones on {@code dst}), moves partition 1 to {@code src} and back to
 * warm the path up, starts client threads doing 50% puts and 50% gets on seeded random keys of
 * all partitions, measures for 5 s, then moves partition 0 to {@code dst}. In the core {@code
 * migrate} copies the partition to the target as a joining backup while the source goes on
 * serving, and completes once it is level; the activation of the committed table then makes the
 * target primary at a new epoch. It reports:
 *
 * <ul>
 *   <li>the longest gap between two operations on partition 0 answered OK during the move: how
 *       long the partition, as its clients saw it, served nothing;
 *   <li>p50/p99/max latency of client operations before the move and during it, for all
 *       partitions and for the moving one (retries of refused requests included);
 *   <li>the whole move: from {@code migrate} until the activation completed (the target leads,
 *       the control's state is durable and the target took its configuration), and of it
 *       {@code migrate} (the copy and the level) and the activation (the handover).
 * </ul>
 *
 * <pre>
 * ./mvnw -q -o -pl replica-node -am test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath
 * java -Xmx512m -cp replica-node/target/test-classes:replica-node/target/classes:$(cat \
 *     replica-node/target/test.classpath) io.partkit.replica.node.MoveBenchmark \
 *     [keys=100000] [clients=16] [seed=42]
 * </pre>
 */
public final class MoveBenchmark {

  private static final int PARTITIONS = 8;
  private static final HashSlots SCHEME = HashSlots.of(PARTITIONS);
  private static final NodeId SRC = NodeId.of("src");
  private static final NodeId DST = NodeId.of("dst");
  private static final Duration OP_TIMEOUT = Duration.ofSeconds(30);
  /** The control's log line of a new configuration of partition 0; the group is what it says. */
  private static final java.util.regex.Pattern CONFIGURED =
      java.util.regex.Pattern.compile("control: partition 0 (epoch .*)");

  /** A configuration the control made, {@code what} it is, at {@code nanos}. */
  private record Configured(long nanos, String what) {}

  private MoveBenchmark() {}

  /** Moves {@code partition} to {@code to} as the coordinator would: migrate, then commit. */
  private static PartitionAssignment move(ReplicaMigrationExecutor executor,
      PartitionAssignment table, int partition, NodeId to) throws Exception {
    Migration m = new Migration(partition, table.replicas(partition), List.of(to),
        table.epoch() + 1);
    executor.migrate(m).toCompletableFuture().get(10, TimeUnit.MINUTES);
    List<List<NodeId>> next = new ArrayList<>(table.replicaTable());
    next.set(partition, List.of(to));
    PartitionAssignment committed = PartitionAssignment.of("fixed", m.targetEpoch(), 0, SCHEME,
        next);
    executor.activate(committed).toCompletableFuture().get(1, TimeUnit.MINUTES);
    return committed;
  }

  /** {@code count} keys {@code prefix-i} of {@code partition}. */
  private static List<byte[]> keysOf(int partition, String prefix, int count) {
    List<byte[]> keys = new ArrayList<>(count);
    for (int i = 0; keys.size() < count; i++) {
      byte[] k = (prefix + i).getBytes(UTF_8);
      if (SCHEME.partitionOfKey(k) == partition) {
        keys.add(k);
      }
    }
    return keys;
  }

  /** Writes every key of {@code keys} from 32 clients, so that group commit batches them. */
  private static void load(List<byte[]> keys, ClientFactory clients) {
    List<CompletableFuture<Void>> loads = new ArrayList<>();
    for (int t = 0; t < 32; t++) {
      int from = t;
      loads.add(CompletableFuture.runAsync(() -> {
        try (ReplicaClient c = clients.open()) {
          for (int i = from; i < keys.size(); i += 32) {
            ReplicaClient.BytesResult r = c.put(keys.get(i), ("v" + i).getBytes(UTF_8));
            if (r.outcome() != Outcome.OK) {
              throw new IllegalStateException("loading key " + i + ": " + r);
            }
          }
        }
      }));
    }
    CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)).join();
  }

  /** A new client of the cluster, one per thread. */
  @FunctionalInterface
  private interface ClientFactory {
    ReplicaClient open();
  }

  public static void main(String[] args) throws Exception {
    int keys = LatencySamples.arg(args, "keys", 100_000);
    int clients = LatencySamples.arg(args, "clients", 16);
    long seed = LatencySamples.arg(args, "seed", 42);
    Path dir = Files.createTempDirectory("partkit-move-bench");
    List<InetSocketAddress> nodes = List.of(
        new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()),
        new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort()));
    InetSocketAddress control = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    List<ReplicaNode> started = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      started.add(ReplicaNode.node(i, nodes, List.of(control), dir.resolve("node-" + i),
          ReplicaNodeMain.TIMING, Wal.COMPACT_BYTES, ConnectionPolicy.OPEN, line -> { }));
    }
    // the control's configurations of partition 0, timed: where the move's steps fall
    java.util.Queue<Configured> configured = new java.util.concurrent.ConcurrentLinkedQueue<>();
    ReplicaMigrationExecutor executor = ReplicaMigrationExecutor.builder()
        .node(SRC, nodes.get(0)).node(DST, nodes.get(1)).control(control).replicas(1)
        .data(dir.resolve("control")).timing(ReplicaNodeMain.TIMING).log(line -> {
          java.util.regex.Matcher c = CONFIGURED.matcher(line);
          if (c.matches()) {
            configured.add(new Configured(System.nanoTime(), c.group(1)));
          }
        }).build();
    List<List<NodeId>> replicas = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      replicas.add(List.of(p % 2 == 0 ? SRC : DST));
    }
    PartitionAssignment table = PartitionAssignment.of("fixed", 1, 0, SCHEME, replicas);
    executor.activate(table).toCompletableFuture().get(1, TimeUnit.MINUTES);
    ClientFactory factory = () -> new ReplicaClient(control, nodes, OP_TIMEOUT);

    List<byte[]> moving = keysOf(0, "key-", keys);
    long loadStart = System.nanoTime();
    load(moving, factory);
    System.out.printf("loaded %d keys into partition 0 in %.1f s%n", keys,
        (System.nanoTime() - loadStart) / 1e9);

    // Warm-up: a node of a running cluster has moved partitions before; in a fresh JVM the
    // first move loads the classes of every step of its path.
    load(keysOf(1, "warm-", 250), factory);
    table = move(executor, table, 1, SRC);
    table = move(executor, table, 1, DST);

    LatencySamples before = new LatencySamples();
    LatencySamples during = new LatencySamples();
    LatencySamples duringMoving = new LatencySamples();
    LatencySamples servedMoving = new LatencySamples();
    LatencySamples servedBefore = new LatencySamples(); // the same, before the move
    AtomicBoolean moveRunning = new AtomicBoolean();
    AtomicBoolean moveDone = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong failures = new AtomicLong();
    java.util.Queue<String> failed = new java.util.concurrent.ConcurrentLinkedQueue<>();
    AtomicLong moveStartedAt = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    Predicate<byte[]> inPartition0 = k -> SCHEME.partitionOfKey(k) == 0;
    for (int t = 0; t < clients; t++) {
      SplittableRandom random = new SplittableRandom(seed + t);
      Thread thread = new Thread(() -> {
        try (ReplicaClient c = factory.open()) {
          while (!stop.get()) {
            boolean inMoving = random.nextInt(PARTITIONS) == 0;
            byte[] key = inMoving ? moving.get(random.nextInt(moving.size()))
                : ("other-" + random.nextInt(1_000_000)).getBytes(UTF_8);
            inMoving |= inPartition0.test(key);
            boolean running = moveRunning.get() && !moveDone.get();
            boolean idle = !moveRunning.get();
            long start = System.nanoTime();
            ReplicaClient.BytesResult r = random.nextBoolean()
                ? c.put(key, "x".getBytes(UTF_8)) : c.get(key);
            long end = System.nanoTime();
            if (r.outcome() != Outcome.OK) {
              if (failures.incrementAndGet() <= 3) {
                failed.add(String.format("%s at %.1f ms after migrate began: %s", r.outcome(),
                    (end - moveStartedAt.get()) / 1e6, r.why()));
              }
              continue;
            }
            if (idle) {
              before.add(end - start);
              if (inMoving) {
                servedBefore.add(end);
              }
            } else if (running) {
              during.add(end - start);
              if (inMoving) {
                duringMoving.add(end - start);
                servedMoving.add(end);
              }
            }
          }
        }
      }, "bench-client-" + t);
      threads.add(thread);
      thread.start();
    }
    TimeUnit.SECONDS.sleep(5); // the measurement window before the move (a benchmark, not a test)

    Migration m = new Migration(0, List.of(SRC), List.of(DST), table.epoch() + 1);
    moveRunning.set(true);
    long moveStart = System.nanoTime();
    moveStartedAt.set(moveStart);
    executor.migrate(m).toCompletableFuture().get(10, TimeUnit.MINUTES);
    long ready = System.nanoTime();
    List<List<NodeId>> next = new ArrayList<>(table.replicaTable());
    next.set(0, List.of(DST));
    table = PartitionAssignment.of("fixed", m.targetEpoch(), 0, SCHEME, next);
    long activating = System.nanoTime();
    executor.activate(table).toCompletableFuture().get(1, TimeUnit.MINUTES);
    long carried = System.nanoTime();
    TimeUnit.SECONDS.sleep(1); // operations after the cut-over count to the move too
    moveDone.set(true);
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    System.out.printf("move of partition 0 (%d keys): longest gap between operations on it "
        + "answered OK %.1f ms (in the 5 s before the move: %.1f ms); whole move %.0f ms: "
        + "migrate (copy, level, durable) %.0f ms, activate (handover) %.0f ms%n", keys,
        servedMoving.longestGap() / 1e6, servedBefore.longestGap() / 1e6,
        (carried - moveStart) / 1e6, (ready - moveStart) / 1e6, (carried - activating) / 1e6);
    long[] served = servedMoving.sorted();
    for (int i = 1; i < served.length; i++) {
      if (served[i] - served[i - 1] == servedMoving.longestGap()) {
        System.out.printf("  the gap: from %.1f to %.1f ms after migrate began%n",
            (served[i - 1] - moveStart) / 1e6, (served[i] - moveStart) / 1e6);
      }
    }
    for (Configured c : configured) {
      if (c.nanos() >= moveStart) {
        System.out.printf("  partition 0 configured, %s: %.1f ms after migrate began%n", c.what(),
            (c.nanos() - moveStart) / 1e6);
      }
    }
    System.out.println("client ops before the move:            " + before.summary());
    System.out.println("client ops during the move (all):      " + during.summary());
    System.out.println("client ops during the move (moving p): " + duringMoving.summary());
    long[] b = before.sorted();
    long[] d = during.sorted();
    if (b.length > 0 && d.length > 0) {
      System.out.printf("p99 during / before: %.2fx%n",
          (double) LatencySamples.at(d, 0.99) / LatencySamples.at(b, 0.99));
    }
    System.out.println("failed client ops: " + failures.get() + " (" + clients + " clients)");
    failed.forEach(f -> System.out.println("  " + f));
    executor.close();
    for (ReplicaNode n : started) {
      n.close();
    }
  }
}
