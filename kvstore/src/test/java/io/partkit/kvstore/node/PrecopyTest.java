package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.ReceivedCopies;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A move that copies while the source still serves, then ships only what was written since:
 * the target ends with exactly the source's data, whatever was written when, and a source that
 * lost its record of the writes (a restart) makes the target copy everything instead.
 */
class PrecopyTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int KEYS = 5000;

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private TcpKvNode node(String id) throws IOException {
    return (TcpKvNode) KvNode.start(NodeId.of(id), dir.resolve(id), 0);
  }

  /** A source holding KEYS keys in partition 0 (owned at epoch 1), a target, a client each. */
  private record Pair(TcpKvNode source, TcpKvNode target, TcpNodeClient s, TcpNodeClient t)
      implements AutoCloseable {
    @Override
    public void close() {
      s.close();
      t.close();
      target.close();
      source.close();
    }
  }

  private Pair pair() throws IOException {
    TcpKvNode source = node("n1");
    TcpKvNode target = node("n2");
    Pair p = new Pair(source, target, new TcpNodeClient(source.address(), TIMEOUT),
        new TcpNodeClient(target.address(), TIMEOUT));
    fill(p.s());
    return p;
  }

  /** A pair whose target has pre-copied partition 0 for the move at epoch 2. */
  private Pair precopied() throws IOException {
    Pair p = pair();
    assertThat(p.t().precopy(0, 2, p.source().hostAndPort()).status()).isEqualTo(Status.OK);
    return p;
  }

  private static void fill(TcpNodeClient c) throws IOException {
    c.admin(Wire.ASSIGN, 0, 1);
    for (int i = 0; i < KEYS; i++) {
      assertThat(c.put(0, 1, b("k" + i), b("v" + i)).status()).isEqualTo(Status.OK);
    }
  }

  /**
   * The state partition 0 would come back in if {@code node} crashed now: a node started on a
   * copy of its data directory (the original stays open).
   */
  private PartitionState afterACrash(TcpKvNode node, String id) throws IOException {
    Path copy = dir.resolve(id + "-crashed-" + System.nanoTime());
    Files.createDirectories(copy);
    try (var files = Files.list(dir.resolve(id))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    try (TcpKvNode restarted = (TcpKvNode) KvNode.start(NodeId.of(id), copy, 0)) {
      return restarted.status(0).state();
    }
  }

  @Test
  void aPageCopiedUnderTheFenceLeavesOnlyOnceTheFenceIsDurable() throws IOException {
    try (Pair p = pair()) {
      p.source().holdBackgroundForcesForTest(); // only a waiter forces the fence's record now
      assertThat(p.s().admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.s().put(0, 1, b("k1"), b("x")).status()).as("fenced at once")
          .isEqualTo(Status.MOVING);
      assertThat(afterACrash(p.source(), "n1"))
          .as("FENCE answers before its record is durable").isEqualTo(PartitionState.OWNED);
      KvReply page = p.s().call(NodeConnection.request(Wire.SNAPSHOT, 0, 2).bytes(null).i32(10)
          .toBytes());
      assertThat(page.status()).isEqualTo(Status.OK);
      // a copy that could complete while a crash would undo the fence could be committed while
      // the restarted source still owns the partition
      assertThat(afterACrash(p.source(), "n1")).as("once a page of the fenced data has left")
          .isEqualTo(PartitionState.MIGRATING_OUT);
    }
  }

  @Test
  void theFirstWriteAfterAnActivationMakesTheActivationDurable() throws IOException {
    try (Pair p = precopied()) {
      assertThat(p.s().admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.t().receive(0, 2, p.source().hostAndPort()).status()).isEqualTo(Status.OK);
      p.target().holdBackgroundForcesForTest();
      assertThat(p.t().admin(Wire.ACTIVATE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(afterACrash(p.target(), "n2"))
          .as("ACTIVATE answers before its record is durable: a crash now leaves it RECEIVED,"
              + " to be activated again, never serving data it does not hold")
          .isEqualTo(PartitionState.RECEIVED);
      assertThat(p.t().put(0, 2, b("k1"), b("after")).status()).isEqualTo(Status.OK);
      assertThat(afterACrash(p.target(), "n2")).as("once a write after it is acknowledged")
          .isEqualTo(PartitionState.OWNED);
    }
  }

  /**
   * The target's RECEIVED answer counts the pre-copy's entries and bytes, then the delta's under
   * the fence, and the partition copy once it is RECEIVED; the source received nothing.
   */
  @Test
  void theTargetCountsWhatThePrecopyAndTheDeltaReceivedAndOneCopy() throws IOException {
    try (Pair p = precopied()) {
      long bytes = 0;
      for (int i = 0; i < KEYS; i++) {
        bytes += b("k" + i).length + b("v" + i).length;
      }
      assertThat(ReceivedCopies.read(p.t())).as("pre-copied, not yet a copy")
          .isEqualTo(new ReceivedCopies(KEYS, bytes, 0));
      p.s().put(0, 1, b("k7"), b("changed"));
      assertThat(p.s().admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.t().receive(0, 2, p.source().hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(ReceivedCopies.read(p.t())).as("the delta's key, and the copy complete")
          .isEqualTo(new ReceivedCopies(KEYS + 1, bytes + b("k7").length
              + b("changed").length, 1));
      assertThat(p.t().receive(0, 2, p.source().hostAndPort()).status())
          .as("a RECEIVE sent again").isEqualTo(Status.OK);
      assertThat(ReceivedCopies.read(p.t()).partitions()).as("counted once").isEqualTo(1);
      assertThat(ReceivedCopies.read(p.s())).isEqualTo(new ReceivedCopies(0, 0, 0));
    }
  }

  @Test
  void afterAPrecopyTheFencedCopyShipsOnlyTheKeysWrittenSince() throws IOException {
    try (Pair p = precopied()) {
      assertThat(p.target().keysCopiedIn()).isEqualTo(KEYS);
      assertThat(p.s().get(0, 1, b("k7")).value()).as("the source still serves").isEqualTo(b("v7"));
      p.s().put(0, 1, b("k7"), b("changed"));
      p.s().put(0, 1, b("k8"), b("changed"));
      p.s().put(0, 1, b("new"), b("added"));
      assertThat(p.s().admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.t().receive(0, 2, p.source().hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(p.target().keysCopiedIn() - KEYS).as("keys shipped under the fence").isEqualTo(3);
      assertThat(p.t().admin(Wire.ACTIVATE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.t().get(0, 2, b("k7")).value()).isEqualTo(b("changed"));
      assertThat(p.t().get(0, 2, b("new")).value()).isEqualTo(b("added"));
      assertThat(p.t().get(0, 2, b("k9")).value()).isEqualTo(b("v9"));
      assertThat(p.target().status(0).keys()).isEqualTo(KEYS + 1);
    }
  }

  @Test
  void writesDuringThePrecopyAllArrive() throws Exception {
    long seed = 20261123L;
    try (Pair p = pair()) {
      TcpKvNode source = p.source();
      TcpKvNode target = p.target();
      TcpNodeClient s = p.s();
      TcpNodeClient t = p.t();
      Map<String, String> expected = new HashMap<>();
      for (int i = 0; i < KEYS; i++) {
        expected.put("k" + i, "v" + i);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> writerFailed = new AtomicReference<>();
      Map<String, String> written = new HashMap<>();
      Thread writer = new Thread(() -> {
        Random random = new Random(seed);
        try (TcpNodeClient w = new TcpNodeClient(source.address(), TIMEOUT)) {
          for (int n = 0; !stop.get() || n < 200; n++) {
            String key = "k" + random.nextInt(KEYS + 500); // updates and new keys
            String value = "w" + n;
            if (w.put(0, 1, b(key), b(value)).status() != Status.OK) {
              break; // fenced: every write before was acknowledged
            }
            written.put(key, value);
          }
        } catch (Throwable e) {
          writerFailed.set(e);
        }
      });
      writer.start();
      assertThat(t.precopy(0, 2, source.hostAndPort()).status()).isEqualTo(Status.OK);
      stop.set(true);
      writer.join(TIMEOUT.toMillis());
      assertThat(writer.isAlive()).isFalse();
      assertThat(writerFailed.get()).as("seed %s", seed).isNull();
      assertThat(s.admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(t.receive(0, 2, source.hostAndPort()).status()).isEqualTo(Status.OK);
      t.admin(Wire.ACTIVATE, 0, 2);
      expected.putAll(written);
      assertThat(target.status(0).keys()).as("seed %s", seed).isEqualTo(expected.size());
      for (Map.Entry<String, String> e : expected.entrySet()) {
        assertThat(t.get(0, 2, b(e.getKey())).value()).as("%s, seed %s", e.getKey(), seed)
            .isEqualTo(b(e.getValue()));
      }
    }
  }

  @Test
  void aSourceThatRestartedSinceThePrecopyMakesTheTargetCopyEverything() throws IOException {
    TcpKvNode source = node("n1");
    try (TcpKvNode target = node("n2");
        TcpNodeClient t = new TcpNodeClient(target.address(), TIMEOUT)) {
      String address;
      try (TcpNodeClient s = new TcpNodeClient(source.address(), TIMEOUT)) {
        fill(s);
        address = source.hostAndPort();
        assertThat(t.precopy(0, 2, address).status()).isEqualTo(Status.OK);
        s.put(0, 1, b("k1"), b("before the restart"));
      }
      source.close(); // the record of written keys is gone with it
      int port = source.address().getPort();
      source = (TcpKvNode) TcpKvNode.start(NodeId.of("n1"), dir.resolve("n1"),
          new java.net.InetSocketAddress("127.0.0.1", port));
      try (TcpNodeClient s = new TcpNodeClient(source.address(), TIMEOUT)) {
        s.put(0, 1, b("k2"), b("after the restart"));
        assertThat(s.admin(Wire.FENCE, 0, 2).status()).isEqualTo(Status.OK);
      }
      assertThat(t.receive(0, 2, address).status()).isEqualTo(Status.OK);
      assertThat(target.keysCopiedIn()).as("the pre-copy, then everything again")
          .isEqualTo(2L * KEYS);
      t.admin(Wire.ACTIVATE, 0, 2);
      assertThat(t.get(0, 2, b("k1")).value()).isEqualTo(b("before the restart"));
      assertThat(t.get(0, 2, b("k2")).value()).isEqualTo(b("after the restart"));
    } finally {
      source.close();
    }
  }

  @Test
  void aRolledBackPrecopyStopsTheTrackingAndALaterMoveStartsClean() throws IOException {
    try (Pair p = precopied()) {
      assertThat(p.t().admin(Wire.ABORT, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.s().admin(Wire.UNFENCE, 0, 2).status()).isEqualTo(Status.OK);
      assertThat(p.target().status(0).state()).isEqualTo(PartitionState.ABSENT);
      // the old move's token is gone: a DELTA for it is refused
      KvReply delta = p.s().call(NodeConnection.request(Wire.DELTA, 0, 2).i64(1).bytes(null).i32(10)
          .toBytes());
      assertThat(delta.status()).isEqualTo(Status.REFUSED);
      assertThat(p.t().precopy(0, 3, p.source().hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(p.s().admin(Wire.FENCE, 0, 3).status()).isEqualTo(Status.OK);
      assertThat(p.t().receive(0, 3, p.source().hostAndPort()).status()).isEqualTo(Status.OK);
      assertThat(p.target().status(0).keys()).isEqualTo(KEYS);
    }
  }
}
