package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.SchemeCodec;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPLIT on one node: keys land where the new scheme's partitionOf says, nothing is served while
 * a split is pending, and a restart (or a crash that tears the APPLY record) recovers to before
 * or after the split, never half-way.
 */
class SplitTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  /** Two ranges, one node owns both. */
  private static final TokenRanges OLD = TokenRanges.of(-(1L << 62), 1L << 62);
  /** Each old range cut in two, as a token-ring join cuts them. */
  private static final TokenRanges NEW = TokenRanges.of(-(1L << 62), 0, 1L << 62, Long.MAX_VALUE);
  private static final long E1 = 1;
  private static final long E2 = 2;

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static int partitionOf(PartitionScheme scheme, byte[] key) {
    return scheme.partitionOf(scheme.keyHash().hash(key));
  }

  private static KvReply prepare(TcpNodeClient c, long epoch, PartitionScheme scheme,
      int... owned) throws IOException {
    Wire.Writer w = NodeConnection.request(Wire.SPLIT, 0, epoch).i8(Wire.SPLIT_PREPARE)
        .bytes(SchemeCodec.encode(scheme)).i32(owned.length);
    for (int q : owned) {
      w.i32(q);
    }
    return c.call(w.toBytes());
  }

  private static KvReply phase(TcpNodeClient c, int phase, long epoch) throws IOException {
    return c.call(NodeConnection.request(Wire.SPLIT, 0, epoch).i8(phase).toBytes());
  }

  private static TcpNodeClient connect(KvNode node) {
    return (TcpNodeClient) KvNodeClient.connect(node.hostAndPort(), TIMEOUT);
  }

  /** The old table: both ranges owned here at E1, 200 keys written. */
  private static Map<String, String> writeOld(TcpNodeClient c) throws IOException {
    assertThat(c.admin(Wire.ASSIGN, 0, E1).isOk()).isTrue();
    assertThat(c.admin(Wire.ASSIGN, 1, E1).isOk()).isTrue();
    Map<String, String> written = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      byte[] key = b("k" + i);
      assertThat(c.put(partitionOf(OLD, key), E1, key, b("v" + i)).status())
          .isEqualTo(Status.OK);
      written.put("k" + i, "v" + i);
    }
    return written;
  }

  private static void assertNumbering(TcpNodeClient c, PartitionScheme scheme, long epoch,
      Map<String, String> written) throws IOException {
    for (Map.Entry<String, String> e : written.entrySet()) {
      byte[] key = b(e.getKey());
      KvReply r = c.get(partitionOf(scheme, key), epoch, key);
      assertThat(r.status()).as("get %s", e.getKey()).isEqualTo(Status.OK);
      assertThat(new String(r.value(), UTF_8)).as("value of %s", e.getKey())
          .isEqualTo(e.getValue());
    }
  }

  @Test
  void keysLandWherePartitionOfSaysAndARestartReplaysTheSplit() throws IOException {
    Map<String, String> written;
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      written = writeOld(c);
      assertThat(prepare(c, E2, NEW, 0, 1, 2, 3).status()).isEqualTo(Status.OK);
      assertThat(prepare(c, E2, NEW, 0, 1, 2, 3).status()).as("idempotent").isEqualTo(Status.OK);
      byte[] k0 = b("k0");
      KvReply held = c.get(partitionOf(OLD, k0), E1, k0);
      assertThat(held.status()).as("nothing is served while the split is pending")
          .isEqualTo(Status.MOVING);
      for (int p = 0; p < NEW.partitionCount(); p++) { // a client that holds the split table
        assertThat(c.put(p, E2, k0, b("x")).status()).as("new partition %d", p)
            .isIn(Status.MOVING, Status.REDIRECT);
      }
      assertThat(c.admin(Wire.FENCE, 0, 5).status()).as("no move while pending")
          .isEqualTo(Status.REFUSED);

      assertThat(phase(c, Wire.SPLIT_APPLY, E2).status()).isEqualTo(Status.OK);
      assertThat(phase(c, Wire.SPLIT_APPLY, E2).status()).as("idempotent")
          .isEqualTo(Status.OK);
      assertNumbering(c, NEW, E2, written);
      KvReply stale = c.put(partitionOf(OLD, k0), E1, k0, b("late"));
      assertThat(stale.status()).as("the old numbering is redirected").isEqualTo(Status.REDIRECT);
      assertThat(stale.epoch()).isEqualTo(E2);
      assertThat(IntStream.range(0, 4).mapToLong(p -> node.status(p).keys()).sum())
          .isEqualTo(written.size());
      assertThat(IntStream.range(0, 4).mapToObj(p -> node.status(p).state()))
          .containsOnly(PartitionState.OWNED);
      byte[] fresh = b("fresh");
      assertThat(c.put(partitionOf(NEW, fresh), E2, fresh, b("f")).status())
          .isEqualTo(Status.OK);
      written.put("fresh", "f");
    }
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      assertNumbering(c, NEW, E2, written);
      Wire.Reader q = new Wire.Reader(phase(c, Wire.SPLIT_QUERY, 0).value());
      assertThat(q.i64()).as("nothing pending").isZero();
      q.bytes();
      assertThat(q.i64()).as("the split applied").isEqualTo(E2);
    }
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      assertNumbering(c, NEW, E2, written); // and again, from the compacted log
    }
  }

  @Test
  void aCrashThatTearsTheApplyRecordRecoversToThePreparedSplit() throws IOException {
    Map<String, String> written;
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      written = writeOld(c);
      assertThat(prepare(c, E2, NEW, 0, 1, 2, 3).status()).isEqualTo(Status.OK);
      assertThat(phase(c, Wire.SPLIT_APPLY, E2).status()).isEqualTo(Status.OK);
    }
    // The APPLY record is the last one: tear it, as a crash during its write would. Such a
    // crash also comes before the log's reach records it (LogReach): put the reach back to what
    // it said before, or the node would rightly refuse a log shorter than it had made durable.
    try (FileChannel log = FileChannel.open(dir.resolve("wal.log"), StandardOpenOption.WRITE)) {
      log.truncate(log.size() - 3);
    }
    long intact = WriteAheadLog.replay(dir.resolve("wal.log"), r -> { }).intactBytes();
    Path reach = LogReach.fileFor(dir.resolve("wal.log"));
    LogReach.Mark mark = LogReach.read(reach);
    try (LogReach r = LogReach.open(reach)) {
      r.write(mark.logId(), Math.min(mark.length(), intact));
    }
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      byte[] k0 = b("k0");
      assertThat(c.get(partitionOf(OLD, k0), E1, k0).status())
          .as("back to before the split: prepared, so fenced").isEqualTo(Status.MOVING);
      assertThat(IntStream.range(0, 2).mapToLong(p -> node.status(p).keys()).sum())
          .as("the old numbering, whole").isEqualTo(written.size());
      assertThat(phase(c, Wire.SPLIT_APPLY, E2).status()).isEqualTo(Status.OK);
      assertNumbering(c, NEW, E2, written);
    }
  }

  @Test
  void aCrashBeforeTheApplyKeepsTheFenceAndAnAbortLiftsIt() throws IOException {
    Map<String, String> written;
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      written = writeOld(c);
      assertThat(prepare(c, E2, NEW, 0, 1, 2, 3).status()).isEqualTo(Status.OK);
    }
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      byte[] k0 = b("k0");
      assertThat(c.get(partitionOf(OLD, k0), E1, k0).status()).isEqualTo(Status.MOVING);
      assertThat(new Wire.Reader(phase(c, Wire.SPLIT_QUERY, 0).value()).i64())
          .isEqualTo(E2);
      assertThat(phase(c, Wire.SPLIT_ABORT, E2).status()).isEqualTo(Status.OK);
      assertNumbering(c, OLD, E1, written);
    }
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      assertNumbering(c, OLD, E1, written); // the abort is durable
    }
  }

  @Test
  void refusesASplitThatDoesNotCoverItsKeysOrTouchesAReplica() throws IOException {
    try (KvNode node = KvNode.start(NodeId.of("n1"), dir, 0); TcpNodeClient c = connect(node)) {
      Map<String, String> written = writeOld(c);
      KvReply partial = prepare(c, E2, NEW, 0, 1, 2); // new partition 3 is not given to it
      assertThat(partial.status()).isEqualTo(Status.REFUSED);
      assertThat(partial.message()).contains("does not give this node");
      assertNumbering(c, OLD, E1, written); // refused: served again at once

      assertThat(c.admin(Wire.ASSIGN, 7, E1).isOk()).isTrue();
      KvReply backup = c.call(NodeConnection.request(Wire.CONFIGURE, 7, E1)
          .i8(Wire.ROLE_BACKUP).toBytes());
      assertThat(backup.status()).isEqualTo(Status.OK);
      KvReply replicated = prepare(c, E2, NEW, 0, 1, 2, 3);
      assertThat(replicated.status()).isEqualTo(Status.REFUSED);
      assertThat(replicated.message()).contains("replicated partitions are not split");
      assertNumbering(c, OLD, E1, written);
    }
  }
}
