package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Numbering;
import io.partkit.replica.Replica;
import io.partkit.replica.Timing;
import io.partkit.replica.node.load.LoadMeters;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node's metering around a real replica core, primary of two partitions with no backups: what
 * the core answers OK is counted with its bytes and the time between request and answer, what
 * it refuses or a CAS that found another value is not, and meters follow the partition's role.
 */
class RequestMetersTest {

  private static final int CLIENT = ReplicaNode.CLIENT_BASE;
  /** Every request takes this long between {@code received} and {@code answered}. */
  private static final long SERVE_NANOS = 500;

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final Replica replica = new Replica(0, Timing.DEFAULT);
  private final RequestMeters meters = new RequestMeters(0, registry, Duration.ofMinutes(1));
  private long now;
  private long nextId = 1;
  private long tick;

  @BeforeEach
  void twoPartitionsWithoutBackups() {
    for (int p = 0; p < 2; p++) {
      replica.step(new Envelope(Control.ID, 0, new Configure(p, 1, 0, List.of(),
          new Numbering.Hashed(2, 2))));
    }
    for (int i = 0; i < 5; i++) {
      replica.tick(tick += 10);
      replica.ready();
    }
  }

  /** A key partition {@code p} holds. */
  private Bytes keyOf(int p, int n) {
    for (long k = n * 1000L; ; k++) {
      if (replica.owns(p, Bytes.ofLong(k))) {
        return Bytes.ofLong(k);
      }
    }
  }

  /** Hands {@code m} to the core as the driver does, and the core's answer to the meters. */
  private Message serve(Message m) {
    now += 1_000;
    meters.received(CLIENT, m, now);
    replica.step(new Envelope(CLIENT, 0, m));
    for (int i = 0; i < 10; i++) {
      for (Envelope e : replica.ready().messages()) {
        if (e.to() == CLIENT) {
          meters.answered(e, replica, now + SERVE_NANOS);
          return e.message();
        }
      }
      replica.tick(tick += 10);
    }
    throw new AssertionError("no answer to " + m);
  }

  private Reply request(int p, Kind kind, Bytes key, Bytes expected, Bytes value) {
    return (Reply) serve(new Request(nextId++, p, kind, key, expected, value));
  }

  private long count(String partition, String op) {
    return registry.get(LoadMeters.PARTITION_REQUESTS)
        .tags("node", "node-0", "partition", partition, "op", op).timer().count();
  }

