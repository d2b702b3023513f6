package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Record;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CodecTest {

  static final Bytes K = Bytes.ofLong(42);
  static final Bytes V = Bytes.ofLong(-7);

  static TreeMap<Bytes, Bytes> data() {
    TreeMap<Bytes, Bytes> d = new TreeMap<>();
    d.put(K, V);
    d.put(Bytes.ofLong(1), Bytes.of(new byte[0]));
    return d;
  }

  static List<Message> messages() {
    return List.of(
        new Message.Request(1, 3, Kind.GET, K, null, null),
        new Message.Request(2, 0, Kind.PUT, K, null, V),
        new Message.Request(Long.MAX_VALUE, 15, Kind.CAS, K, V, Bytes.ofLong(9)),
        new Message.Reply(5, Outcome.OK, V, null),
        new Message.Reply(6, Outcome.FAIL, null, "not the primary: ünïcode"),
        new Message.Reply(7, Outcome.UNKNOWN, null, ""),
        new Message.Replicate(3, 4, 5, 6, K, V),
        new Message.Confirm(1, 2, 3, 4),
        new Message.Snapshot(2, 3, 4, 5, data()),
        new Message.Snapshot(2, 3, 4, 0, new TreeMap<>()),
        new Message.Ack(1, 2, 3, 4),
        new Message.Confirmed(1, 2, 3, 4),
        new Message.Refuse(1, 9, true),
        new Message.Refuse(1, 0, false),
        new Message.Configure(4, 7, 2, List.of(0, 1)),
        new Message.Configure(4, 7, 2, List.of()),
        new Message.Suspect(4, 7, Set.of(1, 3)),
        new Message.Levelled(4, 7),
        new Message.Ping(99),
        new Message.Pong(99, Map.of(1, 2L, 5, 8L)),
        new Message.Pong(100, Map.of()));
  }

  @Test
  void everyMessageRoundTripsInAnEnvelope() throws Exception {
    for (Message m : messages()) {
      Envelope e = new Envelope(-1, 1_000_003, m);
      assertThat(Codec.decode(Codec.encode(e))).as(m.toString()).isEqualTo(e);
    }
  }

  @Test
  void theDriversOwnFramesRoundTrip() throws Exception {
    List<Object> frames = List.of(new Frame.Hello(3), new Frame.Hello(Frame.CLIENT),
        new Frame.TableRequest(77),
        new Frame.Table(77, false, List.of(0, 1, 2), List.of(1L, 5L, 2L), "partition 1 short"),
        new Frame.Table(78, true, List.of(), List.of(), null));
    for (Object f : frames) {
      assertThat(Codec.decode(Codec.encode(f))).isEqualTo(f);
    }
  }

  @Test
  void everyRecordRoundTrips() throws Exception {
    List<Record> records = List.of(new Record.Configured(1, 2, 3, List.of(4, 0)),
        new Record.LevelBegun(1, 2, 3), new Record.Written(1, 2, 3, 4, K, V),
        new Record.Snapshotted(1, 2, 0, 3, 4, data()));
    for (Record r : records) {
      assertThat(Codec.record(Codec.encode(r))).isEqualTo(r);
    }
  }

  @Test
  void framesGoOverAStreamWithTheirLength() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buf);
    for (Message m : messages()) {
      Frame.write(out, new Envelope(0, 1, m));
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(buf.toByteArray()));
    for (Message m : messages()) {
      assertThat(Frame.read(in)).isEqualTo(new Envelope(0, 1, m));
    }
  }

  @Test
  void malformedFramesAreRefusedWhole() {
    byte[] good = Codec.encode(new Envelope(0, 1, new Message.Replicate(3, 4, 5, 6, K, V)));
    for (int cut = 0; cut < good.length; cut++) {
      byte[] shorter = java.util.Arrays.copyOf(good, cut);
      assertThatThrownBy(() -> Codec.decode(shorter)).isInstanceOf(Codec.Malformed.class);
    }
    byte[] longer = java.util.Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> Codec.decode(longer)).isInstanceOf(Codec.Malformed.class);
    byte[] badTag = good.clone();
    badTag[8] = 99;
    assertThatThrownBy(() -> Codec.decode(badTag)).isInstanceOf(Codec.Malformed.class);
    // a key length far beyond the frame: refused, not allocated
    byte[] hugeLength = good.clone();
    int keyLength = 4 + 4 + 1 + 4 + 8 + 8 + 8;
    hugeLength[keyLength] = 0x7f;
    assertThatThrownBy(() -> Codec.decode(hugeLength)).isInstanceOf(Codec.Malformed.class);
  }

  @Test
  void aFrameOverTheLimitIsRefusedByItsLength() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buf);
    try {
      out.writeInt(Codec.MAX_FRAME + 1);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(buf.toByteArray()));
    assertThatThrownBy(() -> Frame.read(in)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("frame length");
  }

  @Test
  void partitionsAreTheSimulatorsMix() {
    // h = key * golden; h ^= h >>> 29; floorMod(h, partitions), pinned by value
    long h = 12345L * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    assertThat(ReplicaClient.partitionOf(12345, 16)).isEqualTo((int) Math.floorMod(h, 16L));
    for (long k = -1000; k < 1000; k++) {
      assertThat(ReplicaClient.partitionOf(k, 16)).isBetween(0, 15);
    }
  }
}
