package io.partkit.replica.node;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Ack;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Confirm;
import io.partkit.replica.Message.Confirmed;
import io.partkit.replica.Message.Drain;
import io.partkit.replica.Message.Drained;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Level;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Ping;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Refuse;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Resume;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.Message.Suspect;
import io.partkit.replica.Message.Taken;
import io.partkit.replica.Message.Write;
import io.partkit.replica.Record;
import io.partkit.replica.Replica;
import io.partkit.replica.Record.Born;
import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Record.Configured;
import io.partkit.replica.Record.LevelBegun;
import io.partkit.replica.Record.Rebased;
import io.partkit.replica.Record.SnapshotPage;
import io.partkit.replica.Record.Snapshotted;
import io.partkit.replica.Record.Merge;
import io.partkit.replica.Record.Split;
import io.partkit.replica.Record.Written;
import io.partkit.replica.Numbering;
import io.partkit.replica.Role;
import io.partkit.replica.node.access.LoginHandshake;
import io.partkit.replica.node.load.CopiesReceived;
import io.partkit.replica.node.load.HotKey;
import io.partkit.replica.node.load.NodeLoad;
import io.partkit.replica.node.load.PartitionLoad;
import io.partkit.spi.NodeId;
import io.partkit.spi.hash.KeyHash;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The hand-written binary form of every frame on the wire and every record in the log: big-endian
 * numbers, a tag byte per type, byte strings as a length and the bytes (length -1: null). Decoding
 * checks every length against what is left, so a malformed frame is refused as a whole ({@link
 * Malformed}) instead of allocating what a corrupt length asks for.
 *
 * <p>A frame is an {@link Envelope} of a core {@link Message}, or one of the driver's own {@link
 * Frame}s: a connection's login ({@link LoginHandshake}) and {@link Frame.Hello}, a client's
 * table request and its answer, a client's load request and a node's load view, and a client's
 * request for a node's partitions and its listing, which the core knows nothing of.
 *
 * <p>Records keep their tags for good, since a log outlives the build that wrote it: a new shape
 * of a record gets a new tag, and the old tag is still read. Frames need less care (the
 * processes of one cluster run one build), so a message's shape changes in place. A client's
 * answers are read by tools that may ask nodes of another build (a harness, a bench, a rolling
 * restart), so the load answer grew at its end only, and its earlier, shorter form is still read
 * as not saying what the node received ({@link Frame.Load#received()} null). A node's listing of
 * its partitions ({@link Frame.Partitions}) holds each partition's status as an entry of its own
 * length: a later build appends fields to an entry (read when present, as the load answer's), and
 * the fields after those a reader knows are skipped, so builds read each other's listings.
 */
final class Codec {

  /** The largest frame (and log record) read or written: a partition's snapshot must fit. */
  static final int MAX_FRAME = 16 << 20;

  private static final byte REQUEST = 1;
  private static final byte REPLY = 2;
  private static final byte REPLICATE = 3;
  private static final byte CONFIRM = 4;
  private static final byte SNAPSHOT = 5;
  private static final byte ACK = 6;
  private static final byte CONFIRMED = 7;
  private static final byte REFUSE = 8;
  private static final byte CONFIGURE = 9;
  private static final byte SUSPECT = 10;
  private static final byte LEVELLED = 11;
  private static final byte PING = 12;
  private static final byte PONG = 13;
  private static final byte SCAN = 14;
  private static final byte PAGE = 15;
  private static final byte LEVEL = 16;
  private static final byte DRAIN = 17;
  private static final byte DRAINED = 18;
  private static final byte TAKEN = 19;
  private static final byte HELLO = 20;
  private static final byte TABLE_REQUEST = 21;
  private static final byte TABLE = 22;
  private static final byte LOGIN_HELLO = 23;
  private static final byte LOGIN_PROOF = 24;
  private static final byte LOGIN_RESULT = 25;
  private static final byte LOAD_REQUEST = 26;
  private static final byte LOAD = 27;
  private static final byte RESUME = 28;
  private static final byte PARTITIONS_REQUEST = 29;
  private static final byte PARTITIONS = 30;
  /**
   * A scan routed by a merged numbering: {@link #SCAN} and then the generation (tags 29 and 30
   * are taken by the partition listing's frames).
   */
  private static final byte SCAN_MERGED = 31;

  // Record tags 1 and 4 are the shapes before partitions were numbered (no modulus): still read,
  // as numbered at 0, so a log written by an earlier build replays; never written.
  private static final byte UNNUMBERED_CONFIGURED = 1;
  private static final byte LEVEL_BEGUN = 2;
  private static final byte WRITTEN = 3;
  private static final byte UNNUMBERED_SNAPSHOTTED = 4;
  private static final byte SPLIT = 7;
  private static final byte CONFIGURED = 9;
  private static final byte SNAPSHOTTED = 10;
  // Tag 11 is the checkpoint before a copy's state was named by its level: still read, as
  // unnamed (a new level then sends that copy the whole snapshot); never written.
  private static final byte UNNAMED_CHECKPOINT = 11;
  private static final byte CHECKPOINT = 12;
  private static final byte REBASED = 13;
  private static final byte SNAPSHOT_PAGE = 14;
  private static final byte SPLIT_AT = 15;
  private static final byte BORN = 16;
  private static final byte MERGE = 17;
  /** A page of a checkpoint's data ({@link Record.CheckpointPage}). */
  private static final byte CHECKPOINT_PAGE = 18;
  /** A checkpoint that completes the pages logged right before it. */
  private static final byte PAGED_CHECKPOINT = 19;
  // Tags 5, 6 and 8 held partitions numbered by a hash modulo their modulus, before keys were
  // numbered as partkit's hash slots: their keys sit in other partitions than this build would
  // look in, so such a log is refused rather than replayed.
  // Numberings of spans, where hash halves hold their base (see numbering()).
  private static final int KEY_SPANS = -1;
  private static final int TOKEN_SPANS = -2;
  /** A numbering after merges: the generation, then the numbering as before. */
  private static final int MERGED = -3;
  private static final java.util.Set<Byte> OTHER_NUMBERING = java.util.Set.of((byte) 5, (byte) 6,
      (byte) 8);

  private Codec() {}

  /** A frame that cannot be decoded: the connection (or log record) is not trusted further. */
  static final class Malformed extends IOException {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  // ---- frames

  /** An envelope or a {@link Frame} as bytes. */
  static byte[] encode(Object frame) {
    Out out = new Out();
    try {
      if (frame instanceof Envelope e) {
        out.d.writeInt(e.from());
        out.d.writeInt(e.to());
        message(out, e.message());
      } else if (frame instanceof Frame.Hello h) {
        driverFrame(out, h.id(), HELLO);
      } else if (frame instanceof LoginHandshake.Hello h) {
        driverFrame(out, 0, LOGIN_HELLO);
        out.d.writeInt(h.version());
        out.d.writeBoolean(h.auth());
        raw(out, h.challenge());
      } else if (frame instanceof Frame.Proof p) {
        driverFrame(out, 0, LOGIN_PROOF);
        raw(out, p.proof());
      } else if (frame instanceof LoginHandshake.Result r) {
        driverFrame(out, 0, LOGIN_RESULT);
        out.d.writeBoolean(r.accepted());
        string(out, r.why());
      } else if (frame instanceof Frame.TableRequest t) {
        clientFrame(out, TABLE_REQUEST, t.id());
      } else if (frame instanceof Frame.Table t) {
        clientFrame(out, TABLE, t.id());
        out.d.writeBoolean(t.settled());
        out.d.writeInt(t.rows().size());
        for (ReplicaClient.Row row : t.rows()) {
          out.d.writeInt(row.partition());
          numbering(out, row.numbering());
          out.d.writeInt(row.primary());
          out.d.writeLong(row.epoch());
        }
        string(out, t.unsettled());
      } else if (frame instanceof Frame.PartitionsRequest r) {
        clientFrame(out, PARTITIONS_REQUEST, r.id());
        out.d.writeInt(r.partition());
      } else if (frame instanceof Frame.Partitions l) {
        clientFrame(out, PARTITIONS, l.id());
        out.d.writeInt(l.node());
        out.d.writeInt(l.partitions().size());
        for (Replica.Status status : l.partitions()) {
          Out entry = new Out();
          status(entry, status);
          raw(out, entry.bytes());
        }
      } else if (frame instanceof Frame.LoadRequest l) {
        clientFrame(out, LOAD_REQUEST, l.id());
      } else if (frame instanceof Frame.Load l) {
        clientFrame(out, LOAD, l.id());
        view(out, l.view());
        if (l.received() != null) {
          received(out, l.received());
        }
      } else {
        throw new IllegalArgumentException("not a frame: " + frame);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return out.bytes();
  }

  /**
   * The head of a driver's frame: an envelope's place for its sender ({@code from}: a hello's
   * endpoint, else 0) and receiver (0), then the frame's tag where a message's goes.
   */
  private static void driverFrame(Out out, int from, byte tag) throws IOException {
    out.d.writeInt(from);
    out.d.writeInt(0);
    out.d.writeByte(tag);
  }

  /** The envelope or {@link Frame} in {@code bytes}. */
  static Object decode(byte[] bytes) throws Malformed {
    In in = new In(bytes);
    try {
      int from = in.b.getInt();
      int to = in.b.getInt();
      byte tag = in.b.get();
      Object frame;
      switch (tag) {
        case HELLO -> frame = new Frame.Hello(from);
        case LOGIN_HELLO -> frame = new LoginHandshake.Hello(in.b.getInt(), in.bool(),
            in.nonNullRaw());
        case LOGIN_PROOF -> frame = new Frame.Proof(in.nonNullRaw());
        case LOGIN_RESULT -> frame = new LoginHandshake.Result(in.bool(), in.nonNullString());
        case TABLE_REQUEST -> frame = new Frame.TableRequest(in.b.getLong());
        case TABLE -> {
          long id = in.b.getLong();
          boolean settled = in.bool();
          int n = in.count(28);
          List<ReplicaClient.Row> rows = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            rows.add(new ReplicaClient.Row(in.b.getInt(), in.numbering(), in.b.getInt(),
                in.b.getLong()));
          }
          frame = new Frame.Table(id, settled, rows, in.string());
        }
        case LOAD_REQUEST -> frame = new Frame.LoadRequest(in.b.getLong());
        case PARTITIONS_REQUEST -> frame = new Frame.PartitionsRequest(in.b.getLong(),
            in.b.getInt());
        case PARTITIONS -> {
          long id = in.b.getLong();
          int node = in.b.getInt();
          int n = in.count(4);
          List<Replica.Status> statuses = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            byte[] entry = in.raw();
            if (entry == null) {
              throw new Malformed("a partition listing's entry " + i + " is null");
            }
            statuses.add(status(new In(entry)));
          }
          frame = new Frame.Partitions(id, node, statuses);
        }
        case LOAD -> {
          long id = in.b.getLong();
          NodeLoad view = view(in);
          // an earlier build's answer ends with its view: it did not count what it received
          frame = new Frame.Load(id, view, in.b.hasRemaining() ? received(in) : null);
        }
        default -> frame = new Envelope(from, to, message(in, tag));
      }
      in.end();
      return frame;
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new Malformed("malformed frame: " + e);
    }
  }

  /**
   * The start of a client's request to the driver or its answer: no endpoints (the connection
   * says who asks), the tag, the number that pairs the answer with the request.
   */
  private static void clientFrame(Out out, byte tag, long id) throws IOException {
    driverFrame(out, 0, tag);
    out.d.writeLong(id);
  }

  /** A node's load view: its id, each partition's figures, its hot keys. */
  private static void view(Out out, NodeLoad v) throws IOException {
    string(out, v.node().value());
    out.d.writeInt(v.partitions().size());
    for (PartitionLoad p : v.partitions()) {
      out.d.writeInt(p.partition());
      string(out, p.state());
      for (long n : new long[] {p.epoch(), p.keys(), p.measuredNanos(), p.gets(), p.puts(),
          p.compareAndSets(), p.bytesIn(), p.bytesOut(), p.latencyTotalNanos(),
          p.latencyMaxNanos()}) {
        out.d.writeLong(n);
      }
      raw(out, p.splitKey());
    }
    out.d.writeLong(v.hotKeyRequests());
    out.d.writeLong(v.hotKeyMaximumError());
    out.d.writeInt(v.hottestKeys().size());
    for (HotKey k : v.hottestKeys()) {
      out.d.writeInt(k.partition());
      raw(out, k.key());
      out.d.writeBoolean(k.truncated());
      out.d.writeLong(k.estimate());
      out.d.writeLong(k.lowerBound());
      out.d.writeLong(k.upperBound());
    }
  }

  /**
   * One partition's status in a node's listing, an entry of its own: a later build appends its
   * fields at the end, and {@link #status(In)} reads the fields it knows and leaves the rest.
   */
  private static void status(Out out, Replica.Status s) throws IOException {
    out.d.writeInt(s.partition());
    out.d.writeByte(s.role().ordinal()); // as a checkpoint has it: never renumbered
    out.d.writeLong(s.epoch());
    numbering(out, s.numbering());
    out.d.writeInt(s.primary());
    ints(out, s.backups());
    ints(out, s.joining());
    out.d.writeLong(s.level());
    out.d.writeBoolean(s.levelled());
    out.d.writeBoolean(s.serving());
    out.d.writeLong(s.state().epoch());
    out.d.writeLong(s.state().level());
    out.d.writeLong(s.seq());
    out.d.writeInt(s.keys());
    out.d.writeInt(s.queued());
    out.d.writeBoolean(s.copyArriving());
    out.d.writeInt(s.copiesSending());
  }

  /** A status entry: the fields this build knows, whatever a later build appended after them. */
  private static Replica.Status status(In in) throws Malformed {
    int partition = in.b.getInt();
    Role role = in.role();
    long epoch = in.b.getLong();
    Numbering numbering = in.numbering();
    int primary = in.b.getInt();
    List<Integer> backups = ints(in);
    List<Integer> joining = ints(in);
    long level = in.b.getLong();
    boolean levelled = in.bool();
    boolean serving = in.bool();
    Replica.StateName state = new Replica.StateName(in.b.getLong(), in.b.getLong());
    return new Replica.Status(partition, role, epoch, numbering, primary, backups, joining,
        level, levelled, serving, state, in.b.getLong(), in.b.getInt(), in.b.getInt(), in.bool(),
        in.b.getInt());
  }

  private static void ints(Out out, List<Integer> ints) throws IOException {
    out.d.writeInt(ints.size());
    for (int i : ints) {
      out.d.writeInt(i);
    }
  }

  private static List<Integer> ints(In in) throws Malformed {
    int n = in.count(4);
    List<Integer> ints = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ints.add(in.b.getInt());
    }
    return ints;
  }

  /** What a node received to create or level copies: five counts, appended to its load view. */
  private static void received(Out out, CopiesReceived r) throws IOException {
    for (long n : new long[] {r.keys(), r.bytes(), r.partitions(), r.pages(), r.levels()}) {
      out.d.writeLong(n);
    }
  }

  private static CopiesReceived received(In in) {
    return new CopiesReceived(in.b.getLong(), in.b.getLong(), in.b.getLong(), in.b.getLong(),
        in.b.getLong());
  }

  private static NodeLoad view(In in) throws Malformed {
    String node = in.string();
    if (node == null) {
      throw new Malformed("a load view without the node's id");
    }
    int n = in.count(4 + 4 + 10 * 8 + 4);
    List<PartitionLoad> partitions = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int partition = in.b.getInt();
      String state = in.string();
      if (state == null) {
        throw new Malformed("a load view of partition " + partition + " without its state");
      }
      partitions.add(new PartitionLoad(partition, state, in.b.getLong(), in.b.getLong(),
          in.b.getLong(), in.b.getLong(), in.b.getLong(), in.b.getLong(), in.b.getLong(),
          in.b.getLong(), in.b.getLong(), in.b.getLong(), in.raw()));
    }
    long requests = in.b.getLong();
    long maximumError = in.b.getLong();
    int h = in.count(4 + 4 + 1 + 3 * 8);
    List<HotKey> hot = new ArrayList<>(h);
    for (int i = 0; i < h; i++) {
      int partition = in.b.getInt();
      byte[] key = in.raw();
      if (key == null) {
        throw new Malformed("a load view's hot key " + i + " without its bytes");
      }
      hot.add(new HotKey(partition, key, in.bool(), in.b.getLong(), in.b.getLong(),
          in.b.getLong()));
    }
    return new NodeLoad(NodeId.of(node), partitions, requests, maximumError, hot);
  }

  private static void raw(Out out, byte[] a) throws IOException {
    if (a == null) {
      out.d.writeInt(-1);
      return;
    }
    out.d.writeInt(a.length);
    out.d.write(a);
  }

  private static void message(Out out, Message m) throws IOException {
    DataOutputStream d = out.d;
    if (m instanceof Request r) {
      d.writeByte(REQUEST);
      d.writeLong(r.id());
      d.writeInt(r.partition());
      d.writeByte(r.kind().ordinal());
      bytes(out, r.key());
      bytes(out, r.expected());
      bytes(out, r.value());
    } else if (m instanceof Reply r) {
      d.writeByte(REPLY);
      d.writeLong(r.id());
      d.writeByte(r.outcome().ordinal());
      bytes(out, r.value());
      string(out, r.why());
    } else if (m instanceof Scan s) {
      d.writeByte(s.generation() == 0 ? SCAN : SCAN_MERGED);
      d.writeLong(s.id());
      d.writeInt(s.partition());
      d.writeLong(s.modulus());
      bytes(out, s.from());
      bytes(out, s.to());
      d.writeInt(s.limit());
      if (s.generation() != 0) {
        d.writeLong(s.generation());
      }
    } else if (m instanceof Page p) {
      d.writeByte(PAGE);
      d.writeLong(p.id());
      d.writeByte(p.outcome().ordinal());
      map(out, p.entries());
      d.writeBoolean(p.more());
      string(out, p.why());
    } else if (m instanceof Replicate r) {
      d.writeByte(REPLICATE);
      head(d, r.partition(), r.epoch(), r.level());
      d.writeLong(r.seq());
      bytes(out, r.key());
      bytes(out, r.value());
    } else if (m instanceof Confirm c) {
      d.writeByte(CONFIRM);
      head(d, c.partition(), c.epoch(), c.level());
      d.writeLong(c.round());
    } else if (m instanceof Snapshot s) {
      d.writeByte(SNAPSHOT);
      head(d, s.partition(), s.epoch(), s.level());
      d.writeLong(s.seq());
      numbering(out, s.numbering());
      d.writeInt(s.page());
      d.writeBoolean(s.last());
      map(out, s.data());
    } else if (m instanceof Level l) {
      d.writeByte(LEVEL);
      head(d, l.partition(), l.epoch(), l.level());
      d.writeLong(l.fromEpoch());
      d.writeLong(l.fromLevel());
      d.writeLong(l.seq());
      numbering(out, l.numbering());
      d.writeInt(l.tail().size());
      for (Write w : l.tail()) {
        d.writeLong(w.seq());
        bytes(out, w.key());
        bytes(out, w.value());
      }
    } else if (m instanceof Ack a) {
      d.writeByte(ACK);
      head(d, a.partition(), a.epoch(), a.level());
      d.writeLong(a.seq());
    } else if (m instanceof Taken t) {
      d.writeByte(TAKEN);
      head(d, t.partition(), t.epoch(), t.level());
      d.writeLong(t.seq());
      d.writeInt(t.page());
    } else if (m instanceof Confirmed c) {
      d.writeByte(CONFIRMED);
      head(d, c.partition(), c.epoch(), c.level());
      d.writeLong(c.round());
    } else if (m instanceof Refuse r) {
      d.writeByte(REFUSE);
      d.writeInt(r.partition());
      d.writeLong(r.epoch());
      d.writeBoolean(r.stale());
    } else if (m instanceof Configure c) {
      d.writeByte(CONFIGURE);
      d.writeInt(c.partition());
      d.writeLong(c.epoch());
      d.writeInt(c.primary());
      numbering(out, c.numbering());
      ints(d, c.backups());
      ints(d, c.joining());
    } else if (m instanceof Suspect s) {
      d.writeByte(SUSPECT);
      d.writeInt(s.partition());
      d.writeLong(s.epoch());
      ints(d, new ArrayList<>(new TreeSet<>(s.suspects())));
    } else if (m instanceof Levelled l) {
      d.writeByte(LEVELLED);
      d.writeInt(l.partition());
      d.writeLong(l.epoch());
    } else if (m instanceof Drain r) {
      d.writeByte(DRAIN);
      d.writeInt(r.partition());
      d.writeLong(r.epoch());
    } else if (m instanceof Drained r) {
      d.writeByte(DRAINED);
      d.writeInt(r.partition());
      d.writeLong(r.epoch());
    } else if (m instanceof Resume r) {
      d.writeByte(RESUME);
      d.writeInt(r.partition());
      d.writeLong(r.epoch());
    } else if (m instanceof Ping p) {
      d.writeByte(PING);
      d.writeLong(p.n());
      d.writeLong(p.incarnation());
      d.writeInt(p.fences().size());
      for (Configure fence : p.fences()) {
        message(out, fence);
      }
    } else if (m instanceof Pong p) {
      d.writeByte(PONG);
      d.writeLong(p.n());
      for (Map<Integer, Long> counts : List.of(p.held(), p.served())) {
        TreeMap<Integer, Long> sorted = new TreeMap<>(counts);
        d.writeInt(sorted.size());
        for (Map.Entry<Integer, Long> e : sorted.entrySet()) {
          d.writeInt(e.getKey());
          d.writeLong(e.getValue());
        }
      }
      d.writeLong(p.incarnation());
      d.writeBoolean(p.acknowledged());
    } else {
      throw new IllegalArgumentException("no encoding for " + m);
    }
  }

  private static Message message(In in, byte tag) throws Malformed {
    ByteBuffer b = in.b;
    switch (tag) {
      case REQUEST -> {
        long id = b.getLong();
        int partition = b.getInt();
        Kind kind = in.kind();
        return new Request(id, partition, kind, in.nonNullBytes(), in.bytes(), in.bytes());
      }
      case REPLY -> {
        long id = b.getLong();
        Outcome outcome = in.outcome();
        return new Reply(id, outcome, in.bytes(), in.string());
      }
      case SCAN, SCAN_MERGED -> {
        long id = b.getLong();
        int partition = b.getInt();
        long modulus = b.getLong();
        Bytes from = in.nonNullBytes();
        Bytes to = in.bytes();
        int limit = b.getInt();
        return new Scan(id, partition, modulus, from, to, limit,
            tag == SCAN_MERGED ? b.getLong() : 0);
      }
      case PAGE -> {
        long id = b.getLong();
        Outcome outcome = in.outcome();
        return new Page(id, outcome, in.map(), in.bool(), in.string());
      }
      case REPLICATE -> {
        int p = b.getInt();
        long epoch = b.getLong();
        long level = b.getLong();
        long seq = b.getLong();
        return new Replicate(p, epoch, level, seq, in.nonNullBytes(), in.nonNullBytes());
      }
      case CONFIRM -> {
        return new Confirm(b.getInt(), b.getLong(), b.getLong(), b.getLong());
      }
      case SNAPSHOT -> {
        int p = b.getInt();
        long epoch = b.getLong();
        long level = b.getLong();
        long seq = b.getLong();
        Numbering numbering = in.numbering();
        int page = b.getInt();
        boolean last = in.bool();
        return new Snapshot(p, epoch, level, seq, in.map(), numbering, page, last);
      }
      case LEVEL -> {
        int p = b.getInt();
        long epoch = b.getLong();
        long level = b.getLong();
        long fromEpoch = b.getLong();
        long fromLevel = b.getLong();
        long seq = b.getLong();
        Numbering numbering = in.numbering();
        int n = in.count(16);
        List<Write> tail = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          tail.add(new Write(b.getLong(), in.nonNullBytes(), in.nonNullBytes()));
        }
        return new Level(p, epoch, level, fromEpoch, fromLevel, seq, tail, numbering);
      }
      case ACK -> {
        return new Ack(b.getInt(), b.getLong(), b.getLong(), b.getLong());
      }
      case TAKEN -> {
        return new Taken(b.getInt(), b.getLong(), b.getLong(), b.getLong(), b.getInt());
      }
      case CONFIRMED -> {
        return new Confirmed(b.getInt(), b.getLong(), b.getLong(), b.getLong());
      }
      case REFUSE -> {
        return new Refuse(b.getInt(), b.getLong(), in.bool());
      }
      case CONFIGURE -> {
        int p = b.getInt();
        long epoch = b.getLong();
        int primary = b.getInt();
        Numbering numbering = in.numbering();
        List<Integer> backups = in.ints();
        return new Configure(p, epoch, primary, backups, numbering,
            new TreeSet<>(in.ints()));
      }
      case SUSPECT -> {
        int p = b.getInt();
        long epoch = b.getLong();
        return new Suspect(p, epoch, Set.copyOf(in.ints()));
      }
      case LEVELLED -> {
        return new Levelled(b.getInt(), b.getLong());
      }
      case DRAIN -> {
        return new Drain(b.getInt(), b.getLong());
      }
      case DRAINED -> {
        return new Drained(b.getInt(), b.getLong());
      }
      case RESUME -> {
        return new Resume(b.getInt(), b.getLong());
      }
      case PING -> {
        long n = b.getLong();
        long incarnation = b.getLong();
        int count = in.count(1);
        List<Configure> fences = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          byte fenceTag = b.get();
          if (fenceTag != CONFIGURE) {
            throw new Malformed("a heartbeat's fence is not a configuration: tag " + fenceTag);
          }
          fences.add((Configure) message(in, fenceTag));
        }
        return new Ping(n, incarnation, fences);
      }
      case PONG -> {
        long n = b.getLong();
        List<Map<Integer, Long>> counts = new ArrayList<>(2);
        for (int m = 0; m < 2; m++) {
          int count = in.count(12);
          Map<Integer, Long> byPartition = new HashMap<>();
          for (int i = 0; i < count; i++) {
            byPartition.put(b.getInt(), b.getLong());
          }
          counts.add(byPartition);
        }
        return new Pong(n, counts.get(0), counts.get(1), b.getLong(), in.bool());
      }
      default -> throw new Malformed("unknown message tag " + tag);
    }
  }

  // ---- records

  /**
   * At most the size of {@code r} as bytes, found without encoding it: the keys and values it
   * holds with their lengths (0 for a record that holds no data). A partition's whole data
   * would take its size again, and more, to encode; a record known over {@link #MAX_FRAME} by
   * this need never be.
   */
  static long leastSize(Record r) {
    Map<Bytes, Bytes> data = r instanceof Checkpoint c ? c.data()
        : r instanceof Record.CheckpointPage cp ? cp.data()
        : r instanceof SnapshotPage p ? p.data()
        : r instanceof Snapshotted s ? s.data()
        : r instanceof Rebased b ? b.put()
        : Map.of();
    long size = 0;
    for (Map.Entry<Bytes, Bytes> e : data.entrySet()) {
      size += 8 + e.getKey().length() + e.getValue().length();
    }
    return size;
  }

  /** A log record as bytes. */
  static byte[] encode(Record r) {
    if (r instanceof Record.ControlState c) {
      return ControlStateCodec.encode(c);
    }
    Out out = new Out();
    DataOutputStream d = out.d;
    try {
      if (r instanceof Configured c) {
        d.writeByte(CONFIGURED);
        d.writeInt(c.partition());
        d.writeLong(c.epoch());
        d.writeInt(c.primary());
        numbering(out, c.numbering());
        ints(d, c.backups());
      } else if (r instanceof LevelBegun l) {
        d.writeByte(LEVEL_BEGUN);
        head(d, l.partition(), l.epoch(), l.level());
      } else if (r instanceof Written w) {
        d.writeByte(WRITTEN);
        head(d, w.partition(), w.epoch(), w.level());
        d.writeLong(w.seq());
        bytes(out, w.key());
        bytes(out, w.value());
      } else if (r instanceof Snapshotted s) {
        d.writeByte(SNAPSHOTTED);
        d.writeInt(s.partition());
        d.writeLong(s.epoch());
        d.writeInt(s.primary());
        d.writeLong(s.level());
        d.writeLong(s.seq());
        numbering(out, s.numbering());
        map(out, s.data());
      } else if (r instanceof SnapshotPage s) {
        d.writeByte(SNAPSHOT_PAGE);
        d.writeInt(s.partition());
        d.writeLong(s.epoch());
        d.writeInt(s.primary());
        d.writeLong(s.level());
        d.writeLong(s.seq());
        d.writeInt(s.page());
        d.writeBoolean(s.last());
        numbering(out, s.numbering());
        map(out, s.data());
      } else if (r instanceof Rebased rb) {
        d.writeByte(REBASED);
        d.writeInt(rb.partition());
        d.writeLong(rb.epoch());
        d.writeInt(rb.primary());
        d.writeLong(rb.level());
        d.writeLong(rb.seq());
        map(out, rb.put());
        d.writeInt(rb.removed().size());
        for (Bytes key : rb.removed()) {
          bytes(out, key);
        }
      } else if (r instanceof Born born) {
        d.writeByte(BORN);
        d.writeLong(born.incarnation());
      } else if (r instanceof Merge mg) {
        d.writeByte(MERGE);
        d.writeInt(mg.partition());
        d.writeInt(mg.sibling());
        numbering(out, mg.numbering());
      } else if (r instanceof Split s) {
        d.writeByte(s.cut() == null ? SPLIT : SPLIT_AT);
        d.writeInt(s.partition());
        d.writeLong(s.modulus());
        if (s.cut() != null) {
          bytes(out, s.cut());
        }
      } else if (r instanceof Record.CheckpointPage cp) {
        d.writeByte(CHECKPOINT_PAGE);
        d.writeInt(cp.partition());
        d.writeInt(cp.page());
        map(out, cp.data());
      } else if (r instanceof Checkpoint c) {
        // whole in one record: as earlier builds wrote it, which they still read
        d.writeByte(c.pages() == 0 ? CHECKPOINT : PAGED_CHECKPOINT);
        d.writeInt(c.partition());
        d.writeLong(c.epoch());
        d.writeBoolean(c.configured());
        d.writeByte(c.role().ordinal());
        d.writeInt(c.primary());
        ints(d, c.backups());
        d.writeBoolean(c.deposed());
        d.writeLong(c.level());
        d.writeLong(c.nextLevel());
        d.writeBoolean(c.levelled());
        d.writeLong(c.seq());
        numbering(out, c.numbering());
        d.writeBoolean(c.inherited());
        d.writeLong(c.stateEpoch());
        d.writeLong(c.stateLevel());
        if (c.pages() > 0) {
          d.writeInt(c.pages());
        }
        map(out, c.data());
      } else {
        throw new IllegalArgumentException("no encoding for " + r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.bytes();
  }

  /** The log record in {@code bytes}. */
  static Record record(byte[] bytes) throws Malformed {
    if (bytes.length > 0 && (bytes[0] == ControlStateCodec.TAG
        || bytes[0] == ControlStateCodec.NUMBERED_TAG
        || bytes[0] == ControlStateCodec.MODULUS_TAG
        || bytes[0] == ControlStateCodec.NO_JOINING_TAG
        || bytes[0] == ControlStateCodec.OTHER_NUMBERING_TAG)) {
      return ControlStateCodec.decode(bytes);
    }
    In in = new In(bytes);
    ByteBuffer b = in.b;
    try {
      byte tag = b.get();
      if (OTHER_NUMBERING.contains(tag)) {
        throw new Malformed("record tag " + tag + " is of a build that numbered keys by a hash"
            + " modulo the partition count: this build numbers them as hash slots and cannot"
            + " replay it (start the node on an empty data directory)");
      }
      Record r;
      switch (tag) {
        case CONFIGURED, UNNUMBERED_CONFIGURED -> {
          int p = b.getInt();
          long epoch = b.getLong();
          int primary = b.getInt();
          Numbering numbering = tag == CONFIGURED ? in.numbering() : Numbering.NONE;
          r = new Configured(p, epoch, primary, in.ints(), numbering);
        }
        case LEVEL_BEGUN -> r = new LevelBegun(b.getInt(), b.getLong(), b.getLong());
        case WRITTEN -> {
          int p = b.getInt();
          long epoch = b.getLong();
          long level = b.getLong();
          long seq = b.getLong();
          r = new Written(p, epoch, level, seq, in.nonNullBytes(), in.nonNullBytes());
        }
        case SNAPSHOTTED, UNNUMBERED_SNAPSHOTTED -> {
          int p = b.getInt();
          long epoch = b.getLong();
          int primary = b.getInt();
          long level = b.getLong();
          long seq = b.getLong();
          Numbering numbering = tag == SNAPSHOTTED ? in.numbering() : Numbering.NONE;
          r = new Snapshotted(p, epoch, primary, level, seq, in.map(), numbering);
        }
        case SPLIT -> r = new Split(b.getInt(), b.getLong());
        case SPLIT_AT -> r = new Split(b.getInt(), b.getLong(), in.nonNullBytes());
        case BORN -> r = new Born(b.getLong());
        case MERGE -> {
          int p = b.getInt();
          int sibling = b.getInt();
          r = new Merge(p, sibling, in.numbering());
        }
        case SNAPSHOT_PAGE -> {
          int p = b.getInt();
          long epoch = b.getLong();
          int primary = b.getInt();
          long level = b.getLong();
          long seq = b.getLong();
          int page = b.getInt();
          boolean last = in.bool();
          Numbering numbering = in.numbering();
          r = new SnapshotPage(p, epoch, primary, level, seq, page, last, in.map(), numbering);
        }
        case REBASED -> {
          int p = b.getInt();
          long epoch = b.getLong();
          int primary = b.getInt();
          long level = b.getLong();
          long seq = b.getLong();
          TreeMap<Bytes, Bytes> put = in.map();
          int n = in.count(4);
          TreeSet<Bytes> removed = new TreeSet<>();
          for (int i = 0; i < n; i++) {
            removed.add(in.nonNullBytes());
          }
          r = new Rebased(p, epoch, primary, level, seq, put, removed);
        }
        case CHECKPOINT_PAGE -> {
          int p = b.getInt();
          int page = b.getInt();
          r = new Record.CheckpointPage(p, page, in.map());
        }
        case CHECKPOINT, UNNAMED_CHECKPOINT, PAGED_CHECKPOINT -> {
          int p = b.getInt();
          long epoch = b.getLong();
          boolean configured = in.bool();
          Role role = in.role();
          int primary = b.getInt();
          List<Integer> backups = in.ints();
          boolean deposed = in.bool();
          long level = b.getLong();
          long nextLevel = b.getLong();
          boolean levelled = in.bool();
          long seq = b.getLong();
          Numbering numbering = in.numbering();
          boolean inherited = in.bool();
          long stateEpoch = tag != UNNAMED_CHECKPOINT ? b.getLong() : 0;
          long stateLevel = tag != UNNAMED_CHECKPOINT ? b.getLong() : 0;
          int pages = tag == PAGED_CHECKPOINT ? b.getInt() : 0;
          if (tag == PAGED_CHECKPOINT && pages < 1) {
            throw new Malformed("a paged checkpoint of " + pages + " pages");
          }
          r = new Checkpoint(p, epoch, configured, role, primary, backups, deposed, level,
              nextLevel, levelled, seq, numbering, inherited, stateEpoch, stateLevel,
              in.map(), pages);
        }
        default -> throw new Malformed("unknown record tag " + tag);
      }
      in.end();
      return r;
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new Malformed("malformed record: " + e);
    }
  }

  // ---- parts

  private static void head(DataOutputStream d, int partition, long epoch, long level)
      throws IOException {
    d.writeInt(partition);
    d.writeLong(epoch);
    d.writeLong(level);
  }

  /**
   * A numbering: hash halves (and none) as the int base and long modulus they always were; spans
   * behind a negative kind where the base was, so logs of earlier builds read as before; a merged
   * numbering's generation behind a kind of its own, before the numbering at generation 0.
   */
  static void numbering(Out out, Numbering n) throws IOException {
    DataOutputStream d = out.d;
    if (n.generation() != 0) {
      d.writeInt(MERGED);
      d.writeLong(n.generation());
      numbering(out, n.withGeneration(0));
      return;
    }
    if (n instanceof Numbering.KeySpans k) {
      d.writeInt(KEY_SPANS);
      d.writeInt(k.base());
      d.writeLong(k.modulus());
      bytes(out, k.from());
      bytes(out, k.to());
      cuts(out, k.cuts());
    } else if (n instanceof Numbering.TokenSpans t) {
      d.writeInt(TOKEN_SPANS);
      d.writeInt(t.base());
      d.writeLong(t.modulus());
      string(out, t.hash().name());
      d.writeLong(t.after());
      d.writeLong(t.upTo());
      cuts(out, t.cuts());
    } else {
      d.writeInt(n.base());
      d.writeLong(n.modulus());
    }
  }

  private static void cuts(Out out, List<Bytes> cuts) throws IOException {
    out.d.writeInt(cuts.size());
    for (Bytes c : cuts) {
      bytes(out, c);
    }
  }

  private static void bytes(Out out, Bytes b) throws IOException {
    raw(out, b == null ? null : b.toArray());
  }

  private static void string(Out out, String s) throws IOException {
    if (s == null) {
      out.d.writeInt(-1);
      return;
    }
    byte[] a = s.getBytes(StandardCharsets.UTF_8);
    out.d.writeInt(a.length);
    out.d.write(a);
  }

  static void ints(DataOutputStream d, Collection<Integer> values) throws IOException {
    d.writeInt(values.size());
    for (int v : values) {
      d.writeInt(v);
    }
  }

  private static void map(Out out, Map<Bytes, Bytes> data) throws IOException {
    out.d.writeInt(data.size());
    for (Map.Entry<Bytes, Bytes> e : data.entrySet()) {
      bytes(out, e.getKey());
      bytes(out, e.getValue());
    }
  }

  /** A growing buffer. */
  static final class Out {
    final ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
    final DataOutputStream d = new DataOutputStream(buf);

    byte[] bytes() {
      return buf.toByteArray();
    }
  }

  /** Bytes being read, every count checked against what is left. */
  static final class In {
    final ByteBuffer b;

    In(byte[] bytes) {
      this.b = ByteBuffer.wrap(bytes);
    }

    /** A count of items of at least {@code minBytes} each that the rest can hold. */
    int count(int minBytes) throws Malformed {
      int n = b.getInt();
      if (n < 0 || (long) n * minBytes > b.remaining()) {
        throw new Malformed("a count of " + n + " with " + b.remaining() + " bytes left");
      }
      return n;
    }

    /** A length-prefixed run of bytes; null for the length -1. */
    byte[] raw() throws Malformed {
      int n = b.getInt();
      if (n == -1) {
        return null;
      }
      if (n < 0 || n > b.remaining()) {
        throw new Malformed("a length of " + n + " with " + b.remaining() + " bytes left");
      }
      byte[] a = new byte[n];
      b.get(a);
      return a;
    }

    Bytes bytes() throws Malformed {
      byte[] a = raw();
      return a == null ? null : Bytes.of(a);
    }

    /** A numbering ({@link Codec#numbering(Out, Numbering)}). */
    Numbering numbering() throws Malformed {
      int kind = b.getInt();
      if (kind >= 0) {
        int base = kind;
        long modulus = b.getLong();
        return base == 0 && modulus == 0 ? Numbering.NONE : new Numbering.Hashed(base, modulus);
      }
      if (kind == MERGED) {
        long generation = b.getLong();
        if (generation <= 0) {
          throw new Malformed("a merged numbering's generation must be positive: " + generation);
        }
        Numbering n = numbering();
        if (n.generation() != 0 || n == Numbering.NONE) {
          throw new Malformed("a merged numbering holds one plain numbering, not " + n);
        }
        return n.withGeneration(generation);
      }
      int base = b.getInt();
      long modulus = b.getLong();
      if (kind == KEY_SPANS) {
        Bytes from = nonNullBytes();
        Bytes to = bytes();
        return new Numbering.KeySpans(base, modulus, from, to, cuts());
      }
      if (kind == TOKEN_SPANS) {
        KeyHash hash;
        String name = string();
        try {
          hash = KeyHash.valueOf(String.valueOf(name));
        } catch (IllegalArgumentException e) {
          throw new Malformed("unknown key hash " + name + " of a token numbering");
        }
        long after = b.getLong();
        long upTo = b.getLong();
        return new Numbering.TokenSpans(hash, base, modulus, after, upTo, cuts());
      }
      throw new Malformed("unknown numbering kind " + kind);
    }

    private List<Bytes> cuts() throws Malformed {
      int n = count(4);
      List<Bytes> cuts = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        cuts.add(nonNullBytes());
      }
      return cuts;
    }

    Bytes nonNullBytes() throws Malformed {
      Bytes v = bytes();
      if (v == null) {
        throw new Malformed("a missing key or value");
      }
      return v;
    }

    byte[] nonNullRaw() throws Malformed {
      byte[] a = raw();
      if (a == null) {
        throw new Malformed("missing bytes of a login");
      }
      return a;
    }

    String nonNullString() throws Malformed {
      String v = string();
      if (v == null) {
        throw new Malformed("a missing reason of a login's result");
      }
      return v;
    }

    String string() throws Malformed {
      byte[] a = raw();
      return a == null ? null : new String(a, StandardCharsets.UTF_8);
    }

    List<Integer> ints() throws Malformed {
      int n = count(4);
      List<Integer> values = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        values.add(b.getInt());
      }
      return values;
    }

    TreeMap<Bytes, Bytes> map() throws Malformed {
      int n = count(8);
      TreeMap<Bytes, Bytes> data = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        data.put(nonNullBytes(), nonNullBytes());
      }
      return data;
    }

    boolean bool() throws Malformed {
      byte v = b.get();
      if (v != 0 && v != 1) {
        throw new Malformed("a boolean of " + v);
      }
      return v == 1;
    }

    Kind kind() throws Malformed {
      byte v = b.get();
      if (v < 0 || v >= Kind.values().length) {
        throw new Malformed("a request kind of " + v);
      }
      return Kind.values()[v];
    }

    Role role() throws Malformed {
      byte v = b.get();
      if (v < 0 || v >= Role.values().length) {
        throw new Malformed("a role of " + v);
      }
      return Role.values()[v];
    }

    Outcome outcome() throws Malformed {
      byte v = b.get();
      if (v < 0 || v >= Outcome.values().length) {
        throw new Malformed("an outcome of " + v);
      }
      return Outcome.values()[v];
    }

    void end() throws Malformed {
      if (b.hasRemaining()) {
        throw new Malformed(b.remaining() + " bytes after the end");
      }
    }
  }
}
