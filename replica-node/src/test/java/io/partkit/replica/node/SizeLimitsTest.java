package io.partkit.replica.node;

import static io.partkit.replica.node.ReplicaClient.MAX_KEY_BYTES;
import static io.partkit.replica.node.ReplicaClient.MAX_VALUE_BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Level;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.Message.Write;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import io.partkit.replica.Role;
import io.partkit.spi.KeyRanges;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The largest key and value ({@link ReplicaClient#MAX_KEY_BYTES}, {@link
 * ReplicaClient#MAX_VALUE_BYTES}) fit every frame and log record that carries them, and pass
 * through a replicated partition of node processes, a {@code kill -9} of its primary and a
 * restart of every node; one byte more is refused by the client before anything is sent, and by
 * the node when it comes anyway (the write a client of another build could send, up to a value
 * that fills a frame): the node answers a definite failure naming the limit, logs nothing of it
 * and serves on. Without the node's check, the largest value a request frame carries (16 MiB less
 * 35 bytes, with a one-byte key) made a record over the log's limit, a failed append: the
 * primary stopped (exit 74), and each primary after it.
 */
class SizeLimitsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int CLIENT = ReplicaNode.CLIENT_BASE;

  final ReplicaClusterTest cluster = new ReplicaClusterTest();

  @AfterEach
  void stop() {
    cluster.stop();
  }

  @Test
  void everyFrameAndRecordCarryingTheLargestKeyAndValuesFits() {
    Bytes key = Bytes.of(new byte[MAX_KEY_BYTES]);
    Bytes value = Bytes.of(new byte[MAX_VALUE_BYTES]);
    // a numbering whose cut is a key of the largest size: what key ranges carry at most
    Numbering numbering = Numbering.of(KeyRanges.of(List.of(new byte[MAX_KEY_BYTES])), 0);
    int p = Integer.MAX_VALUE;
    long n = Long.MAX_VALUE;
    TreeMap<Bytes, Bytes> one = new TreeMap<>();
    one.put(key, value);
    // two copies' last writes at most (Replica.TAIL_BYTES, 2 MiB: keys, values and the values
    // they replaced), of the largest keys
    List<Write> tail = new ArrayList<>();
    TreeMap<Bytes, Bytes> rebased = new TreeMap<>();
    TreeSet<Bytes> removed = new TreeSet<>();
    int writes = (2 << 20) / MAX_KEY_BYTES;
    for (int i = 0; i < 2 * writes; i++) {
      byte[] k = new byte[MAX_KEY_BYTES];
      k[0] = (byte) i;
      if (i < writes) {
        tail.add(new Write(i + 1, Bytes.of(k), Bytes.of(new byte[0])));
        rebased.put(Bytes.of(k), Bytes.of(new byte[0]));
      } else {
        removed.add(Bytes.of(k)); // a rebase holds what either copy's last writes touched
      }
    }
    List<byte[]> carriers = List.of(
        Codec.encode(new Envelope(p, p, new Request(n, p, Kind.PUT, key, null,
            value))),
        Codec.encode(new Envelope(p, p, new Request(n, p, Kind.CAS, key, value, value))),
        Codec.encode(new Envelope(p, p, new Reply(n, Outcome.OK, value, null))),
        Codec.encode(new Envelope(p, p, new Replicate(p, n, n, n, key, value))),
        Codec.encode(new Envelope(p, p, new Snapshot(p, n, n, n, one, numbering, p, true))),
        Codec.encode(new Envelope(p, p, new Page(n, Outcome.OK, one, true, null))),
        Codec.encode(new Envelope(p, p, new Level(p, n, n, n, n, writes, tail, numbering))),
        Codec.encode(new Record.Written(p, n, n, n, key, value)),
        Codec.encode(new Record.SnapshotPage(p, n, p, n, n, p, true, one, numbering)),
        Codec.encode(new Record.Rebased(p, n, p, n, n, rebased, removed)),
        Codec.encode(new Record.Checkpoint(p, n, true, Role.BACKUP, p,
            List.of(p, p, p, p, p, p, p), true, n, n, true, n, numbering, true, n, n, one)));
    for (byte[] c : carriers) {
      assertThat(c.length).isLessThanOrEqualTo(Codec.MAX_FRAME);
    }
    assertThat(Codec.MAX_FRAME - carriers.get(1).length)
        .as("the room a CAS of two of the largest values leaves: all but its numbers")
        .isGreaterThan(SizeLimits.HEADROOM - 64);
  }

  @Test
  void theLargestKeyAndValueOnAReplicatedPartitionSurviveKillAndRestarts() throws Exception {
    cluster.startCluster(2);
    Random random = new Random(41);
    byte[] key = new byte[MAX_KEY_BYTES];
    random.nextBytes(key);
    byte[] value = new byte[MAX_VALUE_BYTES];
    random.nextBytes(value);
    byte[] second = value.clone();
    second[0] ^= 1;
    second[MAX_VALUE_BYTES - 1] ^= 1;
    try (ReplicaClient c = client()) {
      assertOk(ReplicaClusterTest.untilOk(() -> c.put(key, value)));
      assertThat(c.get(key).value()).isEqualTo(value);
      assertOk(c.cas(key, value, second));
      ReplicaClient.BytesResult mismatch = c.cas(key, value, value);
      assertThat(mismatch.outcome()).as(mismatch.why()).isEqualTo(Outcome.FAIL);
      assertThat(mismatch.mismatch()).as("a CAS of two of the largest values that finds another:"
          + " its answer names them briefly, and fits a frame").isTrue();

      int primary = c.table().route(key).orElseThrow().primary();
      cluster.kill(primary); // kill -9
      ReplicaClient.BytesResult read = ReplicaClusterTest.untilOk(() -> c.get(key));
      assertOk(read);
      assertThat(read.value()).as("read from the new primary").isEqualTo(second);
      cluster.startNode(primary);
      cluster.awaitSettled(c); // the restarted node is levelled: a copy of the largest entry

      cluster.killAndRestartEveryNode();
      cluster.awaitSettled(c);
      read = ReplicaClusterTest.untilOk(() -> c.get(key));
      assertOk(read);
      assertThat(read.value()).as("read after every node restarted").isEqualTo(second);
      assertOk(ReplicaClusterTest.untilOk(() -> c.put(key, value)));
      assertThat(c.get(key).value()).isEqualTo(value);
    }
    for (int i = 0; i < ReplicaClusterTest.NODES; i++) {
      assertThat(cluster.procs.get(i).process().isAlive()).as("node %d", i).isTrue();
    }
  }

  @Test
  void oneByteOverIsRefusedByTheClientAndByTheNodeWhichServesOn() throws Exception {
    cluster.startCluster(2);
    byte[] key = {7};
    try (ReplicaClient c = client()) {
      assertOk(ReplicaClusterTest.untilOk(() -> c.put(key, new byte[] {1})));
      assertThatThrownBy(() -> c.put(key, new byte[MAX_VALUE_BYTES + 1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("put: a value of " + (MAX_VALUE_BYTES + 1) + " bytes is over the limit of "
              + MAX_VALUE_BYTES + " bytes (ReplicaClient.MAX_VALUE_BYTES)");
      assertThatThrownBy(() -> c.put(new byte[MAX_KEY_BYTES + 1], new byte[1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("put: a key of " + (MAX_KEY_BYTES + 1) + " bytes is over the limit of "
              + MAX_KEY_BYTES + " bytes (ReplicaClient.MAX_KEY_BYTES)");
      assertThatThrownBy(() -> c.cas(key, new byte[MAX_VALUE_BYTES + 1], new byte[1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("cas: an expected value of " + (MAX_VALUE_BYTES + 1));
      assertThatThrownBy(() -> c.get(new byte[MAX_KEY_BYTES + 1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("get: a key of " + (MAX_KEY_BYTES + 1));

      // sent past the client's check: one byte over, and the largest value a request frame
      // carries with a one-byte key, whose log record would be 3 bytes over the log's limit
      int fills = Codec.MAX_FRAME - Codec.encode(new Envelope(CLIENT, 0, new Request(1, 0,
          Kind.PUT, Bytes.of(key), null, Bytes.of(new byte[0])))).length;
      assertThat(Codec.encode(new Record.Written(0, 1, 1, 1, Bytes.of(key),
          Bytes.of(new byte[fills]))).length).isGreaterThan(Codec.MAX_FRAME);
      for (int size : List.of(MAX_VALUE_BYTES + 1, fills)) {
        long start = System.nanoTime();
        ReplicaClient.BytesResult refused = c.unchecked(Kind.PUT, key, null, new byte[size]);
        assertThat(refused.outcome()).as(refused.why()).isEqualTo(Outcome.FAIL);
        assertThat(refused.why()).matches("node \\d refuses the request: a value of " + size
            + " bytes is over the limit of " + MAX_VALUE_BYTES + " bytes \\(ReplicaClient"
            + "\\.MAX_VALUE_BYTES\\); it did not take effect");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused, not retried")
            .isLessThan(TIMEOUT.dividedBy(2));
      }
      ReplicaClient.BytesResult refused = c.unchecked(Kind.CAS, key, new byte[] {1},
          new byte[MAX_VALUE_BYTES + 1]);
      assertThat(refused.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(refused.mismatch()).isFalse();
      refused = c.unchecked(Kind.GET, new byte[MAX_KEY_BYTES + 1], null, null);
      assertThat(refused.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(refused.why()).contains("a key of " + (MAX_KEY_BYTES + 1));

      // the node serves on
      assertThat(c.get(key).value()).isEqualTo(new byte[] {1});
      assertOk(c.put(key, new byte[] {2}));
      assertThat(c.get(key).value()).isEqualTo(new byte[] {2});
    }
    for (int i = 0; i < ReplicaClusterTest.NODES; i++) {
      assertThat(cluster.procs.get(i).process().isAlive()).as("node %d", i).isTrue();
      List<Record> logged = Wal.readIntact(cluster.dir.resolve("data-" + i).resolve(Wal.FILE));
      assertThat(logged).as("node %d logged nothing of the refused requests", i)
          .noneMatch(r -> r instanceof Record.Written w && w.value().length() > 1);
    }
  }

  private ReplicaClient client() {
    return new ReplicaClient(cluster.controlAddress, cluster.addresses, TIMEOUT);
  }

  private static void assertOk(ReplicaClient.BytesResult r) {
    assertThat(r.outcome()).as(r.why()).isEqualTo(Outcome.OK);
  }
}