  @Test
  void whatTheCoreServedIsCountedWithItsBytesAndTimeAndTheViewAddsItUp() throws Exception {
    Bytes k = keyOf(0, 1);
    Bytes v = Bytes.of(new byte[] {1, 2, 3});
    assertThat(request(0, Kind.PUT, k, null, v).outcome()).isEqualTo(Outcome.OK);
    assertThat(request(0, Kind.GET, k, null, null).value()).isEqualTo(v);
    assertThat(request(0, Kind.CAS, k, v, Bytes.of(new byte[] {9})).outcome())
        .isEqualTo(Outcome.OK);
    Reply mismatch = request(0, Kind.CAS, k, v, Bytes.of(new byte[] {7}));
    assertThat(mismatch.outcome()).as("a CAS that found another value").isEqualTo(Outcome.FAIL);
    assertThat(request(0, Kind.GET, keyOf(0, 2), null, null).value()).isNull();
    Reply refused = request(1, Kind.GET, keyOf(0, 3), null, null);
    assertThat(refused.outcome()).as("a key partition 1 does not hold").isEqualTo(Outcome.FAIL);
    Page page = (Page) serve(new Scan(nextId++, 0, 2, Bytes.of(new byte[0]), null, 100));
    assertThat(page.entries()).hasSize(1);

    assertThat(count("0", "put")).isEqualTo(1);
    assertThat(count("0", "get")).isEqualTo(2);
    assertThat(count("0", "cas")).as("the mismatch is not served").isEqualTo(1);
    assertThat(count("0", "scan")).isEqualTo(1);
    assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "1").meters())
        .as("nothing served of partition 1: no meters").isEmpty();
    long in = (8 + 3) + 8 + (8 + 3 + 1) + 8; // put, get, cas, get of an absent key; scan: 0
    long out = 3 + 0 + 0 + 0 + (8 + 1); // the get's value; the scan's key and value
    assertThat(registry.get(LoadMeters.PARTITION_BYTES).tags("partition", "0", "direction", "in")
        .counter().count()).isEqualTo(in);
    assertThat(registry.get(LoadMeters.NODE_BYTES).tags("direction", "out").counter().count())
        .isEqualTo(out);
    assertThat(registry.get(LoadMeters.NODE_REQUESTS).tags("op", "put").timer()
        .totalTime(TimeUnit.NANOSECONDS)).isEqualTo(SERVE_NANOS);

    meters.review(replica);
    assertThat(registry.get(LoadMeters.PARTITION_KEYS).tags("partition", "0").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get(LoadMeters.NODE_KEYS).gauge().value()).isEqualTo(1);

    NodeLoad view = meters.view(replica, now + 10_000);
    assertThat(view.node().value()).isEqualTo("node-0");
    assertThat(view.partitions()).extracting(PartitionLoad::partition).containsExactly(0, 1);
    PartitionLoad p0 = view.partition(0).orElseThrow();
    assertThat(List.of(p0.gets(), p0.puts(), p0.compareAndSets(), p0.bytesIn(), p0.bytesOut(),
        p0.keys(), p0.epoch(), p0.latencyTotalNanos()))
        .containsExactly(3L, 1L, 1L, in, out, 1L, 1L, 5 * SERVE_NANOS);
    assertThat(p0.state()).isEqualTo("PRIMARY");
    assertThat(view.partition(1).orElseThrow().ops()).isZero();
    assertThat(view.hotKeyRequests()).as("every served request with a key").isEqualTo(4);
    assertThat(view.hotKeys().get(0).key()).isEqualTo(k.toArray());
    assertThat(view.hotKeys().get(0).estimate()).isEqualTo(3);

    Object decoded = Codec.decode(Codec.encode(new Frame.Load(7, view)));
    assertThat(decoded).isEqualTo(new Frame.Load(7, view));
  }

  @Test
  void metersGoWhenTheNodeIsNoLongerPrimaryAndWhenItCloses() {
    request(0, Kind.PUT, keyOf(0, 1), null, Bytes.ofLong(1));
    request(1, Kind.PUT, keyOf(1, 1), null, Bytes.ofLong(1));
    assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "1").meters())
        .hasSize(4);
    replica.step(new Envelope(Control.ID, 0, new Configure(1, 2, 1, List.of(0),
        new Numbering.Hashed(2, 2))));
    meters.review(replica);
    assertThat(registry.find(LoadMeters.PARTITION_REQUESTS).tag("partition", "1").meters())
        .as("a backup now").isEmpty();
    assertThat(meters.view(replica, now).partitions()).extracting(PartitionLoad::partition)
        .containsExactly(0);
    assertThat(registry.get(LoadMeters.NODE_PARTITIONS).gauge().value()).isEqualTo(1);
    meters.close();
    assertThat(registry.getMeters()).isEmpty();
  }
  /**
   * The view's split key: a key range reports the median key of its copy (the key at index keys
   * / 2), asked as the view is; a hashed partition, whose keys' order says nothing of its
   * range, and an empty one report none; the codec carries it.
   */
  @Test
  void aKeyRangeReportsItsMedianKeyAndAHashedOrEmptyPartitionNone() throws Exception {
    request(0, Kind.PUT, keyOf(0, 1), null, Bytes.ofLong(1));
    request(0, Kind.PUT, keyOf(0, 2), null, Bytes.ofLong(2));
    assertThat(meters.view(replica, now).partition(0).orElseThrow().splitKey())
        .as("hash halves").isNull();

    Replica ranged = new Replica(0, Timing.DEFAULT);
    ranged.step(new Envelope(Control.ID, 0, new Configure(0, 1, 0, List.of(),
        new Numbering.KeySpans(1, 1, Bytes.of(new byte[0]), null, List.of()))));
    for (int i = 0; i < 5; i++) {
      ranged.tick(tick += 10);
      ranged.ready();
    }
    RequestMeters rangedMeters = new RequestMeters(0, new SimpleMeterRegistry(),
        Duration.ofMinutes(1));
    assertThat(rangedMeters.view(ranged, now).partition(0).orElseThrow().splitKey())
        .as("no key yet").isNull();
    for (int k = 9; k >= 1; k--) { // 1..9, written from the top: the order of keys counts
      ranged.step(new Envelope(CLIENT, 0, new Request(100 + k, 0, Kind.PUT, Bytes.ofLong(k),
          null, Bytes.ofLong(k))));
      for (int i = 0; i < 5; i++) {
        ranged.tick(tick += 10);
        ranged.ready();
      }
    }
    assertThat(ranged.keys(0)).isEqualTo(9);
    NodeLoad view = rangedMeters.view(ranged, now);
    assertThat(view.partition(0).orElseThrow().splitKey()).as("index 9 / 2 of 1..9")
        .isEqualTo(Bytes.ofLong(5).toArray());
    assertThat(Codec.decode(Codec.encode(new Frame.Load(3, view))))
        .isEqualTo(new Frame.Load(3, view));
    rangedMeters.close();
  }
}
