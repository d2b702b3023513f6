package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.spi.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node never serves less than it acknowledged without saying so: a log cut short, deleted or
 * replaced is told apart from a log that ends (by the reach recorded beside it), a node with no
 * other copy refuses to start naming what is missing and leaves the log as it found it, a node
 * whose partitions have copies comes back as a backup that must catch up before it may lead,
 * and a dropped torn tail is reported with its offset and size. Before the reach, a log cut to
 * half its length started silently with half the acknowledged writes gone.
 */
class LogReachTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final int P = 3;

  @TempDir Path dir;
  private final List<KvNode> nodes = new ArrayList<>();
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
  private PrintStream realErr;

  @AfterEach
  void closeNodes() {
    nodes.forEach(KvNode::close);
    if (realErr != null) {
      System.setErr(realErr);
    }
  }

  private void captureStderr() {
    realErr = System.err;
    System.setErr(new PrintStream(stderr, true, UTF_8));
  }

  private KvNode node(String name, int port) throws IOException {
    KvNode n = KvNode.start(NodeId.of(name), dir.resolve(name), port);
    nodes.add(n);
    return n;
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static TcpNodeClient client(KvNode n) {
    return (TcpNodeClient) KvNodeClient.connect(n.hostAndPort(), TIMEOUT);
  }

  /** One node owning partition P with {@code keys} acknowledged writes, then closed. */
  private Path singleCopy(int keys) throws IOException {
    try (KvNode n = KvNode.start(NodeId.of("n1"), dir.resolve("n1"), 0);
        TcpNodeClient c = client(n)) {
      c.admin(Wire.ASSIGN, P, 1);
      for (int i = 0; i < keys; i++) {
        assertThat(c.put(P, 1, b("k" + i), b("v" + i)).status()).isEqualTo(Status.OK);
      }
    }
    return dir.resolve("n1").resolve("wal.log");
  }

  private static void truncate(Path file, long length) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(length);
    }
  }

  @Test
  void aLogCutToHalfWithNoOtherCopyRefusesToStartAndIsLeftAsItWas() throws IOException {
    Path log = singleCopy(2000);
    long whole = Files.size(log);
    truncate(log, whole / 2);
    byte[] before = Files.readAllBytes(log);
    assertThatThrownBy(() -> node("n1", 0))
        .isInstanceOf(LostLogRecordsException.class)
        .hasMessageContaining(log.toString())
        .hasMessageContaining("bytes of acknowledged writes and state changes are missing")
        .hasMessageContaining("Partitions [" + P + "] have no other copy")
        .hasMessageContaining("Restore the log from a backup");
    assertThat(Files.readAllBytes(log)).as("the evidence is kept").isEqualTo(before);
    assertThat(log.resolveSibling("wal.log.tmp")).doesNotExist();
  }

  @Test
  void aDeletedLogRefusesToStart() throws IOException {
    Path log = singleCopy(10);
    Files.delete(log);
    assertThatThrownBy(() -> node("n1", 0))
        .isInstanceOf(LostLogRecordsException.class)
        .hasMessageContaining(log + " is missing");
    assertThat(log).doesNotExist();
  }

  @Test
  void anOlderCopyOfTheLogIsNotTakenForTheLog() throws IOException {
    Path log = singleCopy(10);
    Path older = dir.resolve("older.log");
    Files.copy(log, older);
    try (KvNode n = node("n1", 0); TcpNodeClient c = client(n)) {
      assertThat(c.put(P, 1, b("later"), b("x")).status()).isEqualTo(Status.OK);
    }
    nodes.clear();
    Files.copy(older, log, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertThatThrownBy(() -> node("n1", 0))
        .isInstanceOf(LostLogRecordsException.class)
        .hasMessageContaining("is not the log this node last wrote");
  }

  @Test
  void aTornTailIsDroppedSayingWhereAndHowMuch() throws IOException {
    Path log = singleCopy(100);
    long whole = Files.size(log);
    Files.write(log, new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 5, 6, 7},
        java.nio.file.StandardOpenOption.APPEND); // an unacknowledged append, cut by a crash
    captureStderr();
    try (KvNode n = node("n1", 0); TcpNodeClient c = client(n)) {
      assertThat(c.get(P, 1, b("k99")).value()).isEqualTo(b("v99"));
    }
    assertThat(stderr.toString(UTF_8))
        .contains("dropped a torn tail of " + log + " at offset " + whole + ": 11 bytes");
  }

  @Test
  void aLogFromBeforeTheReachStartsAndIsCheckedFromThenOn() throws IOException {
    Path log = singleCopy(50);
    // as an older version left it: no identity record (the first, 8 + 14 bytes), no reach
    byte[] bytes = Files.readAllBytes(log);
    Files.write(log, java.util.Arrays.copyOfRange(bytes, 22, bytes.length));
    Files.delete(LogReach.fileFor(log));
    captureStderr();
    try (KvNode n = node("n1", 0); TcpNodeClient c = client(n)) {
      assertThat(c.get(P, 1, b("k49")).value()).isEqualTo(b("v49"));
    }
    assertThat(stderr.toString(UTF_8)).contains("is from before the log reach");
    assertThat(LogReach.fileFor(log)).exists();
    truncate(log, Files.size(log) / 2);
    assertThatThrownBy(() -> node("n1", 0)).isInstanceOf(LostLogRecordsException.class);
  }

  @Test
  void aDeletedReachBesideACutLogRefusesToStartNamingTheOverride() throws IOException {
    Path log = singleCopy(2000);
    Files.delete(LogReach.fileFor(log));
    truncate(log, Files.size(log) / 2);
    byte[] before = Files.readAllBytes(log);
    assertThatThrownBy(() -> node("n1", 0))
        .isInstanceOf(LostLogRecordsException.class)
        .hasMessageContaining(LogReach.fileFor(log) + " is missing, though " + log
            + " was written with one")
        .hasMessageContaining("Partitions [" + P + "] have no other copy")
        .hasMessageContaining("start the node with --ignore-log-reach")
        .hasMessageContaining("acknowledged writes missing from it are lost for good");
    assertThat(Files.readAllBytes(log)).as("the evidence is kept").isEqualTo(before);
    assertThat(LogReach.fileFor(log)).as("and no reach made up for it").doesNotExist();
    captureStderr();
    try (KvNode n = overriding("n1"); TcpNodeClient c = client(n)) {
      assertThat(c.get(P, 1, b("k0")).value()).as("what the log holds").isEqualTo(b("v0"));
    }
    assertThat(stderr.toString(UTF_8))
        .contains("--ignore-log-reach: " + log + " is not checked against its reach ("
            + LogReach.fileFor(log) + " is missing)")
        .contains("are lost for good");
    try (KvNode n = node("n1", 0); TcpNodeClient c = client(n)) {
      assertThat(c.get(P, 1, b("k0")).value()).as("checked again from then on")
          .isEqualTo(b("v0"));
    }
  }

  @Test
  void aDamagedReachRefusesToStartNamingTheOverride() throws IOException {
    Path log = singleCopy(10);
    Files.write(LogReach.fileFor(log), new byte[96]); // both slots zeroed: no checksum holds
    assertThatThrownBy(() -> node("n1", 0))
        .isInstanceOf(LostLogRecordsException.class)
        .hasMessageContaining("the log reach " + LogReach.fileFor(log) + " is damaged")
        .hasMessageContaining("start the node with --ignore-log-reach");
    try (KvNode n = overriding("n1"); TcpNodeClient c = client(n)) {
      assertThat(c.get(P, 1, b("k9")).value()).isEqualTo(b("v9"));
    }
  }

  /** A node started with --ignore-log-reach. */
  private KvNode overriding(String name) throws IOException {
    KvNode n = TcpKvNode.start(NodeId.of(name), dir.resolve(name),
        new java.net.InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE,
        ConnectionLimits.DEFAULT, null, new io.micrometer.core.instrument.simple
            .SimpleMeterRegistry(), KvNode.REPLICA_TIMEOUT,
        KvNode.defaultSuspectAfter(KvNode.REPLICA_TIMEOUT), System.err::println, true);
    nodes.add(n);
    return n;
  }

  @Test
  void aCrashBetweenTheCompactionsRenameAndItsReachLosesNothing() throws IOException {
    Path log = singleCopy(50);
    LogReach.Mark now = LogReach.read(LogReach.fileFor(log));
    try (LogReach reach = LogReach.open(LogReach.fileFor(log))) {
      // the reach still names the log before the compaction, and the coming one as next
      reach.write(new LogReach.Mark(now.logId() ^ 1, 1 << 20, now.logId(), now.length()));
    }
    try (KvNode n = node("n1", 0); TcpNodeClient c = client(n)) {
      assertThat(c.get(P, 1, b("k49")).value()).isEqualTo(b("v49"));
    }
  }

  @Test
  void withCopiesANodeThatLostRecordsComesBackAsABackupAndCatchesUpBeforeItLeads()
      throws Exception {
    KvNode a = node("a", 0);
    int aPort = a.address().getPort();
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    ReplicaAdmin admin = new ReplicaAdmin(TIMEOUT, TIMEOUT, null);
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = client(a)) {
      for (int i = 0; i < 1000; i++) {
        assertThat(ca.put(P, 1, b("k" + i), b("v" + i)).status()).isEqualTo(Status.OK);
      }
    }
    a.close();
    nodes.remove(a);
    Path log = dir.resolve("a").resolve("wal.log");
    truncate(log, Files.size(log) / 2);

    captureStderr();
    KvNode back = node("a", aPort);
    assertThat(stderr.toString(UTF_8)).contains("Partitions [" + P + "] have copies")
        .contains("bytes of acknowledged writes and state changes are missing");
    assertThat(back.status(P).state()).isEqualTo(PartitionState.BACKUP);
    try (TcpNodeClient ca = client(back)) {
      KvReply read = ca.get(P, 1, b("k999"));
      assertThat(read.status()).as("serves nothing it may have lost: " + read)
          .isNotEqualTo(Status.OK);
    }
    // not a survivor: the others lead, it joins again, catches up, and only then leads
    List<String> all = List.of(back.hostAndPort(), b.hostAndPort(), c.hostAndPort());
    admin.reconfigure(P, 2, all, all);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (back.status(P).state() != PartitionState.OWNED && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(back.status(P).state()).isEqualTo(PartitionState.OWNED);
    try (TcpNodeClient ca = client(back)) {
      for (int i = 0; i < 1000; i++) {
        assertThat(ca.get(P, 2, b("k" + i)).value()).as("k" + i).isEqualTo(b("v" + i));
      }
    }
  }
}
