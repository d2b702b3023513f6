package io.partkit.kvstore.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.client.KvException;
import io.partkit.kvstore.node.BenchNodes;
import io.partkit.kvstore.node.KvNode;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the per-partition meters and the hot-key sketch cost: closed-loop clients against one
 * node over loopback TCP (in this JVM), in rounds that alternate a node without metrics and one
 * with them (a fresh node and data directory each round, the same seeded keys), after one
 * warm-up round of each that is not counted. It prints each round's throughput and latency and
 * the median throughput of each kind; then the CPU time the metering alone takes per request,
 * without network or log, which a loaded machine's noise does not hide.
 *
 * <pre>
 * ./mvnw -q -o -pl kvstore -am test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath
 * java -Xmx256m \
 *     -cp kvstore/target/test-classes:kvstore/target/classes:$(cat kvstore/target/test.classpath) \
 *     io.partkit.kvstore.bench.MetricsOverheadBenchmark [clients=8] [rounds=4] [seconds=5]
 *     [writes=50] [seed=42]
 * </pre>
 * {@code writes} is the percentage of puts (the rest are gets); with 0 no request waits for the
 * log's force, so the meters' share of the CPU shows most.
 */
public final class MetricsOverheadBenchmark {

  private static final int PARTITIONS = 8;
  private static final int KEYS = 10_000;

  private MetricsOverheadBenchmark() {}

  /** One round's figures. */
  private record Round(boolean metered, double opsPerSecond, double p50Ms, double p99Ms,
      long failures) {}

  public static void main(String[] args) throws Exception {
    int clients = arg(args, "clients", 8);
    int rounds = arg(args, "rounds", 4);
    int seconds = arg(args, "seconds", 5);
    int writes = arg(args, "writes", 50);
    long seed = arg(args, "seed", 42);
    Path dir = Files.createTempDirectory("partkit-metrics-bench");
    System.out.printf("%d clients, %d%% puts, %d s rounds, seed %d%n", clients, writes, seconds,
        seed);
    List<Round> counted = new ArrayList<>();
    for (int r = -1; r < rounds; r++) { // round -1: warm-up of both kinds, not counted
      for (boolean metered : new boolean[] {false, true}) {
        Round round = round(dir.resolve("r" + (r + 1) + (metered ? "-on" : "-off")), metered,
            clients, seconds, writes, seed + Math.max(r, 0));
        System.out.printf("%s metrics %-3s %9.0f ops/s  p50 %6.3f ms  p99 %6.3f ms%s%n",
            r < 0 ? "warm-up" : "round " + (r + 1), metered ? "on" : "off", round.opsPerSecond,
            round.p50Ms, round.p99Ms, round.failures == 0 ? ""
                : "  (" + round.failures + " failed)");
        if (r >= 0) {
          counted.add(round);
        }
      }
    }
    double off = median(counted, false);
    double on = median(counted, true);
    System.out.printf("median throughput: metrics off %.0f ops/s, on %.0f ops/s: %+.1f%%%n",
        off, on, (on / off - 1) * 100);
    for (int i = 0; i < 3; i++) { // the first runs include the JIT's compiling
      System.out.printf("metering alone (one thread, no network): %.0f ns per request%n",
          BenchNodes.meteringNanosPerRequest(2_000_000, seed));
    }
  }

  private static Round round(Path dir, boolean metered, int clients, int seconds, int writes,
      long seed) throws Exception {
    try (KvNode node = BenchNodes.startOwning(NodeId.of("n1"), dir, PARTITIONS, metered)) {
      List<List<NodeId>> owners = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        owners.add(List.of(node.id()));
      }
      PartitionAssignment table = PartitionAssignment.of("bench", 1, 0,
          HashSlots.of(PARTITIONS), owners);
      try (KvClient client = KvClient.builder().tables(() -> table)
          .addresses(id -> node.hostAndPort()).build()) {
        byte[][] keys = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
          keys[i] = ("key-" + i).getBytes(UTF_8);
        }
        // reads find a value; many writers, so that group commit batches the log's forces
        List<Thread> loaders = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
          int from = t;
          Thread loader = new Thread(() -> {
            for (int i = from; i < KEYS; i += 32) {
              client.put(keys[i], "0123456789abcdef".getBytes(UTF_8));
            }
          }, "bench-loader-" + t);
          loaders.add(loader);
          loader.start();
        }
        for (Thread loader : loaders) {
          loader.join();
        }
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        long[][] latencies = new long[clients][];
        int[] counts = new int[clients];
        long[] failures = new long[clients];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < clients; t++) {
          int me = t;
          SplittableRandom random = new SplittableRandom(seed * 31 + t);
          latencies[me] = new long[1 << 16];
          Thread thread = new Thread(() -> {
            byte[] value = "fedcba9876543210".getBytes(UTF_8);
            while (!stop.get()) {
              byte[] key = keys[random.nextInt(KEYS)];
              boolean put = random.nextInt(100) < writes;
              long start = System.nanoTime();
              try {
                if (put) {
                  client.put(key, value);
                } else {
                  client.get(key);
                }
              } catch (KvException e) {
                failures[me]++;
                continue;
              }
              if (measuring.get()) {
                if (counts[me] == latencies[me].length) {
                  latencies[me] = Arrays.copyOf(latencies[me], counts[me] * 2);
                }
                latencies[me][counts[me]++] = System.nanoTime() - start;
              }
            }
          }, "bench-client-" + t);
          threads.add(thread);
          thread.start();
        }
        TimeUnit.SECONDS.sleep(1); // the clients settle before the window (a benchmark)
        measuring.set(true);
        long start = System.nanoTime();
        TimeUnit.SECONDS.sleep(seconds);
        measuring.set(false);
        long took = System.nanoTime() - start;
        stop.set(true);
        for (Thread t : threads) {
          t.join();
        }
        int total = 0;
        for (int c : counts) {
          total += c;
        }
        long[] all = new long[total];
        int at = 0;
        long failed = 0;
        for (int t = 0; t < clients; t++) {
          System.arraycopy(latencies[t], 0, all, at, counts[t]);
          at += counts[t];
          failed += failures[t];
        }
        Arrays.sort(all);
        return new Round(metered, total * 1e9 / took, at(all, 0.50) / 1e6, at(all, 0.99) / 1e6,
            failed);
      }
    }
  }

  private static long at(long[] sorted, double q) {
    return sorted.length == 0 ? 0
        : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  private static double median(List<Round> rounds, boolean metered) {
    double[] ops = rounds.stream().filter(r -> r.metered == metered)
        .mapToDouble(Round::opsPerSecond).sorted().toArray();
    int n = ops.length;
    return n % 2 == 1 ? ops[n / 2] : (ops[n / 2 - 1] + ops[n / 2]) / 2;
  }

  private static int arg(String[] args, String name, int defaultValue) {
    for (String a : args) {
      if (a.startsWith(name + "=")) {
        return Integer.parseInt(a.substring(name.length() + 1));
      }
    }
    return defaultValue;
  }
}
