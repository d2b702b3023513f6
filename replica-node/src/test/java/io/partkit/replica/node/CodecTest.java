package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.Role;
import io.partkit.replica.node.access.LoginHandshake;
import io.partkit.replica.node.load.CopiesReceived;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.hash.KeyHash;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CodecTest {

  static final Bytes K = Bytes.ofLong(42);
  static final Bytes V = Bytes.ofLong(-7);
  /** Key spans of base 2, split once: partition 0's keys [empty, 100) cut at 50. */
  static final Numbering KEYS = new Numbering.KeySpans(2, 2, Bytes.of(new byte[0]),
      Bytes.ofLong(100), List.of()).split(0, Bytes.ofLong(50));
  /** Key spans with no end and no split. */
  static final Numbering OPEN_KEYS = new Numbering.KeySpans(1, 1, K, null, List.of());
  /** A token ring of base 4 over Cassandra's hash, partition 1's (-100, 100] cut at 0. */
  static final Numbering TOKENS = new Numbering.TokenSpans(KeyHash.CASSANDRA_MURMUR3, 4, 4, -100,
      100, List.of()).split(1, Bytes.ofLong(0));

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
        new Message.Scan(8, 3, 16, K, null, 100),
        new Message.Scan(9, 0, 0, Bytes.of(new byte[0]), V, 1),
        new Message.Page(8, Outcome.OK, data(), true, null),
        new Message.Page(9, Outcome.FAIL, new TreeMap<>(), false, "numbered at modulus 32"),
        new Message.Replicate(3, 4, 5, 6, K, V),
        new Message.Confirm(1, 2, 3, 4),
        new Message.Snapshot(2, 3, 4, 5, data()),
        new Message.Snapshot(2, 3, 4, 0, new TreeMap<>()),
        new Message.Snapshot(2, 3, 4, 5, data(), new Numbering.Hashed(16, 32)),
        new Message.Snapshot(2, 3, 4, 5, data(), KEYS, 3, false),
        new Message.Snapshot(1, 3, 4, 5, new TreeMap<>(), TOKENS, 0, true),
        new Message.Level(4, 7, 3, 6, 2, 9, List.of(new Message.Write(9, K, V)), KEYS),
        new Message.Level(5, 7, 3, 6, 2, 0, List.of(), Numbering.NONE),
        new Message.Ack(1, 2, 3, 4),
        new Message.Confirmed(1, 2, 3, 4),
        new Message.Refuse(1, 9, true),
        new Message.Refuse(1, 0, false),
        new Message.Configure(4, 7, 2, List.of(0, 1)),
        new Message.Configure(4, 7, 2, List.of()),
        new Message.Configure(20, 7, 2, List.of(3), new Numbering.Hashed(16, 32)),
        new Message.Configure(4, 7, 2, List.of(3), KEYS, new java.util.TreeSet<>(Set.of(3))),
        new Message.Configure(5, 7, 2, List.of(3), TOKENS),
        new Message.Configure(0, 7, 2, List.of(), OPEN_KEYS),
        new Message.Suspect(4, 7, Set.of(1, 3)),
        new Message.Levelled(4, 7),
        new Message.Drain(4, 8),
        new Message.Drained(4, 8),
        new Message.Resume(4, 8),
        new Message.Taken(4, 8, 2, 99, 3),
        new Message.Ping(99),
        new Message.Pong(99, Map.of(1, 2L, 5, 8L), Map.of(1, 70L)),
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
        new Frame.Table(77, false, List.of(
            new ReplicaClient.Row(0, new Numbering.Hashed(2, 2), 1, 1),
            new ReplicaClient.Row(1, new Numbering.Hashed(2, 4), 0, 5),
            new ReplicaClient.Row(3, new Numbering.Hashed(2, 4), 2, 2)),
            "partition 1 short"),
        new Frame.Table(79, true, List.of(new ReplicaClient.Row(0, KEYS, 1, 3),
            new ReplicaClient.Row(2, KEYS, 0, 3), new ReplicaClient.Row(1, TOKENS, 2, 1),
            new ReplicaClient.Row(4, Numbering.NONE, 2, 1)), null),
        new Frame.Table(78, true, List.of(), null));
    for (Object f : frames) {
      assertThat(Codec.decode(Codec.encode(f))).isEqualTo(f);
    }
  }

  /**
   * A load answer carries what the node received at its end; the earlier form, which ends with
   * the view, is still read (a client asking a node of an earlier build), as not saying it.
   */
  @Test
  void aLoadAnswerCarriesWhatTheNodeReceivedAndItsEarlierFormStillDecodes() throws Exception {
    NodeLoad view = new NodeLoad(NodeId.of("node-2"), List.of(new PartitionLoad(3, "PRIMARY",
        4, 5, 6, 7, 8, 9, 10, 11, 12, 13, null)), 14, 1, List.of());
    CopiesReceived received = new CopiesReceived(500, 54_000, 3, 7, 2);
    Frame.Load now = new Frame.Load(9, view, received);
    byte[] bytes = Codec.encode(now);
    assertThat(Codec.decode(bytes)).isEqualTo(now);

    byte[] earlier = java.util.Arrays.copyOf(bytes, bytes.length - 5 * Long.BYTES);
    assertThat(Codec.encode(new Frame.Load(9, view))).isEqualTo(earlier);
    Frame.Load decoded = (Frame.Load) Codec.decode(earlier);
    assertThat(decoded.view()).isEqualTo(view);
    assertThat(decoded.received()).as("an earlier build's answer says nothing received").isNull();

    byte[] torn = java.util.Arrays.copyOf(bytes, bytes.length - 3);
    assertThatThrownBy(() -> Codec.decode(torn)).isInstanceOf(Codec.Malformed.class);
    byte[] negative = bytes.clone();
    negative[negative.length - 5 * Long.BYTES] = (byte) 0x80; // the sign bit of the keys' count
    assertThatThrownBy(() -> Codec.decode(negative)).isInstanceOf(Codec.Malformed.class);
  }

  /**
   * A load view's split keys (a key range's median) round-trip in the field every build's answer
   * has had at that place (null, length -1, from a build that reported none): a key, the empty
   * key and none stay apart, and a view without keys is the bytes an earlier build sent.
   */
  @Test
  void aLoadViewCarriesEachPartitionsSplitKeyAndNoneStaysNone() throws Exception {
    PartitionLoad ranged = new PartitionLoad(0, "PRIMARY", 3, 3_000, 6, 7, 8, 9, 10, 11, 12,
        13, "k01500".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    PartitionLoad emptyKey = ranged.withSplitKey(new byte[0]);
    PartitionLoad none = new PartitionLoad(2, "PRIMARY", 3, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    NodeLoad view = new NodeLoad(NodeId.of("node-1"), List.of(ranged,
        new PartitionLoad(1, "PRIMARY", 3, 1, 6, 7, 8, 9, 10, 11, 12, 13, new byte[0]), none),
        14, 1, List.of());
    Frame.Load load = new Frame.Load(4, view, CopiesReceived.NONE);
    Frame.Load decoded = (Frame.Load) Codec.decode(Codec.encode(load));
    assertThat(decoded).isEqualTo(load);
    assertThat(decoded.view().partition(0).orElseThrow().splitKey())
        .isEqualTo("k01500".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(decoded.view().partition(1).orElseThrow().splitKey()).isEmpty();
    assertThat(decoded.view().partition(2).orElseThrow().splitKey()).isNull();
    assertThat(emptyKey).isNotEqualTo(ranged.withSplitKey(null));

    NodeLoad withoutKeys = new NodeLoad(NodeId.of("node-1"), List.of(
        ranged.withSplitKey(null)), 14, 1, List.of());
    byte[] bytes = Codec.encode(new Frame.Load(4, withoutKeys));
    byte[] keyed = Codec.encode(new Frame.Load(4, new NodeLoad(NodeId.of("node-1"),
        List.of(ranged), 14, 1, List.of())));
    assertThat(keyed.length - bytes.length).as("the key's bytes in place of the length -1")
        .isEqualTo("k01500".length());
    assertThat(((Frame.Load) Codec.decode(bytes)).view()).isEqualTo(withoutKeys);
  }

  static final Replica.Status PRIMARY = new Replica.Status(3, Role.PRIMARY, 7, KEYS, 2,
      List.of(0, 1), List.of(1), 5, false, true, new Replica.StateName(7, 5), 42, 40, 3, false, 1);
  static final Replica.Status BACKUP = new Replica.Status(1, Role.BACKUP, 9, TOKENS, 0,
      List.of(), List.of(), 4, true, false, new Replica.StateName(8, 2), 7, 6, 0, true, 0);
  static final Replica.Status ABSENT = new Replica.Status(99, Role.ABSENT, 0, Numbering.NONE,
      -1, List.of(), List.of(), 0, false, false, new Replica.StateName(0, 0), 0, 0, 0, false, 0);

  @Test
  void aPartitionListingRoundTripsAndReadsEntriesOfALaterBuild() throws Exception {
    List<Object> frames = List.of(new Frame.PartitionsRequest(5, -1),
        new Frame.PartitionsRequest(6, 3),
        new Frame.Partitions(5, 2, List.of(BACKUP, PRIMARY, ABSENT)),
        new Frame.Partitions(6, 0, List.of()));
    for (Object f : frames) {
      assertThat(Codec.decode(Codec.encode(f))).isEqualTo(f);
    }

    // a later build appends fields to each entry: this build reads what it knows of it
    Frame.Partitions one = new Frame.Partitions(8, 1, List.of(PRIMARY));
    byte[] bytes = Codec.encode(one);
    int head = 4 + 4 + 1 + 8 + 4 + 4; // endpoints, tag, id, node, count
    int length = java.nio.ByteBuffer.wrap(bytes, head, 4).getInt();
    assertThat(head + 4 + length).as("one entry, its length first").isEqualTo(bytes.length);
    byte[] later = java.nio.ByteBuffer.allocate(bytes.length + 3).put(bytes, 0, head)
        .putInt(length + 3).put(bytes, head + 4, length).put(new byte[] {1, 2, 3}).array();
    assertThat(Codec.decode(later)).isEqualTo(one);

    byte[] torn = java.nio.ByteBuffer.allocate(bytes.length - 1).put(bytes, 0, head)
        .putInt(length - 1).put(bytes, head + 4, length - 1).array();
    assertThatThrownBy(() -> Codec.decode(torn)).isInstanceOf(Codec.Malformed.class);
    byte[] role = bytes.clone();
    role[head + 4 + 4] = 3; // no such role
    assertThatThrownBy(() -> Codec.decode(role)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("a role of 3");
  }

  @Test
  void theLoginsFramesRoundTrip() throws Exception {
    byte[] challenge = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    LoginHandshake.Hello hello = (LoginHandshake.Hello) Codec.decode(Codec.encode(
        new LoginHandshake.Hello(1, true, challenge)));
    assertThat(hello.version()).isEqualTo(1);
    assertThat(hello.auth()).isTrue();
    assertThat(hello.challenge()).isEqualTo(challenge);
    assertThat(((Frame.Proof) Codec.decode(Codec.encode(new Frame.Proof(challenge)))).proof())
        .isEqualTo(challenge);
    for (LoginHandshake.Result r : List.of(new LoginHandshake.Result(true, ""),
        new LoginHandshake.Result(false, "wrong proof"))) {
      assertThat(Codec.decode(Codec.encode(r))).isEqualTo(r);
    }
  }

  @Test
  void everyRecordRoundTrips() throws Exception {
    List<Record> records = List.of(new Record.Configured(1, 2, 3, List.of(4, 0)),
        new Record.Configured(1, 2, 3, List.of(4, 0), new Numbering.Hashed(16, 16)),
        new Record.LevelBegun(1, 2, 3), new Record.Written(1, 2, 3, 4, K, V),
        new Record.Snapshotted(1, 2, 0, 3, 4, data()),
        new Record.Snapshotted(1, 2, 0, 3, 4, data(), new Numbering.Hashed(4, 8)),
        new Record.Split(3, 8), new Record.Split(0, 4, Bytes.ofLong(50)),
        new Record.Split(1, 16, Bytes.of(new byte[0])),
        new Record.Configured(1, 2, 3, List.of(4), KEYS),
        new Record.Snapshotted(1, 2, 0, 3, 4, data(), TOKENS),
        new Record.SnapshotPage(1, 2, 0, 3, 4, 2, false, data(), KEYS),
        new Record.SnapshotPage(1, 2, 0, 3, 4, 0, true, new TreeMap<>(), Numbering.NONE),
        new Record.Checkpoint(2, 2, true, Role.BACKUP, 0, List.of(4), false, 3, 5, true, 4,
            OPEN_KEYS, true, 2, 3, data()),
        new Record.Checkpoint(1, 2, true, Role.PRIMARY, 0, List.of(4, 0), false, 3, 5, true, 4,
            new Numbering.Hashed(4, 8), false, 2, 3, data()),
        new Record.Checkpoint(3, 9, false, Role.ABSENT, -1, List.of(), false, 0, 1, false, 0,
            new Numbering.Hashed(4, 8), true, 0, 0, data()),
        new Record.CheckpointPage(2, 0, data()), new Record.CheckpointPage(2, 7, new TreeMap<>()),
        new Record.Checkpoint(2, 2, true, Role.BACKUP, 0, List.of(4), false, 3, 5, true, 4,
            OPEN_KEYS, true, 2, 3, data(), 8),
        new Record.Rebased(1, 3, 2, 5, 9, data(), new java.util.TreeSet<>(List.of(K))));
    for (Record r : records) {
      assertThat(Codec.record(Codec.encode(r))).isEqualTo(r);
    }
  }

  /**
   * Merged numberings (a generation past 0), the merge record and a scan routed by a merged
   * numbering round trip; a scan of generation 0 is written as before.
   */
  @Test
  void mergedNumberingsTheMergeRecordAndScansOfAGenerationRoundTrip() throws Exception {
    Numbering hashed = new Numbering.Hashed(4, 8).merge(5, 2);
    Numbering keys = KEYS.merge(0, 1);
    Numbering tokens = TOKENS.merge(1, 3);
    for (Numbering n : List.of(hashed, keys, tokens)) {
      Record configured = new Record.Configured(1, 2, 3, List.of(4), n);
      assertThat(Codec.record(Codec.encode(configured))).as("%s", n).isEqualTo(configured);
      Record merge = new Record.Merge(0, (int) n.modulus(), n);
      assertThat(Codec.record(Codec.encode(merge))).as("%s", n).isEqualTo(merge);
    }
    // a generation that counts no merge, or a merged numbering inside another, is refused
    for (long generation : List.of(0L, -2L)) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      DataOutputStream d = new DataOutputStream(buf);
      d.writeInt(-3);
      d.writeLong(generation);
      d.writeInt(4);
      d.writeLong(8);
      assertThatThrownBy(() -> Codec.record(configuredWith(buf.toByteArray())))
          .isInstanceOf(Codec.Malformed.class).hasMessageContaining("must be positive");
    }
    ByteArrayOutputStream nested = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(nested);
    d.writeInt(-3);
    d.writeLong(2);
    d.writeInt(-3);
    d.writeLong(1);
    d.writeInt(4);
    d.writeLong(8);
    assertThatThrownBy(() -> Codec.record(configuredWith(nested.toByteArray())))
        .isInstanceOf(Codec.Malformed.class).hasMessageContaining("one plain numbering");
    Envelope e = new Envelope(-1, 1_000_003, new Message.Scan(7, 1, 4, K, null, 10, 3));
    assertThat(Codec.decode(Codec.encode(e))).isEqualTo(e);
    Envelope plain = new Envelope(-1, 1_000_003, new Message.Scan(7, 1, 4, K, null, 10));
    assertThat(Codec.encode(plain)).hasSize(Codec.encode(e).length - Long.BYTES);
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

  /** Every message and record variant with random fields, from fixed seeds. */
  @Test
  void everyVariantRoundTripsWithRandomValues() throws Exception {
    for (long seed = 1; seed <= 300; seed++) {
      Random r = new Random(seed);
      for (Message m : RandomValues.messages(r)) {
        Envelope e = new Envelope(r.nextInt(), r.nextInt(), m);
        assertThat(Codec.decode(Codec.encode(e))).as("seed %d: %s", seed, m).isEqualTo(e);
      }
      for (Record rec : RandomValues.records(r)) {
        assertThat(Codec.record(Codec.encode(rec))).as("seed %d: %s", seed, rec).isEqualTo(rec);
      }
      for (Object f : RandomValues.frames(r)) {
        assertThat(Codec.decode(Codec.encode(f))).as("seed %d: %s", seed, f).isEqualTo(f);
      }
    }
  }

  @Test
  void theRandomValuesCoverEveryVariant() {
    Random r = new Random(1);
    Set<Class<?>> messages = new java.util.HashSet<>();
    RandomValues.messages(r).forEach(m -> messages.add(m.getClass()));
    Set<Class<?>> records = new java.util.HashSet<>();
    RandomValues.records(r).forEach(x -> records.add(x.getClass()));
    assertThat(messages).containsExactlyInAnyOrder(Message.class.getPermittedSubclasses());
    assertThat(records).containsExactlyInAnyOrder(Record.class.getPermittedSubclasses());
  }

  /** Over the seeds of the round trip, every kind of numbering and both kinds of split. */
  @Test
  void theRandomValuesCoverEveryNumberingAndBothSplits() {
    Set<Class<?>> numberings = new java.util.HashSet<>();
    Set<Integer> cutCounts = new java.util.HashSet<>();
    Set<Boolean> splitsCut = new java.util.HashSet<>();
    for (long seed = 1; seed <= 300; seed++) {
      Random r = new Random(seed);
      RandomValues.messages(r);
      for (Record rec : RandomValues.records(r)) {
        Numbering n = rec instanceof Record.Configured c ? c.numbering()
            : rec instanceof Record.Checkpoint c ? c.numbering() : null;
        if (n != null) {
          numberings.add(n.getClass());
          if (n instanceof Numbering.KeySpans k) {
            cutCounts.add(k.cuts().size());
          } else if (n instanceof Numbering.TokenSpans t) {
            cutCounts.add(t.cuts().size());
          }
        }
        if (rec instanceof Record.Split s) {
          splitsCut.add(s.cut() != null);
        }
      }
    }
    assertThat(numberings).containsExactlyInAnyOrder(Numbering.class.getPermittedSubclasses());
    assertThat(cutCounts).containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(splitsCut).containsExactlyInAnyOrder(true, false);
  }

  /**
   * Records of the shapes before partitions were numbered (tags 1 and 4, no modulus) still
   * decode, numbered at 0, so a log written by an earlier build replays.
   */
  @Test
  void recordsWithoutAModulusStillDecode() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeByte(1);
    d.writeInt(3);
    d.writeLong(7);
    d.writeInt(2);
    d.writeInt(2);
    d.writeInt(0);
    d.writeInt(1);
    assertThat(Codec.record(buf.toByteArray()))
        .isEqualTo(new Record.Configured(3, 7, 2, List.of(0, 1), Numbering.NONE));
    buf.reset();
    d.writeByte(4);
    d.writeInt(3);
    d.writeLong(7);
    d.writeInt(2);
    d.writeLong(5);
    d.writeLong(9);
    d.writeInt(1);
    d.writeInt(8);
    d.writeLong(42);
    d.writeInt(8);
    d.writeLong(-7);
    assertThat(Codec.record(buf.toByteArray()))
        .isEqualTo(new Record.Snapshotted(3, 7, 2, 5, 9, new TreeMap<>(Map.of(K, V)),
            Numbering.NONE));
  }

  /**
   * A node restored from a log of the unnumbered shapes numbers its partition at 0 and takes the
   * numbering of the control's next configuration, dividing nothing.
   */
  @Test
  void anUnnumberedLogReplaysAndTakesTheControlsNumbering() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeByte(1); // Configured of partition 3 at epoch 1, primary 0, backups [1]
    d.writeInt(3);
    d.writeLong(1);
    d.writeInt(0);
    d.writeInt(1);
    d.writeInt(1);
    Record old = Codec.record(buf.toByteArray());
    io.partkit.replica.Replica r = io.partkit.replica.Replica.restore(0,
        io.partkit.replica.Timing.DEFAULT, List.of(old));
    assertThat(r.modulus(3)).isZero();
    r.step(new Envelope(io.partkit.replica.Control.ID, 0,
        new Message.Configure(3, 2, 0, List.of(1), new Numbering.Hashed(4, 4))));
    assertThat(r.modulus(3)).isEqualTo(4);
    assertThat(r.ready().records()).as("no split carried out")
        .noneMatch(x -> x instanceof Record.Split);
  }

  @Test
  void aSplitRecordThatCannotBeIsRefusedAsMalformed() throws Exception {
    byte[] good = Codec.encode(new Record.Split(3, 8));
    byte[] bad = good.clone();
    bad[bad.length - 1] = 3; // modulus 3: odd
    assertThatThrownBy(() -> Codec.record(bad)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("cannot split");
  }

  @Test
  void aCheckpointOfTheEarlierShapeIsReadWithItsStateUnnamed() throws Exception {
    Record.Checkpoint named = new Record.Checkpoint(1, 2, true, Role.BACKUP, 0, List.of(1),
        false, 3, 4, true, 5, new Numbering.Hashed(4, 8), false, 2, 3, data());
    byte[] now = Codec.encode(named);
    int state = 1 + 4 + 8 + 1 + 1 + 4 + 8 + 1 + 8 + 8 + 1 + 8 + 4 + 8 + 1; // up to inherited
    byte[] earlier = new byte[now.length - 16];
    System.arraycopy(now, 0, earlier, 0, state);
    System.arraycopy(now, state + 16, earlier, state, now.length - state - 16);
    earlier[0] = 11;
    assertThat(Codec.record(earlier)).isEqualTo(new Record.Checkpoint(1, 2, true, Role.BACKUP, 0,
        List.of(1), false, 3, 4, true, 5, new Numbering.Hashed(4, 8), false, 0, 0, data()));
  }

  @Test
  void aCheckpointWithAnUnknownRoleOrFlagIsRefusedAsMalformed() throws Exception {
    byte[] good = Codec.encode(new Record.Checkpoint(1, 2, true, Role.BACKUP, 0, List.of(1),
        false, 3, 4, true, 5, new Numbering.Hashed(4, 8), false, 2, 3, data()));
    int configured = 1 + 4 + 8; // after the tag, the partition and the epoch
    byte[] badRole = good.clone();
    badRole[configured + 1] = 7;
    assertThatThrownBy(() -> Codec.record(badRole)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("a role of 7");
    byte[] badFlag = good.clone();
    badFlag[configured] = 2;
    assertThatThrownBy(() -> Codec.record(badFlag)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("a boolean of 2");
  }

  /**
   * Logs and control states of the build that numbered keys by a hash modulo the partition count
   * hold their keys in other partitions than this build looks in: refused, never replayed.
   */
  @Test
  void recordsOfTheHashModuloNumberingAreRefused() throws Exception {
    byte[] configured = Codec.encode(new Record.Configured(1, 2, 3, List.of(4),
        new Numbering.Hashed(16, 16)));
    for (byte oldTag : new byte[] {5, 6, 8}) {
      byte[] old = configured.clone();
      old[0] = oldTag;
      assertThatThrownBy(() -> Codec.record(old)).isInstanceOf(Codec.Malformed.class)
          .hasMessageContaining("numbered keys by a hash modulo");
    }
    byte[] state = Codec.encode(new Record.ControlState(16, List.of(), new java.util.TreeSet<>(),
        new java.util.TreeSet<>()));
    state[0] = ControlStateCodec.OTHER_NUMBERING_TAG;
    assertThatThrownBy(() -> Codec.record(state)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("numbered keys by a hash modulo");
  }

  @Test
  void aTableRoutesEachKeyToThePartitionItsNumberAndModulusName() {
    // keys hash as partkit's hash slots do, long keys as their eight big-endian bytes
    assertThat(io.partkit.replica.Partitioning.hash(Bytes.ofLong(12345)))
        .isEqualTo(KeyHash.MURMUR3_128.hashLong(12345))
        .isEqualTo(KeyHash.MURMUR3_128.hash(Bytes.ofLong(12345).toArray()));
    // a table of base 2: partition 0 at modulus 2, then 1 split into 1 and 3 at modulus 4, which
    // are the upper half of slot 1's range: slots 2 and 3 of HashSlots(4)
    ReplicaClient.Table t = new ReplicaClient.Table(true, List.of(
        new ReplicaClient.Row(0, new Numbering.Hashed(2, 2), 0, 1),
        new ReplicaClient.Row(1, new Numbering.Hashed(2, 4), 1, 2),
        new ReplicaClient.Row(3, new Numbering.Hashed(2, 4), 1, 2)), null);
    for (long k = -1000; k < 1000; k++) {
      int quarter = HashSlots.of(4).partitionOfLongKey(k);
      int expected = quarter < 2 ? 0 : quarter == 2 ? 1 : 3;
      assertThat(HashSlots.of(2).partitionOfLongKey(k)).isEqualTo(quarter / 2);
      assertThat(t.route(k)).as("key %d", k).hasValueSatisfying(
          row -> assertThat(row.partition()).isEqualTo(expected));
    }
    ReplicaClient.Table hole = new ReplicaClient.Table(true,
        List.of(new ReplicaClient.Row(0, new Numbering.Hashed(2, 2), 0, 1)), null);
    long upper = java.util.stream.LongStream.range(0, 100)
        .filter(k -> HashSlots.of(2).partitionOfLongKey(k) == 1).findFirst().orElseThrow();
    assertThat(hole.route(upper)).isEmpty();
  }

  /**
   * A control state written by the build before rows carried their numbering (tag 66: a long
   * modulus each where tag 67 has the numbering) reads with its rows as hash halves of the
   * state's base, and restores the control's table.
   */
  @Test
  void aControlStateOfThePreviousBuildReadsItsRowsAsHashHalves() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeByte(66);
    d.writeInt(2); // base
    d.writeInt(3); // rows
    d.writeInt(0); // partition 0 at modulus 2, moving from node 0 to node 3
    d.writeLong(4);
    d.writeLong(2);
    Codec.ints(d, List.of(0, 1)); // members
    Codec.ints(d, List.of(0, 1)); // level
    Codec.ints(d, List.of()); // joining
    d.writeInt(-1); // parent
    d.writeLong(0); // split at
    d.writeBoolean(true);
    d.writeInt(0);
    d.writeInt(3);
    d.writeBoolean(false);
    d.writeInt(1); // partition 1, split at epoch 5 to modulus 4
    d.writeLong(5);
    d.writeLong(4);
    Codec.ints(d, List.of(1, 0));
    Codec.ints(d, List.of(1));
    Codec.ints(d, List.of(0));
    d.writeInt(-1);
    d.writeLong(0);
    d.writeBoolean(false);
    d.writeInt(3); // partition 3, split off partition 1
    d.writeLong(5);
    d.writeLong(4);
    Codec.ints(d, List.of(1, 0));
    Codec.ints(d, List.of(1));
    Codec.ints(d, List.of(0));
    d.writeInt(1);
    d.writeLong(5);
    d.writeBoolean(false);
    Codec.ints(d, List.of(0, 1, 3)); // nodes
    Codec.ints(d, List.of(3)); // leaving
    byte[] old = buf.toByteArray();
    Record.ControlState expected = new Record.ControlState(2, List.of(
        new Record.ControlState.Row(0, 4, new Numbering.Hashed(2, 2), List.of(0, 1),
            new java.util.TreeSet<>(List.of(0, 1)), new java.util.TreeSet<>(), -1, 0,
            new Record.ControlState.Move(0, 3, false)),
        new Record.ControlState.Row(1, 5, new Numbering.Hashed(2, 4), List.of(1, 0),
            new java.util.TreeSet<>(List.of(1)), new java.util.TreeSet<>(List.of(0)), -1, 0,
            null),
        new Record.ControlState.Row(3, 5, new Numbering.Hashed(2, 4), List.of(1, 0),
            new java.util.TreeSet<>(List.of(1)), new java.util.TreeSet<>(List.of(0)), 1, 5,
            null)),
        new java.util.TreeSet<>(List.of(0, 1, 3)), new java.util.TreeSet<>(List.of(3)));
    Record read = Codec.record(old);
    assertThat(read).isEqualTo(expected);
    // written again in this build's shape, with the numbering whole
    byte[] now = Codec.encode(read);
    assertThat(now[0]).isEqualTo(ControlStateCodec.TAG).isEqualTo((byte) 68);
    assertThat(Codec.record(now)).isEqualTo(expected);
    io.partkit.replica.Control control = io.partkit.replica.Control.restore(
        io.partkit.replica.Timing.DEFAULT, 2, List.of(read));
    assertThat(control.partitionIds()).containsExactly(0, 1, 3);
    assertThat(control.configuration(3).numbering()).isEqualTo(new Numbering.Hashed(2, 4));
    assertThat(control.configuration(0).numbering()).isEqualTo(new Numbering.Hashed(2, 2));
  }

  /**
   * A split of hash halves is written as the build before cuts wrote it (tag 7: partition and
   * modulus), so such a record of an earlier log reads as a split with no cut; a split at a cut
   * takes a tag of its own.
   */
  /**
   * A control state of the shape before incarnations (tag 67: no lost members in its rows, no
   * incarnations after the nodes) reads as having heard none.
   */
  @Test
  void aControlStateWithoutIncarnationsReadsAsHavingHeardNone() throws Exception {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream d = new java.io.DataOutputStream(buf);
    d.writeByte(ControlStateCodec.NUMBERED_TAG);
    d.writeInt(4); // base
    d.writeInt(0); // rows
    d.writeInt(2); // nodes
    d.writeInt(0);
    d.writeInt(1);
    d.writeInt(0); // leaving
    Record.ControlState read = (Record.ControlState) Codec.record(buf.toByteArray());
    assertThat(read.nodes()).containsExactly(0, 1);
    assertThat(read.incarnations()).isEmpty();
    byte[] now = Codec.encode(read);
    assertThat(now[0]).isEqualTo(ControlStateCodec.TAG);
    assertThat(Codec.record(now)).isEqualTo(read);
  }

  @Test
  void aSplitRecordOfThePreviousBuildReadsWithNoCut() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeByte(7);
    d.writeInt(3);
    d.writeLong(8);
    byte[] old = buf.toByteArray();
    Record read = Codec.record(old);
    assertThat(read).isEqualTo(new Record.Split(3, 8, null));
    assertThat(((Record.Split) read).cut()).isNull();
    assertThat(((Record.Split) read).child()).isEqualTo(7);
    assertThat(Codec.encode(new Record.Split(3, 8))).isEqualTo(old);
    byte[] at = Codec.encode(new Record.Split(3, 8, Bytes.ofLong(50)));
    assertThat(at[0]).isEqualTo((byte) 15);
    assertThat(Codec.record(at)).isEqualTo(new Record.Split(3, 8, Bytes.ofLong(50)));
    // a cut-split record whose cut is missing is refused, not read as hash halves
    byte[] noCut = java.util.Arrays.copyOf(at, 1 + 4 + 8 + 4);
    java.nio.ByteBuffer.wrap(noCut).putInt(1 + 4 + 8, -1);
    assertThatThrownBy(() -> Codec.record(noCut)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("missing");
  }

  /**
   * Hash halves and no numbering keep the bytes of the {@code int base, long modulus} they were
   * before numberings (tag 9 records of an earlier log read as before, and are written the same).
   */
  @Test
  void hashHalvesKeepTheBaseAndModulusBytesOfThePreviousBuild() throws Exception {
    for (long[] bm : new long[][] {{16, 32}, {0, 0}}) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      DataOutputStream d = new DataOutputStream(buf);
      d.writeByte(9); // Configured
      d.writeInt(3);
      d.writeLong(7);
      d.writeInt(2);
      d.writeInt((int) bm[0]);
      d.writeLong(bm[1]);
      Codec.ints(d, List.of(0, 1));
      Record.Configured expected = new Record.Configured(3, 7, 2, List.of(0, 1),
          bm[0] == 0 ? Numbering.NONE : new Numbering.Hashed((int) bm[0], bm[1]));
      assertThat(Codec.record(buf.toByteArray())).isEqualTo(expected);
      assertThat(Codec.encode(expected)).isEqualTo(buf.toByteArray());
    }
  }

  /** A Configured record (tag 9) of partition 3 around {@code numbering}'s bytes. */
  private static byte[] configuredWith(byte[] numbering) throws java.io.IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeByte(9);
    d.writeInt(3);
    d.writeLong(7);
    d.writeInt(2);
    d.write(numbering);
    Codec.ints(d, List.of(0, 1));
    return buf.toByteArray();
  }

  private static byte[] numberingBytes(int kind, int base, long modulus, String hash,
      int cuts) throws java.io.IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeInt(kind);
    d.writeInt(base);
    d.writeLong(modulus);
    if (kind == -1) {
      d.writeInt(0); // from: the empty key
      d.writeInt(-1); // to: no end
    } else {
      byte[] name = hash.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      d.writeInt(name.length);
      d.write(name);
      d.writeLong(-100); // after
      d.writeLong(100); // up to
    }
    d.writeInt(cuts);
    for (int i = 0; i < cuts; i++) {
      d.writeInt(8);
      d.writeLong(i);
    }
    return buf.toByteArray();
  }

  @Test
  void theHandBuiltNumberingBytesAreTheCodecs() throws Exception {
    assertThat(Codec.record(configuredWith(numberingBytes(-2, 2, 4, "CASSANDRA_MURMUR3", 1))))
        .isEqualTo(new Record.Configured(3, 7, 2, List.of(0, 1),
            new Numbering.TokenSpans(KeyHash.CASSANDRA_MURMUR3, 2, 4, -100, 100,
                List.of(Bytes.ofLong(0)))));
    assertThat(Codec.record(configuredWith(numberingBytes(-1, 2, 2, null, 0))))
        .isEqualTo(new Record.Configured(3, 7, 2, List.of(0, 1),
            new Numbering.KeySpans(2, 2, Bytes.of(new byte[0]), null, List.of())));
  }

  /** A numbering this build does not know, or that cannot be, is refused naming the problem. */
  @Test
  void aMalformedNumberingIsRefused() throws Exception {
    assertThatThrownBy(() -> Codec.record(configuredWith(numberingBytes(-4, 2, 4, "X", 0))))
        .isInstanceOf(Codec.Malformed.class).hasMessageContaining("unknown numbering kind -4");
    assertThatThrownBy(() -> Codec.record(configuredWith(
        numberingBytes(-2, 2, 4, "NO_SUCH_HASH", 1))))
        .isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("unknown key hash NO_SUCH_HASH");
    // spans whose cuts are not one a split
    assertThatThrownBy(() -> Codec.record(configuredWith(numberingBytes(-1, 2, 8, null, 1))))
        .isInstanceOf(Codec.Malformed.class).hasMessageContaining("1 cuts are given");
    // hash halves whose modulus is not the base doubled
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream d = new DataOutputStream(buf);
    d.writeInt(3);
    d.writeLong(5);
    assertThatThrownBy(() -> Codec.record(configuredWith(buf.toByteArray())))
        .isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("not a table of base 3 split in halves");
    // in a message, and in a control state's row, alike
    byte[] configure = Codec.encode(new Envelope(-1, 2,
        new Message.Configure(4, 7, 2, List.of(0), new Numbering.Hashed(2, 4))));
    java.nio.ByteBuffer.wrap(configure).putInt(4 + 4 + 1 + 4 + 8 + 4, -4);
    assertThatThrownBy(() -> Codec.decode(configure)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("unknown numbering kind -4");
    byte[] state = Codec.encode(new Record.ControlState(2, List.of(new Record.ControlState.Row(
        0, 7, TOKENS, List.of(0), new java.util.TreeSet<>(List.of(0)), -1, 0, null)),
        new java.util.TreeSet<>(List.of(0)), new java.util.TreeSet<>()));
    java.nio.ByteBuffer.wrap(state).putInt(1 + 4 + 4 + 4 + 8, -4);
    assertThatThrownBy(() -> Codec.record(state)).isInstanceOf(Codec.Malformed.class)
        .hasMessageContaining("unknown numbering kind -4");
  }

  /** A table of span rows routes each key to the row whose span holds it. */
  @Test
  void aTableOfKeySpansRoutesByRange() {
    // KEYS: partition 0 holds [empty, 50), partition 2 [50, 100); partition 1 is not in the table
    ReplicaClient.Table t = new ReplicaClient.Table(true, List.of(
        new ReplicaClient.Row(0, KEYS, 0, 1), new ReplicaClient.Row(2, KEYS, 1, 1)), null);
    assertThat(t.route(0)).hasValueSatisfying(row -> assertThat(row.partition()).isZero());
    assertThat(t.route(49)).hasValueSatisfying(row -> assertThat(row.partition()).isZero());
    assertThat(t.route(50)).hasValueSatisfying(row -> assertThat(row.partition()).isEqualTo(2));
    assertThat(t.route(99)).hasValueSatisfying(row -> assertThat(row.partition()).isEqualTo(2));
    assertThat(t.route(100)).isEmpty();
    assertThat(t.rows().get(1).modulus()).isEqualTo(4);
  }
}
