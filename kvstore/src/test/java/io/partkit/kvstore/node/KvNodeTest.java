package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class KvNodeTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void servesOnlyOwnedPartitionsAtOrAboveTheOwnerEpoch() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      assertThat(c.put(3, 5, b("k"), b("v")).status()).isEqualTo(Status.REDIRECT);
      assertThat(c.admin(Wire.ASSIGN, 3, 5).status()).isEqualTo(Status.OK);
      assertThat(c.put(3, 5, b("k"), b("v")).status()).isEqualTo(Status.OK);
      assertThat(c.put(3, 7, b("k"), b("v2")).status()).isEqualTo(Status.OK);
      KvReply stale = c.put(3, 4, b("k"), b("stale"));
      assertThat(stale.status()).isEqualTo(Status.REDIRECT);
      assertThat(stale.epoch()).isEqualTo(5);
      assertThat(c.get(3, 5, b("k")).value()).isEqualTo(b("v2"));
      assertThat(c.get(3, 5, b("absent")).value()).isNull();
      assertThat(c.get(4, 5, b("k")).status()).isEqualTo(Status.REDIRECT);
    }
  }

  @Test
  void compareAndSetAppliesOnlyOverTheExpectedValue() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      assertThat(c.cas(0, 1, b("k"), null, b("a")).status()).isEqualTo(Status.OK);
      KvReply failed = c.cas(0, 1, b("k"), null, b("b"));
      assertThat(failed.status()).isEqualTo(Status.CAS_FAILED);
      assertThat(failed.value()).isEqualTo(b("a"));
      assertThat(c.cas(0, 1, b("k"), b("x"), b("b")).status()).isEqualTo(Status.CAS_FAILED);
      assertThat(c.cas(0, 1, b("k"), b("a"), b("b")).status()).isEqualTo(Status.OK);
      assertThat(c.get(0, 1, b("k")).value()).isEqualTo(b("b"));
    }
  }

  @Test
  void aFencedPartitionAnswersMovingAndRollsBackOnUnfence() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      c.put(0, 1, b("k"), b("v"));
      assertThat(c.admin(Wire.FENCE, 0, 1).status()).as("fence must raise the epoch")
          .isEqualTo(Status.REFUSED);
      assertThat(c.admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      KvReply moving = c.put(0, 1, b("k"), b("w"));
      assertThat(moving.status()).isEqualTo(Status.MOVING);
      assertThat(moving.epoch()).isEqualTo(2);
      assertThat(c.get(0, 1, b("k")).status()).isEqualTo(Status.MOVING);
      assertThat(c.admin(Wire.UNFENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(c.get(0, 1, b("k")).value()).isEqualTo(b("v"));
      assertThat(c.admin(Wire.FENCE, 0, 2).status())
          .as("a move at an epoch that was rolled back is not started again")
          .isEqualTo(Status.REFUSED);
      assertThat(c.admin(Wire.FENCE, 0, 3).status()).isEqualTo(Status.OK);
    }
  }

  @Test
  void aMoveCopiesEverythingAndTheTargetDecidesBetweenActivateAndAbort() throws IOException {
    try (KvNode source = KvNode.start(NodeId.of("src"), dir.resolve("s"), 0);
        KvNode target = KvNode.start(NodeId.of("dst"), dir.resolve("t"), 0);
        TcpNodeClient s = (TcpNodeClient) KvNodeClient.connect(source.hostAndPort(), TIMEOUT);
        TcpNodeClient t = (TcpNodeClient) KvNodeClient.connect(target.hostAndPort(), TIMEOUT)) {
      s.admin(Wire.ASSIGN, 7, 1);
      for (int i = 0; i < 1000; i++) {
        assertThat(s.put(7, 1, b("k" + i), b("v" + i)).isOk()).isTrue();
      }
      assertThat(t.receive(7, 2, source.hostAndPort()).status())
          .as("an unfenced source refuses to be copied").isEqualTo(Status.REFUSED);
      t.admin(Wire.ABORT, 7, 2);
      s.admin(Wire.FENCE, 7, 2);
      assertThat(t.receive(7, 2, source.hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(t.status(7)).isEqualTo(new PartitionStatus(7, PartitionState.RECEIVED, 2, 1000));
      assertThat(t.get(7, 2, b("k1")).status()).isEqualTo(Status.MOVING);
      assertThat(t.admin(Wire.ACTIVATE, 7, 2).status()).isEqualTo(Status.OK);
      assertThat(t.admin(Wire.ABORT, 7, 2).status()).as("an activated target cannot abort")
          .isEqualTo(Status.REFUSED);
      assertThat(s.admin(Wire.DROP, 7, 2).status()).isEqualTo(Status.OK);
      assertThat(s.status(7)).isEqualTo(new PartitionStatus(7, PartitionState.ABSENT, 2, 0));
      KvReply old = s.put(7, 1, b("k1"), b("late"));
      assertThat(old.status()).isEqualTo(Status.REDIRECT);
      assertThat(old.epoch()).isEqualTo(2);
      for (int i = 0; i < 1000; i += 99) {
        assertThat(t.get(7, 2, b("k" + i)).value()).isEqualTo(b("v" + i));
      }
    }
  }

  @Test
  void aNodeWhoseLogIsCorruptInTheMiddleRefusesToStartAndKeepsTheLog() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      for (int i = 0; i < 1000; i++) {
        assertThat(c.put(0, 1, b("k" + i), b("v" + i)).status()).isEqualTo(Status.OK);
      }
    }
    Path log = dir.resolve("wal.log");
    byte[] bytes = Files.readAllBytes(log);
    bytes[bytes.length / 2] ^= 0x01; // one flipped bit, in the middle
    Files.write(log, bytes);
    assertThatThrownBy(() -> KvNode.start(NodeId.of("n1"), dir, 0))
        .isInstanceOf(CorruptLogException.class).hasMessageContaining(log.toString());
    assertThat(Files.readAllBytes(log)).as("no compaction ran over the damage").isEqualTo(bytes);
    bytes[bytes.length / 2] ^= 0x01; // restored (from a backup, say): every put is back
    Files.write(log, bytes);
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      for (int i = 0; i < 1000; i++) {
        assertThat(c.get(0, 1, b("k" + i)).value()).isEqualTo(b("v" + i));
      }
    }
  }

  @Test
  void requestsForPartitionsTheNodeDoesNotHoldLeaveNoStateBehind() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      for (int p = 1; p <= 5000; p++) {
        assertThat(c.admin(Wire.STATUS, p, 0).status()).isEqualTo(Status.OK);
        assertThat(c.get(p, 1, b("k")).status()).isEqualTo(Status.REDIRECT);
        assertThat(c.admin(Wire.DROP, p, 1).status()).isEqualTo(Status.OK);
      }
      assertThat(((TcpKvNode) node).partitionsHeld()).as("only the assigned partition").isOne();
    }
  }

  @Test
  void aReceiveFromABadAddressIsAnErrorThatChangesNothing() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      KvReply bad = c.receive(4, 2, "not-an-address");
      assertThat(bad.status()).isEqualTo(Status.ERROR);
      assertThat(bad.message()).contains("not-an-address");
      assertThat(node.status(4).state()).as("not left RECEIVING").isEqualTo(PartitionState.ABSENT);
      assertThat(c.admin(Wire.ASSIGN, 4, 3).status()).as("the same connection still serves")
          .isEqualTo(Status.OK);
    }
  }

  @Test
  void afterALogFailureTheNodeStopsNamingTheCause() throws Exception {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream realErr = System.err;
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      assertThat(c.put(0, 1, b("k"), b("v")).status()).isEqualTo(Status.OK);
      ((TcpKvNode) node).failLogForTest(new IOException("No space left on device"));
      // not alive and useless: it stops, so that its supervisor restarts it
      assertThat(((TcpKvNode) node).awaitStopAfterLogFailure(Duration.ofSeconds(60))).isTrue();
      assertThatThrownBy(() -> ((TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT))
          .admin(Wire.STATUS, 0, 0)).as("nothing listens any more")
          .isInstanceOf(IOException.class);
    } finally {
      System.setErr(realErr);
    }
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("write-ahead log " + dir.resolve("wal.log") + " failed: No space left on device")
        .contains("stopping");
  }

  @Test
  @Timeout(value = 180, unit = java.util.concurrent.TimeUnit.SECONDS) // a hang must fail
  void anErrorInTheGroupCommitStopsTheNodeAndReleasesEveryRequestWaitingOnIt() throws Exception {
    java.io.PrintStream realErr = System.err;
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(err, true, UTF_8));
    java.util.concurrent.ExecutorService clients =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    OutOfMemoryError injected = new OutOfMemoryError("Java heap space (injected)");
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient writer = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT);
        TcpNodeClient reader = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(),
            TIMEOUT)) {
      writer.admin(Wire.ASSIGN, 0, 1);
      assertThat(writer.put(0, 1, b("k"), b("v")).status()).isEqualTo(Status.OK);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      ((TcpKvNode) node).commitStepForTest((channel, batch) -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw injected;
      });
      var put = clients.submit(() -> writer.put(0, 1, b("k2"), b("v2")));
      awaitThreadsIn("groupCommit", 1); // the put's thread is in the commit step
      var get = clients.submit(() -> reader.get(0, 1, b("k"))); // waits for the put's record
      awaitThreadsIn("groupCommit", 2);
      release.countDown();
      for (var answer : List.of(put, get)) {
        KvReply reply;
        try {
          reply = answer.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          continue; // the connection ended unanswered: an unknown outcome, never an OK
        }
        assertThat(reply.status()).as("released, and not acknowledged").isEqualTo(Status.ERROR);
      }
      assertThat(((TcpKvNode) node).awaitStopAfterLogFailure(Duration.ofSeconds(60)))
          .as("the node's fail-stop ran").isTrue();
      assertThat(((TcpKvNode) node).stoppedBy()).isSameAs(injected);
    } finally {
      clients.shutdownNow();
      System.setErr(realErr);
    }
    assertThat(err.toString(UTF_8))
        .contains("node n1: stopping on java.lang.OutOfMemoryError: Java heap space (injected)");
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      assertThat(c.get(0, 1, b("k")).value()).as("restarted, it replays").isEqualTo(b("v"));
    }
  }

  /** Waits until {@code n} threads run {@code method} of the write-ahead log. */
  private static void awaitThreadsIn(String method, int n) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    long in = 0;
    while (System.nanoTime() < deadline) {
      in = Thread.getAllStackTraces().values().stream()
          .filter(stack -> java.util.Arrays.stream(stack).anyMatch(
              f -> f.getClassName().equals(WriteAheadLog.class.getName())
                  && f.getMethodName().equals(method)))
          .count();
      if (in >= n) {
        return;
      }
      try {
        Thread.sleep(1); // polling a condition, with a generous deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new AssertionError(in + " threads in WriteAheadLog." + method + ", not " + n);
  }

  @Test
  void aRestartedNodeRecoversWritesAndStatesFromItsLog() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      c.admin(Wire.ASSIGN, 0, 1);
      c.admin(Wire.ASSIGN, 1, 1);
      for (int i = 0; i < 100; i++) {
        c.put(i % 2, 1, b("k" + i), b("v" + i));
      }
      c.admin(Wire.FENCE, 1, 3);
    }
    // a torn record at the tail (a crash mid-append) is ignored
    Files.write(dir.resolve("wal.log"), new byte[] {0, 0, 0, 40, 1, 2},
        java.nio.file.StandardOpenOption.APPEND);
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0);
        TcpNodeClient c = (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT)) {
      assertThat(c.status(0)).isEqualTo(new PartitionStatus(0, PartitionState.OWNED, 1, 50));
      assertThat(c.status(1))
          .isEqualTo(new PartitionStatus(1, PartitionState.MIGRATING_OUT, 3, 50));
      assertThat(c.get(0, 1, b("k42")).value()).isEqualTo(b("v42"));
      assertThat(c.put(0, 1, b("after"), b("restart")).isOk()).isTrue();
    }
  }
}
