package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Outcome;
import io.partkit.replica.node.ReplicaClusterTest.Proc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node process whose one partition is larger than a log record ({@link Codec#MAX_FRAME}, 16
 * MiB) and whose log is larger than the heap it restarts with: the start reads the log a record
 * at a time, compacts it to a checkpoint in pages, and serves every acknowledged value; so does
 * the start after, from the paged checkpoint.
 */
class LargePartitionRestartTest {

  private static final int KEYS = 20;
  private static final int VALUE_BYTES = 1 << 20;
  /** Each key is written this often: the log holds every write, the partition the last ones. */
  private static final int ROUNDS = 3;
  /** The heap of the restarts: less than the log's bytes, which a start once read whole. */
  private static final int RESTART_HEAP_MIB = 48;
  private static final long SEED = 11;

  private final Path dir = Path.of("target", "large-partition-" + System.nanoTime());
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (Process p : processes) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    // its logs of tens of MiB: the processes' own logs stay for a look
    try (var files = Files.walk(dir.resolve("data-0"))) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // never started
    }
  }

  private Proc spawn(String name, int heapMib, List<String> args) throws IOException {
    Proc p = ReplicaClusterTest.spawnIn(dir, name, heapMib, ReplicaNodeMain.class, args);
    processes.add(p.process());
    return p;
  }

  private static String address(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }

  private Proc startNode(InetSocketAddress node, InetSocketAddress control, int heapMib,
      List<String> flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("--role", "node", "--id", "0", "--data",
        dir.resolve("data-0").toString(), "--nodes", address(node), "--control",
        address(control)));
    args.addAll(flags);
    Proc p = spawn("n0", heapMib, args);
    p.await("REPLICA LISTENING", Duration.ofSeconds(120));
    return p;
  }

  private static byte[] key(int k) {
    return ("key-" + k).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aNodeWithAPartitionOverARecordCompactsAtStartAndServesEveryValue() throws Exception {
    InetSocketAddress node = new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    InetSocketAddress control =
        new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort());
    // never compacted while running: the log keeps every write until the restart
    Proc first = startNode(node, control, 128, List.of("--compact-bytes", "" + (1L << 40)));
    Proc controlProc = spawn("control", 64, List.of("--role", "control", "--data",
        dir.resolve("data-control").toString(), "--nodes", address(node), "--control",
        address(control), "--partitions", "1", "--replicas", "1"));
    controlProc.await("REPLICA SETTLED", Duration.ofSeconds(60));
    Random random = new Random(SEED);
    byte[][] last = new byte[KEYS][];
    try (ReplicaClient c = new ReplicaClient(control, List.of(node), Duration.ofSeconds(20))) {
      for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < KEYS; k++) {
          byte[] value = new byte[VALUE_BYTES];
          random.nextBytes(value);
          ReplicaClient.BytesResult r = put(c, key(k), value);
          assertThat(r.outcome()).as("seed %d: the put of key %d in round %d: %s", SEED, k,
              round, r.why()).isEqualTo(Outcome.OK);
          last[k] = value;
        }
      }
    }
    first.process().destroyForcibly();
    first.process().waitFor(30, TimeUnit.SECONDS);
    Path log = dir.resolve("data-0").resolve(Wal.FILE);
    long logBytes = Files.size(log);
    assertThat(logBytes).as("the log, every write of the partition, is larger than the heap")
        .isGreaterThan((long) ROUNDS * KEYS * VALUE_BYTES)
        .isGreaterThan(RESTART_HEAP_MIB << 20);

    Proc second = startNode(node, control, RESTART_HEAP_MIB, List.of());
    String nodeLog = Files.readString(dir.resolve("n0.log"));
    assertThat(nodeLog).containsPattern("node 0: log compacted from \\d+ records to \\d+")
        .doesNotContain("log not compacted");
    long compacted = Files.size(log);
    assertThat(compacted).as("the log compacted to the partition's last values")
        .isGreaterThan((long) KEYS * VALUE_BYTES).isLessThan((long) (KEYS + 2) * VALUE_BYTES);
    List<Integer> records = recordSizes(log);
    assertThat(records.size()).as("records of the compacted log").isGreaterThan(KEYS / 2);
    assertThat(records).allMatch(size -> size <= Codec.MAX_FRAME);
    readAll(control, node, last);

    // and again, from the paged checkpoint
    second.process().destroyForcibly();
    second.process().waitFor(30, TimeUnit.SECONDS);
    Proc third = startNode(node, control, RESTART_HEAP_MIB, List.of());
    readAll(control, node, last);

    // compacted while running too: the log's paged checkpoint folded with the writes after it
    // (the live state, the scratch one and a batch of records: a larger heap)
    third.process().destroyForcibly();
    third.process().waitFor(30, TimeUnit.SECONDS);
    Proc fourth = startNode(node, control, 128, List.of("--compact-bytes", "" + (8 << 20)));
    try (ReplicaClient c = new ReplicaClient(control, List.of(node), Duration.ofSeconds(20))) {
      for (int k = 0; k < KEYS; k++) {
        byte[] value = new byte[VALUE_BYTES];
        random.nextBytes(value);
        assertThat(put(c, key(k), value).outcome()).as("the put of key %d", k)
            .isEqualTo(Outcome.OK);
        last[k] = value;
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(dir.resolve("n0.log")).contains("while running")
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(Files.readString(dir.resolve("n0.log")))
        .containsPattern("node 0: log compacted from \\d+ records to \\d+ while running");
    fourth.process().destroyForcibly();
    fourth.process().waitFor(30, TimeUnit.SECONDS);
    startNode(node, control, RESTART_HEAP_MIB, List.of());
    readAll(control, node, last);
    assertThat(Files.readString(dir.resolve("n0.log"))).doesNotContain("stopping:")
        .doesNotContain("not compacted");
  }

  private static ReplicaClient.BytesResult put(ReplicaClient c, byte[] key, byte[] value)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    ReplicaClient.BytesResult r = c.put(key, value);
    // a failed or unknown put (the table not yet on the node) is put again: the same value, so
    // the key's last value is this one whichever took effect
    while (r.outcome() != Outcome.OK && System.nanoTime() < deadline) {
      Thread.sleep(50);
      r = c.put(key, value);
    }
    return r;
  }

  private static void readAll(InetSocketAddress control, InetSocketAddress node, byte[][] last)
      throws InterruptedException {
    try (ReplicaClient c = new ReplicaClient(control, List.of(node), Duration.ofSeconds(20))) {
      for (int k = 0; k < KEYS; k++) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        ReplicaClient.BytesResult r = c.get(key(k));
        while (r.outcome() != Outcome.OK && System.nanoTime() < deadline) {
          Thread.sleep(50);
          r = c.get(key(k));
        }
        assertThat(r.outcome()).as("the read of key %d: %s", k, r.why()).isEqualTo(Outcome.OK);
        assertThat(Arrays.equals(r.value(), last[k])).as("key %d holds its last value", k)
            .isTrue();
      }
    }
  }

  /** The payload size of each record of the log. */
  private static List<Integer> recordSizes(Path log) throws IOException {
    List<Integer> sizes = new ArrayList<>();
    for (io.partkit.replica.Record r : Wal.readIntact(log)) {
      sizes.add(Codec.encode(r).length);
    }
    return sizes;
  }
}
