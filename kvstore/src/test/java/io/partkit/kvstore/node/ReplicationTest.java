package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.ReceivedCopies;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication on real nodes over TCP: a primary and its backups, the failover that promotes a
 * backup, a deposed primary that must serve nothing, a backup that joins under writes, and the
 * levelling of replicas after a write whose replication failed.
 */
class ReplicationTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final int P = 7;

  @TempDir Path dir;
  private final List<KvNode> nodes = new ArrayList<>();
  private final ReplicaAdmin admin = new ReplicaAdmin(TIMEOUT, TIMEOUT, null);

  @AfterEach
  void closeNodes() {
    nodes.forEach(KvNode::close);
  }

  private KvNode node(String name, int port) throws IOException {
    KvNode n = KvNode.start(NodeId.of(name), dir.resolve(name), port);
    nodes.add(n);
    return n;
  }

  private static TcpNodeClient client(KvNode n) {
    return (TcpNodeClient) KvNodeClient.connect(n.hostAndPort(), TIMEOUT);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void everyBackupHoldsEveryAcknowledgedWriteAndAPromotedOneServesThem() throws IOException {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = client(a)) {
      for (int i = 0; i < 300; i++) {
        assertThat(ca.put(P, 1, b("k" + i), b("v" + i)).status()).isEqualTo(Status.OK);
      }
      assertThat(ca.get(P, 1, b("k299")).value()).isEqualTo(b("v299"));
    }
    assertThat(b.status(P).state()).isEqualTo(PartitionState.BACKUP);
    assertThat(b.status(P).keys()).isEqualTo(300);
    assertThat(c.status(P).keys()).isEqualTo(300);
    try (TcpNodeClient cb = client(b)) {
      assertThat(cb.get(P, 1, b("k0")).status()).as("a backup serves no client")
          .isEqualTo(Status.REDIRECT);
    }

    a.close(); // lost for good
    admin.failOver(P, 2, b.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient cb = client(b)) {
      for (int i = 0; i < 300; i++) {
        assertThat(cb.get(P, 2, b("k" + i)).value()).as("k" + i).isEqualTo(b("v" + i));
      }
      assertThat(cb.put(P, 2, b("after"), b("x")).status()).isEqualTo(Status.OK);
    }
    assertThat(c.status(P).keys()).as("the new primary replicates to the other survivor")
        .isEqualTo(301);
  }

  @Test
  void aDeposedPrimaryServesNeitherReadsNorWritesAfterAFailover() throws IOException {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = client(a); TcpNodeClient cb = client(b)) {
      assertThat(ca.put(P, 1, b("k"), b("old")).status()).isEqualTo(Status.OK);
      // a is cut off (say, paused) while the coordinator fails over to b: a stays up
      admin.failOver(P, 2, b.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
      assertThat(cb.put(P, 2, b("k"), b("new")).status()).isEqualTo(Status.OK);

      KvReply staleRead = ca.get(P, 1, b("k"));
      assertThat(staleRead.status()).as("a read of the old value: " + staleRead)
          .isEqualTo(Status.UNAVAILABLE);
      KvReply staleWrite = ca.put(P, 1, b("k"), b("lost"));
      assertThat(staleWrite.status()).isEqualTo(Status.UNAVAILABLE);
      KvReply staleCas = ca.cas(P, 1, b("k"), b("x"), b("y"));
      assertThat(staleCas.status()).as("a failed compare-and-set reads too")
          .isEqualTo(Status.UNAVAILABLE);
      assertThat(cb.get(P, 2, b("k")).value()).isEqualTo(b("new"));
    }
    assertThat(c.status(P).keys()).isEqualTo(1);
  }

  @Test
  void aBackupThatJoinsUnderWritesCatchesUpWithEveryKey() throws Exception {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort()));
    Map<String, String> acked = new LinkedHashMap<>();
    try (TcpNodeClient ca = client(a)) {
      for (int i = 0; i < 6000; i++) {
        assertThat(ca.put(P, 1, b("k" + i), b("v0-" + i)).status()).isEqualTo(Status.OK);
        acked.put("k" + i, "v0-" + i);
      }
    }
    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> errors = new ArrayList<>();
    Thread writer = new Thread(() -> {
      try (TcpNodeClient w = client(a)) {
        for (int round = 1; !stop.get(); round++) {
          for (int i = 0; i < 6000 && !stop.get(); i += 7) {
            String key = "k" + i;
            String value = "v" + round + "-" + i;
            if (w.put(P, 1, b(key), b(value)).status() == Status.OK) {
              synchronized (acked) {
                acked.put(key, value);
              }
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        errors.add(e);
      }
    });
    writer.start();
    try {
      admin.addBackups(P, 1, a.hostAndPort(), List.of(c.hostAndPort()));
    } finally {
      stop.set(true);
      writer.join();
    }
    assertThat(errors).isEmpty();
    assertThat(c.status(P).keys()).isEqualTo(6000);

    a.close();
    b.close();
    admin.failOver(P, 2, c.hostAndPort(), List.of(c.hostAndPort()));
    try (TcpNodeClient cc = client(c)) {
      synchronized (acked) {
        for (Map.Entry<String, String> e : acked.entrySet()) {
          assertThat(cc.get(P, 2, b(e.getKey())).value()).as(e.getKey())
              .isEqualTo(b(e.getValue()));
        }
      }
    }
  }

  /**
   * A backup added to a partition with data counts what its catch-up received (every entry, its
   * key and value bytes, one partition copy), over the wire; the writes replicated to it
   * afterwards, and its promotion, create no copy and add nothing; the primary received nothing.
   */
  @Test
  void aBackupAddedCountsWhatItsCatchUpReceivedAndNothingElse() throws Exception {
    KvNode a = node("a", 0);
    KvNode c = node("c", 0);
    admin.create(P, 1, a.hostAndPort(), List.of());
    long bytes = 0;
    try (TcpNodeClient ca = client(a)) {
      for (int i = 0; i < 500; i++) {
        assertThat(ca.put(P, 1, b("k" + i), b("value-" + i)).status()).isEqualTo(Status.OK);
        bytes += b("k" + i).length + b("value-" + i).length;
      }
    }
    try (TcpNodeClient cc = client(c)) {
      assertThat(ReceivedCopies.read(cc)).as("nothing received yet")
          .isEqualTo(new ReceivedCopies(0, 0, 0));
      admin.addBackups(P, 1, a.hostAndPort(), List.of(c.hostAndPort()));
      assertThat(c.status(P).keys()).isEqualTo(500);
      assertThat(ReceivedCopies.read(cc)).as("the catch-up's pages and one copy")
          .isEqualTo(new ReceivedCopies(500, bytes, 1));
      try (TcpNodeClient ca = client(a)) {
        assertThat(ca.put(P, 1, b("later"), b("x")).status()).isEqualTo(Status.OK);
        assertThat(ReceivedCopies.read(ca)).as("the primary received nothing")
            .isEqualTo(new ReceivedCopies(0, 0, 0));
      }
      a.close();
      admin.failOver(P, 2, c.hostAndPort(), List.of(c.hostAndPort()));
      assertThat(cc.get(P, 2, b("later")).value()).isEqualTo(b("x"));
      assertThat(ReceivedCopies.read(cc))
          .as("a replicated write and a promotion create no copy")
          .isEqualTo(new ReceivedCopies(500, bytes, 1));
    }
  }

  @Test
  void aWriteWhoseReplicationFailedIsLevelledOnEveryReplicaBeforeTheNextRequest()
      throws IOException {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    int cPort = c.address().getPort();
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = client(a)) {
      assertThat(ca.put(P, 1, b("k"), b("1")).status()).isEqualTo(Status.OK);
      c.close();
      nodes.remove(c);
      KvReply cut = ca.put(P, 1, b("k"), b("2"));
      assertThat(cut.status()).as("c is down: not acknowledged").isEqualTo(Status.UNAVAILABLE);
      assertThat(ca.get(P, 1, b("k")).status()).as("nor is anything read while c is down")
          .isEqualTo(Status.UNAVAILABLE);
      assertThat(b.status(P).keys()).isEqualTo(1);

      KvNode c2 = node("c", cPort); // the same data directory and address
      assertThat(c2.status(P).state()).isEqualTo(PartitionState.BACKUP);
      // b took the unacknowledged write; the primary levels a and c with it before serving
      assertThat(ca.get(P, 1, b("k")).value()).isEqualTo(b("2"));
      assertThat(ca.put(P, 1, b("k2"), b("3")).status()).isEqualTo(Status.OK);
      assertThat(c2.status(P).keys()).isEqualTo(2);
    }
    // and c, levelled, is a sound copy: fail over to it alone
    a.close();
    b.close();
    KvNode c2 = nodes.get(nodes.size() - 1);
    admin.failOver(P, 2, c2.hostAndPort(), List.of(c2.hostAndPort()));
    try (TcpNodeClient cc = client(c2)) {
      assertThat(cc.get(P, 2, b("k")).value()).isEqualTo(b("2"));
      assertThat(cc.get(P, 2, b("k2")).value()).isEqualTo(b("3"));
    }
  }

  @Test
  void aRestartedPrimaryLevelsItsBackupsAndARestartedBackupKeepsItsCopy() throws IOException {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    int aPort = a.address().getPort();
    int bPort = b.address().getPort();
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort()));
    try (TcpNodeClient ca = client(a)) {
      for (int i = 0; i < 50; i++) {
        assertThat(ca.put(P, 1, b("k" + i), b("v" + i)).status()).isEqualTo(Status.OK);
      }
    }
    a.close();
    b.close();
    nodes.clear();
    KvNode a2 = node("a", aPort);
    KvNode b2 = node("b", bPort);
    assertThat(b2.status(P).state()).isEqualTo(PartitionState.BACKUP);
    try (TcpNodeClient ca = client(a2)) {
      assertThat(ca.get(P, 1, b("k49")).value()).isEqualTo(b("v49"));
      assertThat(ca.put(P, 1, b("k50"), b("v50")).status()).isEqualTo(Status.OK);
    }
    assertThat(b2.status(P).keys()).isEqualTo(51);
  }

  @Test
  void aBackupRestartedWhileCatchingUpRefusesUntilItJoinsAgain() throws IOException {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    int bPort = b.address().getPort();
    admin.create(P, 1, a.hostAndPort(), List.of());
    try (TcpNodeClient ca = client(a); TcpNodeClient cb = client(b)) {
      assertThat(ca.put(P, 1, b("k"), b("v")).status()).isEqualTo(Status.OK);
      Wire.Writer add = NodeConnection.request(Wire.CONFIGURE, P, 1)
          .i8(Wire.ROLE_PRIMARY_ADDING).i32(1).utf(b.hostAndPort());
      assertThat(ca.call(add.toBytes()).status()).isEqualTo(Status.OK); // joined, no CATCHUP
    }
    b.close();
    nodes.remove(b);
    KvNode b2 = node("b", bPort);
    try (TcpNodeClient ca = client(a)) {
      assertThat(ca.put(P, 1, b("k"), b("w")).status())
          .as("b lost its record of fresh keys: it must not take writes as a sound copy")
          .isEqualTo(Status.UNAVAILABLE);
    }
    admin.addBackups(P, 1, a.hostAndPort(), List.of(b2.hostAndPort()));
    try (TcpNodeClient ca = client(a)) {
      assertThat(ca.put(P, 1, b("k"), b("w")).status()).isEqualTo(Status.OK);
    }
    assertThat(b2.status(P).keys()).isEqualTo(1);
  }

  /** Writes numbered values to a few keys through whichever node leads, keeping what was acked. */
  private static final class Writer extends Thread {
    final Map<String, String> acked = new LinkedHashMap<>();
    final java.util.concurrent.atomic.AtomicInteger acks =
        new java.util.concurrent.atomic.AtomicInteger();
    final AtomicBoolean stop = new AtomicBoolean();
    volatile KvNode leader;
    volatile long epoch;
    final List<Throwable> errors = new ArrayList<>();

    Writer(KvNode leader, long epoch) {
      this.leader = leader;
      this.epoch = epoch;
    }

    @Override
    public void run() {
      for (int i = 0; !stop.get(); i++) {
        String key = "w" + (i % 500);
        String value = "x" + i;
        try (TcpNodeClient c = client(leader)) {
          if (c.put(P, epoch, b(key), b(value)).status() == Status.OK) {
            synchronized (acked) {
              acked.put(key, value);
            }
            acks.incrementAndGet();
          }
        } catch (IOException e) {
          // the leader is down: its writes are refused until the test names the next one
        } catch (RuntimeException e) {
          errors.add(e);
        }
      }
    }

    void verifyOn(KvNode node, long readEpoch) throws Exception {
      stop.set(true);
      join();
      assertThat(errors).isEmpty();
      assertThat(acked).isNotEmpty();
      try (TcpNodeClient c = client(node)) {
        synchronized (acked) {
          for (Map.Entry<String, String> e : acked.entrySet()) {
            assertThat(c.get(P, readEpoch, b(e.getKey())).value()).as(e.getKey())
                .isEqualTo(b(e.getValue()));
          }
        }
      }
    }
  }

  @Test
  void aReconfigurationAfterThePrimaryDiedRestoresTheReplicationFactor() throws Exception {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    KvNode d = node("d", 0);
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    Writer writer = new Writer(a, 1);
    writer.start();
    waitForAcks(writer, 300);
    a.close(); // killed for good under load
    admin.reconfigure(P, 2, List.of(a.hostAndPort(), b.hostAndPort(), c.hostAndPort()),
        List.of(c.hostAndPort(), d.hostAndPort(), b.hostAndPort()));
    writer.epoch = 2;
    writer.leader = c;
    waitForAcks(writer, writer.acks.get() + 300);
    writer.verifyOn(c, 2);
    assertThat(d.status(P).state()).isEqualTo(PartitionState.BACKUP);
    assertThat(b.status(P).state()).isEqualTo(PartitionState.BACKUP);
    long keys = c.status(P).keys();
    assertThat(d.status(P).keys()).isEqualTo(keys);
    assertThat(b.status(P).keys()).isEqualTo(keys);
    // and the copy on d is whole: lose both others, fail over to d alone
    c.close();
    b.close();
    admin.reconfigure(P, 3, List.of(c.hostAndPort(), d.hostAndPort(), b.hostAndPort()),
        List.of(d.hostAndPort()));
    writer.verifyOn(d, 3);
  }

  @Test
  void aReconfigurationMovesAnUnreplicatedPartitionWhileItsWritesGoOn() throws Exception {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    admin.create(P, 1, a.hostAndPort(), List.of());
    Writer writer = new Writer(a, 1);
    writer.start();
    waitForAcks(writer, 300);
    admin.reconfigure(P, 2, List.of(a.hostAndPort()), List.of(b.hostAndPort()));
    writer.epoch = 2;
    writer.leader = b;
    waitForAcks(writer, writer.acks.get() + 100);
    writer.verifyOn(b, 2);
    assertThat(a.status(P).state()).as("the old replica was dropped")
        .isEqualTo(PartitionState.ABSENT);
    try (TcpNodeClient ca = client(a)) {
      assertThat(ca.get(P, 1, b("w1")).status()).isEqualTo(Status.REDIRECT);
    }
  }

  @Test
  void aReplicaOfAnOlderConfigurationIsNeverTakenForASurvivorEvenAtTheSameSequenceNumber()
      throws Exception {
    KvNode a = node("a", 0);
    KvNode b = node("b", 0);
    KvNode c = node("c", 0);
    int bPort = b.address().getPort();
    int cPort = c.address().getPort();
    String aa = a.hostAndPort();
    String ba = b.hostAndPort();
    String ca = c.hostAndPort();
    admin.create(P, 1, aa, List.of(ba, ca));
    try (TcpNodeClient ca_ = client(a)) {
      assertThat(ca_.put(P, 1, b("k"), b("1")).status()).isEqualTo(Status.OK);
      b.close(); // the next write reaches c only: not acknowledged, but c holds it
      nodes.remove(b);
      assertThat(ca_.put(P, 1, b("k"), b("lost")).status()).isEqualTo(Status.UNAVAILABLE);
    }
    c.close(); // c leaves with the unacknowledged write
    nodes.remove(c);
    KvNode b2 = node("b", bPort);
    // the coordinator drops c: a and b form the configuration of epoch 2, and a write is
    // acknowledged there, with the same sequence number as c's unacknowledged one
    admin.reconfigure(P, 2, List.of(aa, ba, ca), List.of(aa, ba));
    try (TcpNodeClient ca_ = client(a)) {
      assertThat(ca_.put(P, 2, b("k"), b("acked")).status()).isEqualTo(Status.OK);
    }
    KvNode c2 = node("c", cPort);
    a.close();
    // a table that still lists c (a change that never committed, say) and a lost a
    admin.reconfigure(P, 3, List.of(aa, ba, ca), List.of(ca, ba));
    assertThat(c2.status(P).state()).isEqualTo(PartitionState.OWNED);
    try (TcpNodeClient cc = client(c2)) {
      assertThat(cc.get(P, 3, b("k")).value())
          .as("c rejoined and copied from b, the only member of the latest configuration")
          .isEqualTo(b("acked"));
    }
    assertThat(b2.status(P).state()).isEqualTo(PartitionState.BACKUP);
  }

  private static void waitForAcks(Writer writer, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos() * 6;
    while (true) {
      if (writer.acks.get() >= n) {
        return;
      }
      assertThat(System.nanoTime()).as("acks within the deadline").isLessThan(deadline);
      assertThat(writer.isAlive()).isTrue();
      Thread.sleep(5); // polling a condition, with a deadline
    }
  }
}
