package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import io.partkit.test.support.EtcdCluster;
import io.partkit.test.support.RequiresEtcd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three node processes and a control on loopback: writes and reads, {@code kill -9} of a primary
 * under writes and its restart, then {@code kill -9} of every node at once and a restart of all,
 * then {@code kill -9} of the control and its restart from its log: every acknowledged write is
 * read back from what the logs kept, and the restarted control hands out no epoch again.
 */
class ReplicaClusterTest {

  static final int NODES = 3;
  static final int PARTITIONS = 4;
  static final int KEYS = 40;

  final Path dir = Path.of("target", "cluster-" + System.nanoTime());
  final List<InetSocketAddress> addresses = new ArrayList<>();
  InetSocketAddress controlAddress;
  /** The controls a node sends to: the one control, or every control on the store. */
  List<InetSocketAddress> nodeControls;
  final Map<Integer, Proc> procs = new HashMap<>();
  Proc control;
  /** Flags every node is started with besides its addresses. */
  List<String> nodeFlags = List.of();
  /** Flags the control is started with besides its addresses and counts. */
  List<String> controlFlags = List.of();

  /** A child process and its standard output lines. */
  record Proc(Process process, LinkedBlockingQueue<String> lines) {
    String await(String prefix, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new AssertionError("no line " + prefix + " within " + timeout
              + (process.isAlive() ? "" : " (exited " + process.exitValue() + ")"));
        }
        if (line.startsWith(prefix)) {
          return line;
        }
      }
    }
  }

  /** Ports {@link #freePort} handed out in this JVM: none twice. */
  private static final java.util.Set<Integer> HANDED_OUT =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * A loopback port free now, below the kernel's ephemeral range (32768 and up on Linux): a port
   * the kernel picks (a bind to port 0) may be given to an outgoing connection of any process
   * before the node binds it, which stopped a node at start ("Address already in use").
   */
  static int freePort() throws IOException {
    java.util.concurrent.ThreadLocalRandom random =
        java.util.concurrent.ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = 20_000 + random.nextInt(12_000);
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress("127.0.0.1", port));
        return port;
      } catch (IOException taken) {
        // another process listens there: try another
      }
    }
    throw new IOException("no free loopback port in 20000..31999 after 1000 tries");
  }

  String list(List<InetSocketAddress> as) {
    return as.stream().map(a -> a.getHostString() + ":" + a.getPort())
        .collect(Collectors.joining(","));
  }

  Proc spawn(String name, List<String> args) throws IOException {
    return spawn(name, ReplicaNodeMain.class, args);
  }

  /** Starts {@code main} with {@code args}, its standard error in {@code name.log}. */
  Proc spawn(String name, Class<?> main, List<String> args) throws IOException {
    return spawnIn(dir, name, 128, main, args);
  }

  /**
   * Starts {@code main} with a heap of {@code heapMib} MiB and {@code args}, its standard error
   * in {@code dir/name.log}, its standard output read line by line.
   */
  static Proc spawnIn(Path dir, String name, int heapMib, Class<?> main, List<String> args)
      throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heapMib + "m", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-cp",
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        main.getName()));
    cmd.addAll(args);
    Files.createDirectories(dir);
    Process p = new ProcessBuilder(cmd)
        .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile()))
        .start();
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String l = r.readLine(); l != null; l = r.readLine()) {
          lines.add(l);
        }
      } catch (IOException e) {
        // the process ended
      }
    });
    t.setDaemon(true);
    t.start();
    return new Proc(p, lines);
  }

  void startNode(int i) throws Exception {
    List<String> args = new ArrayList<>(List.of("--role", "node", "--id", Integer.toString(i),
        "--data", dir.resolve("data-" + i).toString(), "--nodes", list(addresses), "--control",
        list(nodeControls)));
    args.addAll(nodeFlags);
    Proc p = spawn("n" + i, args);
    p.await("REPLICA LISTENING", Duration.ofSeconds(60));
    procs.put(i, p);
  }

  /** Starts the control from its log (empty at first) and waits until it is settled. */
  /** {@code NODES} nodes on free loopback ports and their control, with {@code replicas} copies. */
  void startCluster(int replicas) throws Exception {
    for (int i = 0; i < NODES; i++) {
      addresses.add(new InetSocketAddress("127.0.0.1", freePort()));
    }
    controlAddress = new InetSocketAddress("127.0.0.1", freePort());
    nodeControls = List.of(controlAddress);
    for (int i = 0; i < NODES; i++) {
      startNode(i);
    }
    startControl(replicas);
  }

  void startControl(int replicas) throws Exception {
    List<String> args = new ArrayList<>(List.of("--role", "control", "--data",
        dir.resolve("data-control").toString(), "--nodes", list(addresses), "--control",
        list(List.of(controlAddress)), "--replicas", Integer.toString(replicas)));
    if (!controlFlags.contains("--split-keys") && !controlFlags.contains("--tokens")) {
      args.addAll(List.of("--partitions", Integer.toString(PARTITIONS)));
    }
    args.addAll(controlFlags);
    control = spawn("control", args);
    control.await("REPLICA SETTLED", Duration.ofSeconds(60));
  }

  void kill(int i) throws Exception {
    Proc p = procs.remove(i);
    p.process().destroyForcibly(); // SIGKILL
    p.process().waitFor(30, TimeUnit.SECONDS);
  }

  /** Processes besides the nodes and {@link #control}: further controls. */
  final List<Proc> others = new ArrayList<>();

  @AfterEach
  void stop() {
    procs.values().forEach(p -> p.process().destroyForcibly());
    others.forEach(p -> p.process().destroyForcibly());
    if (control != null) {
      control.process().destroyForcibly();
    }
  }

  void awaitSettled(ReplicaClient client) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    String last = "";
    while (System.nanoTime() < deadline) {
      try {
        ReplicaClient.Table t = client.table();
        if (t.settled()) {
          return;
        }
        last = t.unsettled();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(100);
    }
    throw new AssertionError("not settled: " + last);
  }

  /** Values each key may hold: the last acknowledged write's and any unknown one's since. */
  final Map<Long, Set<Long>> allowed = new HashMap<>();
  volatile int acknowledged;

  void write(ReplicaClient c, long key, long value, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      ReplicaClient.Result r = c.put(key, value);
      if (r.outcome() == Outcome.OK) {
        allowed.put(key, new HashSet<>(Set.of(value)));
        acknowledged++;
        return;
      }
      if (r.outcome() == Outcome.UNKNOWN) {
        allowed.computeIfAbsent(key, k -> new HashSet<>(java.util.Collections.singleton(null)))
            .add(value);
        return;
      }
      Thread.sleep(20);
    }
  }

  void readAll(ReplicaClient c) throws InterruptedException {
    for (long k = 0; k < KEYS; k++) {
      ReplicaClient.Result r = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        r = c.get(k);
        if (r.outcome() == Outcome.OK) {
          break;
        }
        Thread.sleep(20);
      }
      assertThat(r.outcome()).as("read of key " + k + ": " + r).isEqualTo(Outcome.OK);
      assertThat(allowed.get(k)).as("key " + k).contains(r.value());
    }
  }

  @Test
  void acknowledgedWritesSurviveKillsOfPrimariesAndOfEveryNode() throws Exception {
    startCluster(3);
    try (ReplicaClient c = new ReplicaClient(controlAddress, addresses,
        Duration.ofSeconds(3))) {
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100, Duration.ofSeconds(30));
      }
      assertThat(acknowledged).as("writes acknowledged on a calm cluster").isEqualTo(KEYS);
      readAll(c);
      ReplicaClient.Result cas = c.cas(0, 0L, 7);
      assertThat(cas.outcome()).as(cas.toString()).isEqualTo(Outcome.OK);
      allowed.put(0L, new HashSet<>(Set.of(7L)));
      ReplicaClient.Result mismatch = c.cas(0, 0L, 8);
      assertThat(mismatch.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(mismatch.mismatch()).isTrue();

      // kill -9 the primary of key 1's partition while writing
      failoverUnderWrites(c, 1, 1);
      assertThat(c.table().partitions()).as("the table after a failover").isEqualTo(PARTITIONS);

      // every node at once: what was acknowledged must come back from the logs
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100 + 2, Duration.ofSeconds(30));
      }
      killAndRestartEveryNode();
      awaitSettled(c);
      readAll(c);

      // the control, killed under writes and restarted from its log, then a primary's failover
      List<Long> before = epochs(c);
      control.process().destroyForcibly();
      control.process().waitFor(30, TimeUnit.SECONDS);
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100 + 3, Duration.ofSeconds(30));
      }
      startControl(3);
      awaitSettled(c); // the client's connection to the killed control is found broken first
      assertNoEpochWentBack(before, epochs(c), "the control's restart");
      failoverUnderWrites(c, 2, 4);
    }
    assertThat(Files.readString(dir.resolve("control.log"))).contains("records replayed")
        .containsPattern("control: log compacted from \\d+ records to 1\\b");
    for (int i = 0; i < NODES; i++) {
      // every node restarted with writes in its log: it started again from its checkpoint, and
      // the reads after each restart found every acknowledged write in it
      assertThat(Files.readString(dir.resolve("n" + i + ".log"))).as("node %d's log", i)
          .contains("log compacted from");
    }
    assertThat(acknowledged).as("acknowledged writes checked").isGreaterThan(4 * KEYS);
  }

  /** {@code kill -9} of every node at once, then a restart of each from its log. */
  void killAndRestartEveryNode() throws Exception {
    for (int i = 0; i < NODES; i++) {
      kill(i);
    }
    for (int i = 0; i < NODES; i++) {
      startNode(i);
    }
  }

  /** Each partition's epoch in the control's table now. */
  static List<Long> epochs(ReplicaClient c) throws IOException {
    return c.table().rows().stream().map(ReplicaClient.Row::epoch).toList();
  }

  /** No partition's epoch is below what it was before {@code what}: none was handed out twice. */
  static void assertNoEpochWentBack(List<Long> before, List<Long> after, String what) {
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(after.get(p)).as("partition %d's epoch after %s", p, what)
          .isGreaterThanOrEqualTo(before.get(p));
    }
  }

  /**
   * {@code kill -9} of the primary of {@code key}'s partition, then a write of {@code k * 100 +
   * offset} to every key while it is down: another node is made primary; then the killed node
   * restarts, the table settles and every key reads back.
   */
  void failoverUnderWrites(ReplicaClient c, long key, long offset) throws Exception {
    int failed = c.table().route(key).orElseThrow().primary();
    kill(failed);
    for (long k = 0; k < KEYS; k++) {
      write(c, k, k * 100 + offset, Duration.ofSeconds(30));
    }
    assertThat(c.table().route(key).orElseThrow().primary())
        .as("key %d's primary after node %d's kill", key, failed).isNotEqualTo(failed);
    startNode(failed);
    awaitSettled(c);
    readAll(c);
  }

  /** A control named {@code name} on {@code address} keeping its state in etcd at {@code urls}. */
  Proc storedControl(String name, InetSocketAddress address, List<String> urls)
      throws IOException {
    Proc p = spawn(name, List.of("--role", "control", "--store", "etcd:" + String.join(",",
        urls), "--name", name, "--nodes", list(addresses), "--control",
        list(List.of(address)), "--partitions", Integer.toString(PARTITIONS), "--replicas", "3"));
    others.add(p);
    return p;
  }

  /**
   * Two controls on a real etcd: the first leads, the second waits as a standby; {@code kill -9}
   * of the leader under writes, and the standby takes over from the state in etcd (after the
   * leader's lease runs out), hands out no epoch again, and every acknowledged write is read
   * back. The killed control, started again, is a standby.
   */
  @Test
  @ExtendWith(RequiresEtcd.class)
  void aStandbyControlOnEtcdTakesOverFromAKilledLeaderAndKeepsEveryWrite() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      for (int i = 0; i < NODES; i++) {
        addresses.add(new InetSocketAddress("127.0.0.1", freePort()));
      }
      controlAddress = new InetSocketAddress("127.0.0.1", freePort());
      InetSocketAddress standbyAddress = new InetSocketAddress("127.0.0.1", freePort());
      List<InetSocketAddress> controls = List.of(controlAddress, standbyAddress);
      nodeControls = controls;
      for (int i = 0; i < NODES; i++) {
        startNode(i);
      }
      Proc leader = storedControl("control", controlAddress, etcd.endpoints());
      leader.await("REPLICA SETTLED", Duration.ofSeconds(60));
      Proc standby = storedControl("control2", standbyAddress, etcd.endpoints());
      standby.await("REPLICA STANDBY control2", Duration.ofSeconds(60));
      try (ReplicaClient c = new ReplicaClient(controls, addresses, Duration.ofSeconds(3))) {
        for (long k = 0; k < KEYS; k++) {
          write(c, k, k * 100, Duration.ofSeconds(30));
        }
        assertThat(acknowledged).as("writes acknowledged on a calm cluster").isEqualTo(KEYS);
        readAll(c);
        List<Long> before = epochs(c);

        leader.process().destroyForcibly();
        leader.process().waitFor(30, TimeUnit.SECONDS);
        for (long k = 0; k < KEYS; k++) {
          write(c, k, k * 100 + 1, Duration.ofSeconds(30));
        }
        standby.await("REPLICA LISTENING", Duration.ofSeconds(60));
        awaitSettled(c);
        readAll(c);
        assertNoEpochWentBack(before, epochs(c), "the takeover");
        // a failover decided by the new leader, from the state it read
        failoverUnderWrites(c, 3, 2);

        Proc again = storedControl("control", controlAddress, etcd.endpoints());
        again.await("REPLICA STANDBY control", Duration.ofSeconds(60));
        for (long k = 0; k < KEYS; k++) {
          write(c, k, k * 100 + 3, Duration.ofSeconds(30));
        }
        readAll(c);
      }
      assertThat(Files.readString(dir.resolve("control2.log")))
          .contains("control control2: elected in")
          .containsPattern("control: state read from .* \\(version \\d+\\)");
      assertThat(acknowledged).as("acknowledged writes checked").isGreaterThan(3 * KEYS);
    }
  }

  @Test
  void aNodesLogIsCompactedWhileItRunsAndKillsAmidCompactionsKeepEveryAcknowledgedWrite()
      throws Exception {
    int compactBytes = 8 << 10; // a compaction every hundred-odd writes: kills fall amid them
    nodeFlags = List.of("--compact-bytes", Integer.toString(compactBytes));
    startCluster(3);
    long value = 0;
    try (ReplicaClient c = new ReplicaClient(controlAddress, addresses,
        Duration.ofSeconds(3))) {
      for (int round = 0; round <= NODES + 1; round++) {
        for (int pass = 0; pass < 20; pass++) {
          for (long k = 0; k < KEYS; k++) {
            write(c, k, ++value, Duration.ofSeconds(30));
          }
        }
        if (round < NODES) {
          kill(round); // kill -9 right after writes: its compaction may be at any step
          startNode(round);
        } else if (round == NODES) {
          killAndRestartEveryNode();
        }
        awaitSettled(c);
        readAll(c);
      }
    }
    for (int i = 0; i < NODES; i++) {
      assertThat(Files.readString(dir.resolve("n" + i + ".log"))).as("node %d's log", i)
          .containsPattern("node " + i + ": log compacted from \\d+ records to \\d+ while"
              + " running \\(\\d+ bytes to \\d+\\)");
      // the last 800 writes, about 50 KiB of records on every node, went to a log compacted as
      // it grew
      assertThat(Files.size(dir.resolve("data-" + i).resolve(Wal.FILE))).as("node %d's log", i)
          .isLessThan(3L * compactBytes);
    }
    assertThat(acknowledged).as("acknowledged writes checked (of 4,000)").isGreaterThan(3_000);
  }

  /** A scan of {@code [from, to)} in pages of {@code limit}, each asked until it succeeds. */
  List<ReplicaClient.Entry> scanAll(ReplicaClient c, long from, Long to, int limit)
      throws InterruptedException {
    List<ReplicaClient.Entry> all = new ArrayList<>();
    long next = from;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      ReplicaClient.ScanResult page = c.scan(next, to, limit);
      if (page.outcome() != Outcome.OK) {
        assertThat(System.nanoTime()).as("a scan page within 60 s: " + page).isLessThan(deadline);
        Thread.sleep(20);
        continue;
      }
      assertThat(page.entries().size()).isLessThanOrEqualTo(limit);
      all.addAll(page.entries());
      if (!page.more()) {
        return all;
      }
      assertThat(page.nextFrom()).isEqualTo(page.entries().get(page.entries().size() - 1).key()
          + 1);
      next = page.nextFrom();
    }
  }

  /**
   * Scans in pages, with limits, over hash slots ({@code --partitions}) and over key ranges
   * ({@code --split-keys}: cut between the small eight-byte keys, before and inside the one-byte
   * and short keys, and at the negative ones), where the client asks only the ranges a scan
   * meets, in order.
   */
  @ParameterizedTest
  @ValueSource(strings = {"--partitions", "--split-keys"})
  void aScanReturnsEveryKeyOfItsRangeOnceInUnsignedOrderAlsoAfterAFailover(String table)
      throws Exception {
    if (table.equals("--split-keys")) {
      controlFlags = List.of("--split-keys", "0000000000000005,01,0102,80");
    }
    startCluster(3);
    List<Long> keys = new ArrayList<>();
    try (ReplicaClient c = new ReplicaClient(controlAddress, addresses,
        Duration.ofSeconds(3))) {
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100, Duration.ofSeconds(30));
        keys.add(k);
      }
      for (long k : new long[] {Long.MIN_VALUE, -5, -1}) { // 0x80.., 0xff..fb, 0xff..ff: last
        write(c, k, 9, Duration.ofSeconds(30));
        keys.add(k);
      }
      assertThat(acknowledged).as("writes acknowledged on a calm cluster").isEqualTo(KEYS + 3);
      for (int limit : new int[] {1000, 7, 1}) {
        List<ReplicaClient.Entry> all = scanAll(c, 0, null, limit);
        assertThat(all).as("limit %d", limit).extracting(ReplicaClient.Entry::key)
            .containsExactlyElementsOf(keys);
        assertThat(all).allSatisfy(e -> assertThat(allowed.get(e.key())).contains(e.value()));
      }
      ReplicaClient.ScanResult first = c.scan(10, 20L, 4);
      assertThat(first.entries()).extracting(ReplicaClient.Entry::key)
          .containsExactly(10L, 11L, 12L, 13L);
      assertThat(first.more()).isTrue();
      assertThat(scanAll(c, 10, 20L, 4)).extracting(ReplicaClient.Entry::key)
          .containsExactlyElementsOf(keys.subList(10, 20));
      assertThat(c.scan(-5, null, 10).entries()).extracting(ReplicaClient.Entry::key)
          .containsExactly(-5L, -1L);

      // kill -9 the primary of key 1's partition: the scan is refused or unanswered until the
      // control fails the partition over, then complete again
      kill(c.table().route(1).orElseThrow().primary());
      List<ReplicaClient.Entry> after = scanAll(c, 0, null, 16);
      assertThat(after).extracting(ReplicaClient.Entry::key).containsExactlyElementsOf(keys);
      assertThat(after).allSatisfy(e -> assertThat(allowed.get(e.key())).contains(e.value()));

      // keys of other lengths through the byte-string methods, between 0x01 and 0x02, where no
      // eight-byte key of this test is: written, read, swapped, and scanned in pages
      List<byte[]> byteKeys = List.of(new byte[] {1}, new byte[] {1, 2}, new byte[] {1, 2, 0},
          new byte[] {1, (byte) 0xff});
      for (byte[] k : byteKeys) {
        assertThat(untilOk(() -> c.put(k, new byte[] {k[k.length - 1], 7})).outcome())
            .isEqualTo(Outcome.OK);
      }
      assertThat(untilOk(() -> c.get(new byte[] {1, 2})).value()).containsExactly(2, 7);
      assertThat(untilOk(() -> c.get(new byte[] {1, 3})).value()).as("absent").isNull();
      ReplicaClient.BytesResult wrong = c.cas(new byte[] {1, 2}, new byte[] {9}, new byte[] {8});
      assertThat(wrong.mismatch()).as("%s", wrong).isTrue();
      assertThat(untilOk(() -> c.cas(new byte[] {1, 2}, new byte[] {2, 7}, new byte[] {8}))
          .outcome()).isEqualTo(Outcome.OK);
      assertThat(untilOk(() -> c.get(new byte[] {1, 2})).value()).containsExactly(8);
      ReplicaClient.BytesScanResult page = c.scan(new byte[] {1}, new byte[] {2}, 3);
      assertThat(page.entries()).extracting(ReplicaClient.BytesEntry::key)
          .containsExactlyElementsOf(byteKeys.subList(0, 3));
      assertThat(page.more()).isTrue();
      assertThat(page.nextFrom()).as("the last key and a zero byte").containsExactly(1, 2, 0, 0);
      ReplicaClient.BytesScanResult rest = c.scan(page.nextFrom(), new byte[] {2}, 3);
      assertThat(rest.entries()).extracting(ReplicaClient.BytesEntry::key)
          .containsExactly(byteKeys.get(3));
      assertThat(rest.more()).isFalse();
      assertThat(rest.nextFrom()).as("nothing left").isNull();
    }
  }

  /** Asks again until the answer is OK, for at most 60 s: the last answer. */
  static ReplicaClient.BytesResult untilOk(Supplier<ReplicaClient.BytesResult> ask)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      ReplicaClient.BytesResult r = ask.get();
      if (r.outcome() == Outcome.OK || System.nanoTime() > deadline) {
        return r;
      }
      Thread.sleep(20);
    }
  }

  void send(Proc p, String line) throws IOException {
    p.process().getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    p.process().getOutputStream().flush();
  }

  /**
   * {@code split-all} on the control's standard input while a client writes: every partition
   * splits, the table doubles, the client's requests follow the keys to the new partitions, and
   * every acknowledged write is read back, also after every node is killed and restarted from
   * its log (which now holds Split records). A line that is no command, a split of an unknown
   * partition and a cut given to hash halves are answered with errors and the control goes on.
   */
  @Test
  void splitsWhileAClientWritesKeepEveryAcknowledgedWrite() throws Exception {
    startCluster(2);
    try (ReplicaClient c = new ReplicaClient(controlAddress, addresses, Duration.ofSeconds(3))) {
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100, Duration.ofSeconds(30));
      }
      send(control, "split banana");
      send(control, "split 99");
      assertThat(control.await("REPLICA SPLIT", Duration.ofSeconds(30)))
          .startsWith("REPLICA SPLIT REFUSED 99: no partition 99 in the table");
      send(control, "split 0 at 0a");
      assertThat(control.await("REPLICA SPLIT", Duration.ofSeconds(30)))
          .startsWith("REPLICA SPLIT REFUSED 0: hash halves split by one more bit of the hash"
              + " and take no cut");
      java.util.concurrent.atomic.AtomicBoolean writing =
          new java.util.concurrent.atomic.AtomicBoolean(true);
      int before = acknowledged;
      Thread writer = new Thread(() -> {
        try (ReplicaClient w = new ReplicaClient(controlAddress, addresses,
            Duration.ofSeconds(3))) {
          for (long v = 1; writing.get(); v++) {
            for (long k = 0; k < KEYS && writing.get(); k++) {
              write(w, k, k * 100 + v, Duration.ofSeconds(30));
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      writer.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (acknowledged < before + 3 && System.nanoTime() < deadline) {
        Thread.sleep(10); // until the writer is under way
      }
      send(control, "split-all");
      List<String> splits = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        splits.add(control.await("REPLICA SPLIT", Duration.ofSeconds(30)));
      }
      assertThat(splits.get(PARTITIONS - 1)).as(splits.toString())
          .isEqualTo("REPLICA SPLIT " + (PARTITIONS - 1) + " INTO " + (2 * PARTITIONS - 1)
              + " MODULUS " + 2 * PARTITIONS + " PARTITIONS " + 2 * PARTITIONS);
      awaitSettled(c);
      int split = acknowledged;
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (acknowledged < split + 2 * KEYS && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      writing.set(false);
      writer.join();
      assertThat(acknowledged).as("writes acknowledged after the split")
          .isGreaterThanOrEqualTo(split + 2 * KEYS);
      ReplicaClient.Table t = c.table();
      assertThat(t.partitions()).as("the table doubled").isEqualTo(2 * PARTITIONS);
      assertThat(java.util.stream.LongStream.range(0, KEYS)
          .map(k -> t.route(k).orElseThrow().partition()).filter(p -> p >= PARTITIONS).count())
          .as("keys that moved to the new partitions").isPositive();
      readAll(c);

      killAndRestartEveryNode();
      awaitSettled(c);
      readAll(c);
    }
    assertThat(Files.readString(dir.resolve("control.log")))
        .contains("standard input: not a partition number in 'split banana': expected");
    StringBuilder events = new StringBuilder();
    for (int i = 0; i < NODES; i++) {
      events.append(Files.readString(dir.resolve("n" + i + ".log")));
    }
    for (int p = 0; p < PARTITIONS; p++) {
      // each copy's split is one event line of the node that holds it, naming the partition
      assertThat(events).as("the nodes' event lines")
          .containsPattern("node \\d partition " + p + ": split at modulus " + 2 * PARTITIONS
              + ", keys moved to partition " + (p + PARTITIONS));
    }
    assertThat(events).containsPattern("node \\d partition 0 epoch \\d+: configured primary, ");
    for (int i = 0; i < NODES; i++) {
      // the split partitions came back from checkpoints, and every acknowledged write with them
      assertThat(Files.readString(dir.resolve("n" + i + ".log"))).as("node %d's log", i)
          .contains("log compacted from");
    }
  }

  /**
   * A node's log put back to an older copy while it is down (a backup restored over it: intact,
   * at a record boundary, shorter than what the node made durable): the node finds it short of
   * its reach, sets it aside and starts empty under a new incarnation, so the control counts its
   * copies lost and copies them afresh. Its copies then hold every key's last acknowledged value,
   * none the older one its short log held, and so do reads after a primary's kill.
   */
  @Test
  void aNodeWhoseLogComesBackShorterThanItsReachServesNothingOfIt() throws Exception {
    startCluster(3);
    try (ReplicaClient c = new ReplicaClient(controlAddress, addresses,
        Duration.ofSeconds(3))) {
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100, Duration.ofSeconds(30));
      }
      int node = c.table().route(0).orElseThrow().primary();
      Path log = dir.resolve("data-" + node).resolve(Wal.FILE);
      byte[] backup = atARecordBoundary(Files.readAllBytes(log));
      for (long k = 0; k < KEYS; k++) {
        write(c, k, k * 100 + 1, Duration.ofSeconds(30));
      }
      assertThat(acknowledged).as("writes acknowledged on a calm cluster").isEqualTo(2 * KEYS);
      kill(node);
      byte[] made = Files.readAllBytes(log);
      assertThat(backup.length).as("the older copy is shorter").isLessThan(made.length);
      assertThat(java.util.Arrays.copyOf(made, backup.length)).as("and a prefix of the log")
          .isEqualTo(backup);
      Files.write(log, backup);
      startNode(node);
      awaitSettled(c);
      String nodeLog = Files.readString(dir.resolve("n" + node + ".log"));
      assertThat(nodeLog).contains("when last made durable").contains("set aside as "
          + Wal.FILE + ".short-1").contains("starting empty under a new incarnation");
      assertThat(Files.readAllBytes(log.resolveSibling(Wal.FILE + ".short-1")))
          .as("the short log, kept for an operator").isEqualTo(backup);
      readAll(c);
      // what the node holds now, level again (each of the three holds every partition): the
      // copies it was sent afresh, none of the older values its short log held
      Map<Long, Long> held = new HashMap<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (held.size() < KEYS && System.nanoTime() < deadline) {
        Thread.sleep(100);
        held.clear();
        for (io.partkit.replica.Record r : StoredReplica.checkpoint(log, node)) {
          if (r instanceof io.partkit.replica.Record.Checkpoint cp) {
            cp.data().forEach((k, v) -> held.put(k.toLong(), v.toLong()));
          }
        }
      }
      assertThat(held.keySet()).as("keys node %d holds within 90 s", node).hasSize(KEYS);
      awaitSettled(c);
      held.forEach((k, v) -> assertThat(allowed.get(k)).as("node %d's copy of key %d", node, k)
          .contains(v));
      // and it serves them: its peers' copies gone, the partitions fail over to it
      List<Integer> primaries = c.table().rows().stream().map(ReplicaClient.Row::primary)
          .filter(p -> p != node).toList();
      if (!primaries.isEmpty()) {
        kill(primaries.get(0));
      }
      readAll(c);
    }
  }

  /** The log's bytes up to the end of its last whole record (an append may be under way). */
  static byte[] atARecordBoundary(byte[] log) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(log);
    int end = 0;
    while (end + Wal.HEADER <= log.length && b.getInt(end) == Wal.MAGIC) {
      int next = end + Wal.HEADER + b.getInt(end + 4);
      if (next > log.length) {
        break;
      }
      end = next;
    }
    return java.util.Arrays.copyOf(log, end);
  }

  @Test
  void aNodeRefusesToStartFromALogDamagedBeforeIntactRecords() throws Exception {
    Path data = dir.resolve("data-0");
    Wal.Opened o = Wal.open(data, n -> {}, e -> {});
    o.wal().append(List.of(WalTest.written(1), WalTest.written(2)));
    o.wal().close();
    Path file = data.resolve(Wal.FILE);
    byte[] b = Files.readAllBytes(file);
    b[Wal.HEADER + 20] ^= 0x01;
    Files.write(file, b);
    addresses.add(new InetSocketAddress("127.0.0.1", freePort()));
    controlAddress = new InetSocketAddress("127.0.0.1", freePort());
    Proc p = spawn("n0", List.of("--role", "node", "--id", "0", "--data", data.toString(),
        "--nodes", list(addresses), "--control", list(List.of(controlAddress))));
    assertThat(p.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.process().exitValue()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("n0.log"))).contains("refusing to start")
        .contains("intact record follows");
  }
}
