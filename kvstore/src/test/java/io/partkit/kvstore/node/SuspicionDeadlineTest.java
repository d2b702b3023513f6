package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.SuspectsReport;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The suspicion deadline, on real nodes over TCP, with one backup behind a relay the test
 * pauses (its bytes are held, as for a paused node or a cut): past the deadline the primary
 * names the silent backup in SUSPECTS and keeps waiting; a write waiting on it completes OK once
 * the configuration without it (committed by the coordinator; here the executor's step for it,
 * {@link ReplicaAdmin#shrink}) reaches the primary, and every replica of that configuration holds
 * it; without a new configuration nothing is acknowledged, and the write fails at the replica
 * timeout as before.
 */
class SuspicionDeadlineTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final int P = 3;

  @TempDir Path dir;
  @RegisterExtension final TestNodes nodes = new TestNodes(() -> dir);
  private final ReplicaAdmin admin = new ReplicaAdmin(TIMEOUT, TIMEOUT, null);
  /** The primary's event lines, which KvNodeMain sends to standard error. */
  private final List<String> events = new CopyOnWriteArrayList<>();

  private KvNode primary(Duration replicaTimeout, Duration suspectAfter) throws IOException {
    return TcpKvNode.start(NodeId.of("a"), dir.resolve("a"),
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        null, new SimpleMeterRegistry(), replicaTimeout, suspectAfter, line -> {
          System.err.println(line);
          events.add(line);
        });
  }

  /**
   * The primary's event lines about P at {@code epoch} that contain {@code what}, each in the
   * form the logs give: wall-clock time with milliseconds, node, partition, epoch, event.
   */
  private List<String> eventsAt(long epoch, String what) {
    String prefix = " node a partition " + P + " epoch " + epoch + ": ";
    List<String> found = events.stream().filter(l -> l.contains(prefix) && l.contains(what))
        .toList();
    found.forEach(l -> assertThat(l).as("a dated line")
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z node a .*"));
    return found;
  }

  /**
   * The setup every test here but the last shares: primary a (with the test's timeouts) leading
   * P at epoch 1 with backups b and c, c behind a relay the test pauses (and b too, for the
   * tests that cut both), and k = v1 acknowledged.
   */
  private final class ThreeNodes implements AutoCloseable {
    final KvNode a;
    final KvNode b;
    final KvNode c;
    /** b's relay, or null when a reaches b directly. */
    final PausableRelay toB;
    final PausableRelay toC;
    final TcpNodeClient client;

    /** b reached directly. */
    ThreeNodes(Duration replicaTimeout, Duration suspectAfter) throws IOException {
      this(replicaTimeout, suspectAfter, false);
    }

    ThreeNodes(Duration replicaTimeout, Duration suspectAfter, boolean bRelayed)
        throws IOException {
      a = primary(replicaTimeout, suspectAfter);
      b = nodes.start("b");
      c = nodes.start("c");
      toB = bRelayed ? new PausableRelay(b.hostAndPort()) : null;
      toC = new PausableRelay(c.hostAndPort());
      client = client(a);
      admin.create(P, 1, a.hostAndPort(),
          List.of(bRelayed ? toB.address() : b.hostAndPort(), toC.address()));
      assertThat(client.put(P, 1, b("k"), b("v1")).status()).isEqualTo(Status.OK);
    }

    @Override
    public void close() throws Exception {
      try (a; toB; toC; client) {
        // b and c: closed by TestNodes; a null toB is skipped
      }
    }
  }

  private static TcpNodeClient client(KvNode node) {
    return (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT.multipliedBy(2));
  }

  private static Map<Integer, List<String>> suspects(KvNode node) throws IOException {
    try (TcpNodeClient c = client(node)) {
      KvReply reply = c.admin(Wire.SUSPECTS, 0, 0);
      assertThat(reply.status()).isEqualTo(Status.OK);
      return SuspectsReport.of(reply).byPartition();
    }
  }

  /** Polls SUSPECTS until it names {@code backup} for P (a condition, with a generous deadline). */
  private static void awaitSuspected(KvNode node, String backup) throws Exception {
    awaitSuspected(node, P, backup);
  }

  /** As above, for {@code partition}. */
  private static void awaitSuspected(KvNode node, int partition, String backup)
      throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos() / 2;
    while (!suspects(node).getOrDefault(partition, List.of()).contains(backup)) {
      assertThat(System.nanoTime()).as("the primary names " + backup + " a suspect")
          .isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(50); // polling a condition
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void aWriteWaitingOnASilentBackupCompletesOnceTheConfigurationWithoutItArrives()
      throws Exception {
    // the replica timeout is far longer than the test: only the new configuration can end the wait
    try (ThreeNodes cluster = new ThreeNodes(Duration.ofSeconds(600), Duration.ofMillis(300))) {
      KvNode a = cluster.a;
      KvNode b = cluster.b;
      KvNode c = cluster.c;
      PausableRelay toC = cluster.toC;
      TcpNodeClient writer = cluster.client;
      toC.pause();
      CompletableFuture<KvReply> put = putLater(writer, "v2");
      awaitSuspected(a, toC.address());
      assertThat(put).as("a suspicion alone acknowledges nothing").isNotDone();

      // what the executor does once the coordinator committed epoch 2 without c
      admin.shrink(P, 2, a.hostAndPort(), List.of(b.hostAndPort()));
      KvReply written = put.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(written.status()).as(written.toString()).isEqualTo(Status.OK);
      assertThat(c.status(P).epoch()).as("the silent backup was left where it was").isEqualTo(1);
      assertThat(b.status(P).epoch()).isEqualTo(2);
      assertThat(suspects(a)).as("a new configuration starts with no suspicion").isEmpty();
      assertThat(eventsAt(1, "SUSPECT [" + toC.address() + "]: no answer within the suspicion"
          + " deadline (300 ms)")).hasSize(1);
      assertThat(eventsAt(2, "SHRINK offered: keep backups [" + b.hostAndPort() + "]"))
          .hasSize(1);
      assertThat(eventsAt(2, "SHRINK adopted by the write that waited on a suspect: primary"
          + " with backups [" + b.hostAndPort() + "] (was OWNED at epoch 1 with backups ["
          + b.hostAndPort() + ", " + toC.address() + "])")).hasSize(1);
      assertThat(writer.get(P, 2, b("k")).value()).isEqualTo(b("v2"));
      assertThat(writer.put(P, 2, b("k"), b("v3")).status()).isEqualTo(Status.OK);
      toC.resume();

      // every replica of the new list holds what was acknowledged: b alone serves it after a
      // failover to it
      a.close();
      admin.failOver(P, 3, b.hostAndPort(), List.of(b.hostAndPort()));
      try (TcpNodeClient cb = client(b)) {
        assertThat(cb.get(P, 3, b("k")).value()).isEqualTo(b("v3"));
      }
    }
  }

  @Test
  void withoutANewConfigurationAWriteWaitingOnASilentBackupFailsAtTheReplicaTimeout()
      throws Exception {
    Duration replicaTimeout = Duration.ofSeconds(3);
    try (ThreeNodes cluster = new ThreeNodes(replicaTimeout, Duration.ofMillis(200))) {
      KvNode a = cluster.a;
      PausableRelay toC = cluster.toC;
      TcpNodeClient writer = cluster.client;
      toC.pause();
      KvReply put = writer.put(P, 1, b("k"), b("v2"));
      assertThat(put.status()).as("not acknowledged on suspicion").isEqualTo(Status.UNAVAILABLE);
      assertThat(put.message()).as("it waited out the replica timeout, past the suspicion")
          .contains(toC.address() + " did not answer in time (" + replicaTimeout.toMillis()
              + " ms)");
      assertThat(suspects(a)).isEqualTo(Map.of(P, List.of(toC.address())));

      // healed: the probes find c again and the partition serves at its epoch
      toC.resume();
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      KvReply next = writer.put(P, 1, b("k"), b("v3"));
      while (next.status() != Status.OK) {
        assertThat(System.nanoTime()).as("served again after the heal: " + next)
            .isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(100); // polling a condition
        next = writer.put(P, 1, b("k"), b("v3"));
      }
      assertThat(writer.get(P, 1, b("k")).value()).isEqualTo(b("v3"));
    }
  }

  @Test
  void bothSilentBackupsAreNamedAtOnceAndAConfigurationWithoutBothCompletesTheWrite()
      throws Exception {
    try (ThreeNodes cluster =
        new ThreeNodes(Duration.ofSeconds(600), Duration.ofMillis(300), true)) {
      KvNode a = cluster.a;
      PausableRelay toB = cluster.toB;
      PausableRelay toC = cluster.toC;
      TcpNodeClient writer = cluster.client;
      toB.pause();
      toC.pause();
      CompletableFuture<KvReply> put = putLater(writer, "v2");
      awaitSuspected(a, toC.address());
      assertThat(suspects(a)).as("one report names every silent backup")
          .isEqualTo(Map.of(P, List.of(toB.address(), toC.address())));
      assertThat(put).isNotDone();

      admin.shrink(P, 2, a.hostAndPort(), List.of()); // the primary alone at epoch 2
      KvReply written = put.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(written.status()).as(written.toString()).isEqualTo(Status.OK);
      assertThat(writer.get(P, 2, b("k")).value()).isEqualTo(b("v2"));
    }
  }

  /**
   * The cut reaches the primary's links at different moments (the harness's nft rules land node
   * by node): b answers the write and only c is silent at the deadline, so the configuration
   * the coordinator commits keeps b; by then b is cut too. The move of b times out, and b is
   * named a suspect with c, so that the next configuration leaves both out. Before, only c was
   * ever named: each new configuration kept the silent b and the partition stalled for the cut.
   */
  @Test
  void aKeptBackupSilentToItsMoveIsNamedTooAndTheNextConfigurationLeavesItOut()
      throws Exception {
    try (ThreeNodes cluster =
        new ThreeNodes(Duration.ofSeconds(600), Duration.ofMillis(300), true)) {
      KvNode a = cluster.a;
      PausableRelay toB = cluster.toB;
      PausableRelay toC = cluster.toC;
      TcpNodeClient writer = cluster.client;
      toC.pause();
      CompletableFuture<KvReply> put = putLater(writer, "v2");
      awaitSuspected(a, toC.address());
      assertThat(suspects(a)).as("b answered the write").isEqualTo(Map.of(P,
          List.of(toC.address())));
      toB.pause(); // the cut reaches b too

      // epoch 2 without c, keeping b: b cannot be moved
      Throwable refused = catchThrowable(
          () -> admin.shrink(P, 2, a.hostAndPort(), List.of(toB.address())));
      KvReply failed = put.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(failed.status()).as("never acknowledged without every kept backup at epoch 2: "
          + failed).isEqualTo(Status.UNAVAILABLE);
      assertThat(suspects(a)).as("the kept backup silent to its move is named too")
          .isEqualTo(Map.of(P, List.of(toC.address(), toB.address())));
      assertThat(a.status(P).epoch()).as("the primary stayed at its epoch").isEqualTo(1);
      assertThat(refused).as("the executor is told why, and does not reconfigure the general"
          + " way").isInstanceOf(IOException.class).hasMessageContaining("silent too");
      assertThat(eventsAt(2, "MOVE of the kept backups failed (the primary stays at epoch 1): ["
          + toB.address() + ": no answer within 300 ms]; named suspects [" + toB.address()
          + "]")).hasSize(1);
      assertThat(eventsAt(2, "the write waiting on a suspect fails (unknown)")).isEmpty();
      assertThat(eventsAt(2, "SHRINK refused: the kept backups [" + toB.address()
          + "] are silent too (suspected at epoch 1)")).hasSize(1);

      // epoch 3 without either: the primary alone
      admin.shrink(P, 3, a.hostAndPort(), List.of());
      assertThat(eventsAt(3, "SHRINK adopted by the CONFIGURE: primary with backups []"))
          .hasSize(1);
      assertThat(writer.put(P, 3, b("k"), b("v3")).status()).isEqualTo(Status.OK);
      assertThat(writer.get(P, 3, b("k")).value()).isEqualTo(b("v3"));
      assertThat(suspects(a)).isEmpty();
    }
  }

  /**
   * A levelling (here before the first read after a promotion) waits on its backups under the
   * partition's lock, which the adoption of an offer needs. A CONFIRM changes nothing, so an
   * offer ends its wait at once, before the suspicion deadline, with MOVING. Before, the
   * levelling held the lock for its whole first stage (seen in the harness: 0.73 s of a cut;
   * here the deadline is longer than the executor's call waits, so the shrink failed).
   */
  @Test
  void aLevellingWaitingOnASilentBackupGivesWayToAnOfferBeforeTheDeadline() throws Exception {
    try (ThreeNodes cluster = new ThreeNodes(Duration.ofSeconds(600), TIMEOUT.multipliedBy(5))) {
      KvNode a = cluster.a;
      KvNode b = cluster.b;
      PausableRelay toC = cluster.toC;
      TcpNodeClient reader = cluster.client;
      // promoted again at epoch 2 with the same backups: it levels them before it serves
      admin.failOver(P, 2, a.hostAndPort(),
          List.of(a.hostAndPort(), b.hostAndPort(), toC.address()));

      toC.pause();
      CompletableFuture<KvReply> read = later(() -> reader.get(P, 2, b("k")));
      toC.awaitHeld(TIMEOUT); // the levelling's CONFIRM to c waits, the lock held
      admin.shrink(P, 3, a.hostAndPort(), List.of(b.hostAndPort()));
      KvReply moved = read.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(moved.status()).as(moved.toString()).isEqualTo(Status.MOVING);
      assertThat(eventsAt(3, "SHRINK adopted by the CONFIGURE: primary with backups ["
          + b.hostAndPort() + "]")).hasSize(1);
      assertThat(b.status(P).epoch()).isEqualTo(3);
      assertThat(reader.get(P, 3, b("k")).value()).isEqualTo(b("v1"));
      assertThat(reader.put(P, 3, b("k"), b("v2")).status()).isEqualTo(Status.OK);
    }
  }

  /**
   * Two partitions led by a, both with the silent c: a write to Q waits on c, holding Q's lock,
   * and the coordinator takes c out of P. The shrink of P is adopted at once, and its answer must
   * not wait for Q's write: the node swept every partition's meters under each partition's lock
   * after each administrative request, so the answer waited until Q's write timed out, and the
   * coordinator's review with it (seen in the harness, seed 4: 4 s, Q unserved meanwhile;
   * here the replica timeout is longer than the executor's call waits, so the shrink failed).
   */
  @Test
  void aShrinkIsAnsweredWhileAWriteToAnotherPartitionWaitsOnASilentBackup() throws Exception {
    int q = P + 1;
    try (ThreeNodes cluster = new ThreeNodes(Duration.ofSeconds(600), Duration.ofMillis(300))) {
      KvNode a = cluster.a;
      PausableRelay toC = cluster.toC;
      admin.create(q, 1, a.hostAndPort(), List.of(cluster.b.hostAndPort(), toC.address()));
      assertThat(cluster.client.put(q, 1, b("k"), b("v1")).status()).isEqualTo(Status.OK);
      toC.pause();
      TcpNodeClient writer = client(a); // a client's calls take turns: one of its own
      CompletableFuture<KvReply> waiting = later(() -> writer.put(q, 1, b("k"), b("v")));
      awaitSuspected(a, q, toC.address());

      admin.shrink(P, 2, a.hostAndPort(), List.of(cluster.b.hostAndPort()));
      assertThat(eventsAt(2, "SHRINK adopted by the CONFIGURE")).hasSize(1);
      assertThat(cluster.client.put(P, 2, b("k"), b("v2")).status()).isEqualTo(Status.OK);
      assertThat(waiting).as("Q's write still waits on c").isNotDone();

      admin.shrink(q, 2, a.hostAndPort(), List.of(cluster.b.hostAndPort()));
      KvReply written = waiting.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(written.status()).as(written.toString()).isEqualTo(Status.OK);
      writer.close();
    }
  }

  /**
   * The row's other backup was taken out earlier and has not joined again (b, still at epoch
   * 1), and now the primary's only backup (c) is cut: the configuration the coordinator commits
   * keeps the row minus c, which names b. The primary leaves b out (it is not its backup: it
   * holds no whole copy at this epoch) and leads alone; the waiting write is acknowledged, and
   * b is not moved to the new epoch. Before, the offer was refused, the write failed, and the
   * executor's general reconfiguration waited on the primary's lock (seed 4: 3.4 s).
   */
  @Test
  void anOfferKeepingARowReplicaThatIsNotABackupLeavesItOut() throws Exception {
    try (ThreeNodes cluster = new ThreeNodes(Duration.ofSeconds(600), Duration.ofMillis(300))) {
      // b taken out at epoch 2
      admin.shrink(P, 2, cluster.a.hostAndPort(), List.of(cluster.toC.address()));
      assertThat(cluster.client.put(P, 2, b("k"), b("v2")).status()).isEqualTo(Status.OK);
      cluster.toC.pause();
      CompletableFuture<KvReply> put = later(() -> cluster.client.put(P, 2, b("k"), b("v3")));
      awaitSuspected(cluster.a, cluster.toC.address());

      // the row without c
      admin.shrink(P, 3, cluster.a.hostAndPort(), List.of(cluster.b.hostAndPort()));
      KvReply written = put.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(written.status()).as(written.toString()).isEqualTo(Status.OK);
      assertThat(eventsAt(3, "SHRINK adopted by the write that waited on a suspect: primary"
          + " with backups [] (was OWNED at epoch 2 with backups [" + cluster.toC.address()
          + "]); left out, not its backups: [" + cluster.b.hostAndPort() + "]")).hasSize(1);
      assertThat(cluster.b.status(P).epoch()).as("b, with an old copy, is not moved")
          .isEqualTo(1);
      assertThat(cluster.client.get(P, 3, b("k")).value()).isEqualTo(b("v3"));
    }
  }

  @Test
  void aSuspicionDeadlineNotShorterThanTheReplicaTimeoutIsRefused() {
    assertThatThrownBy(() -> primary(Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shorter than the replica timeout (1000 ms), not 1000 ms");
  }

  /** A write of {@code value} to key k at epoch 1, answered later (it waits on silent backups). */
  private static CompletableFuture<KvReply> putLater(TcpNodeClient writer, String value) {
    return later(() -> writer.put(P, 1, b("k"), b(value)));
  }

  /** A request answered later, on another thread (it waits on silent backups). */
  private static CompletableFuture<KvReply> later(Request request) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return request.send();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** A request to a node. */
  private interface Request {
    KvReply send() throws IOException;
  }
}
