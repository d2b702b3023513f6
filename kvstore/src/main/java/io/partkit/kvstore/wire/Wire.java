package io.partkit.kvstore.wire;

import io.partkit.kvstore.KvLimits;
import io.partkit.kvstore.PartitionStatus;
import io.partkit.replica.node.access.FrameBody;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The node protocol: length-prefixed binary frames over one TCP connection, one request and then
 * one response at a time (a client that wants concurrency opens more connections).
 *
 * <pre>
 * frame    = int32 length, body (length bytes; at most {@link #MAX_FRAME})
 * request  = int8 op, int32 partition, int64 epoch, then per op:
 *   GET       bytes key
 *   PUT       bytes key, bytes value
 *   CAS       bytes key, bytes expected (-1 length = absent), bytes value
 *   SCAN      bytes from, bytes to (-1 = no end), int32 limit   one page of the keys in
 *                                    [from, to), served as GET is ({@link ScanPage})
 *   ASSIGN    (nothing)              create an empty OWNED partition at epoch (bootstrap)
 *   FENCE     (nothing)              OWNED -> MIGRATING_OUT, epoch = the migration's target epoch
 *   UNFENCE   (nothing)              MIGRATING_OUT -> OWNED (roll back)
 *   SNAPSHOT  bytes after, int32 max one page of a fenced (or tracked OWNED) partition, keys
 *                                    after {@code after}
 *   RECEIVE   utf source             pull the fenced partition from source (only the delta after
 *                                    a PRECOPY): -> RECEIVED
 *   TRACK     (nothing)              source, OWNED: record the keys written from now on for the
 *                                    move at epoch; answers int64 token
 *   PRECOPY   utf source             target: ABSENT -> RECEIVING, copy while the source serves
 *   DELTA     int64 token, bytes after, int32 max   one page of the keys written since TRACK
 *                                    (or the last DRAIN), fenced
 *   DRAIN     int64 token, int32 max one page of those keys while still OWNED, taken out of the
 *                                    record
 *   ACTIVATE  (nothing)              RECEIVED -> OWNED at epoch (after the table commit)
 *   ABORT     (nothing)              RECEIVING/RECEIVED -> ABSENT (roll back); refused if OWNED
 *   DROP      (nothing)              MIGRATING_OUT -> ABSENT, remembering epoch
 *   CONFIGURE int8 role, int32 n, n x utf backup   role 1: primary at epoch with these backups
 *                                    (from OWNED, BACKUP or a fresh ABSENT); role 2: backup at
 *                                    epoch (from BACKUP, OWNED or a fresh ABSENT), int64 seq,
 *                                    int8 catching up follow the list
 *   REPLICATE int64 seq, bytes key, bytes value    backup at exactly epoch: apply write seq
 *   CONFIRM   (nothing)              backup at exactly epoch: answers int64 seq, bytes key, bytes
 *                                    value (its last replicated write), int8 catching up
 *   CATCHUP   utf primary            backup catching up: copy the primary's committed data
 *                                    (keys not replicated meanwhile), then caught up
 *   SPLIT     int8 phase, then     renumber every OWNED partition into a new scheme at epoch
 *                                    (a token-ring join), around the table's commit: 1 PREPARE
 *                                    bytes scheme ({@link SchemeCodec}), int32 n, n x int32 new
 *                                    partition owned here (fences the old numbering); 2 APPLY;
 *                                    3 ABORT; 4 QUERY (answers int64 pending epoch, bytes scheme,
 *                                    int64 last applied epoch)
 *   STATUS    (nothing)
 *   LIST      (nothing)              every partition held or once held (ABSENT with epoch > 0)
 *   LOAD      (nothing)              the node's load view: per partition served, counts of
 *                                    requests, bytes, keys and latency, its hottest keys, then
 *                                    each partition's median key (a split key for key ranges)
 *                                    ({@code LoadAnswer}, which encodes and decodes it)
 *   SUSPECTS  (nothing)              the backups each primary here suspects ({@link
 *                                    SuspectsReport})
 *   RECEIVED  (nothing)              what the node received to create copies since it started:
 *                                    int64 entries, int64 bytes, int64 partitions ({@link
 *                                    ReceivedCopies})
 * response = int8 status, int64 epoch, bytes value (-1 = none), utf message (-1 = none)
 * bytes    = int32 length (-1 = null), the bytes
 * utf      = bytes of the UTF-8 encoding
 * </pre>
 * All integers are big-endian. A STATUS answer's value is int8 state, int64 keys, int64 seq (the
 * last replicated write), int8 catching up; a SNAPSHOT answer's value (and a DELTA or DRAIN
 * answer's) is int32 count, count x (bytes key, bytes value), int8 more; a LIST answer's
 * value is int32 count, count x (int32 partition, int8 state, int64 epoch, int64 keys), where
 * epoch is as in {@link PartitionStatus}; a SCAN answer's value is a page as SNAPSHOT's (at most
 * limit entries, {@link ScanPage#MAX_ENTRIES} and about {@link ScanPage#MAX_BYTES}).
 */
public final class Wire {

  /** Largest frame accepted ({@link KvLimits#MAX_FRAME_BYTES}). */
  public static final int MAX_FRAME = KvLimits.MAX_FRAME_BYTES;

  public static final byte GET = 1;
  public static final byte PUT = 2;
  public static final byte CAS = 3;
  public static final byte ASSIGN = 10;
  public static final byte FENCE = 11;
  public static final byte UNFENCE = 12;
  public static final byte SNAPSHOT = 13;
  public static final byte RECEIVE = 14;
  public static final byte ACTIVATE = 15;
  public static final byte ABORT = 16;
  public static final byte DROP = 17;
  public static final byte STATUS = 18;
  public static final byte LIST = 19;
  public static final byte TRACK = 20;
  public static final byte PRECOPY = 21;
  public static final byte DELTA = 22;
  public static final byte DRAIN = 23;
  public static final byte CONFIGURE = 24;
  public static final byte REPLICATE = 25;
  public static final byte CONFIRM = 26;
  public static final byte CATCHUP = 27;
  public static final byte SPLIT = 28;
  public static final byte LOAD = 29;
  public static final byte SCAN = 30;
  /** The backups each primary here suspects (see {@link SuspectsReport}); no lock taken. */
  public static final byte SUSPECTS = 31;
  /**
   * What the node received from others to create copies since it started (see {@link
   * ReceivedCopies}); no lock taken.
   */
  public static final byte RECEIVED = 32;

  /** SPLIT phases (the int8 after the header). */
  public static final int SPLIT_PREPARE = 1;
  public static final int SPLIT_APPLY = 2;
  public static final int SPLIT_ABORT = 3;
  public static final int SPLIT_QUERY = 4;
  /** CONFIGURE roles (the int8 after the header). */
  public static final int ROLE_PRIMARY = 1;
  public static final int ROLE_BACKUP = 2;
  public static final int ROLE_JOIN = 3;
  public static final int ROLE_PRIMARY_ADDING = 4;
  /**
   * CONFIGURE role: the primary keeps only the listed backups at a newer epoch, which the
   * coordinator committed; a write waiting on a silent backup may adopt it (see the node's
   * replication, {@code NodeReplication#shrink}).
   */
  public static final int ROLE_PRIMARY_SHRINK = 5;

  private Wire() {}

  /**
   * A node's address from its {@code host:port} form.
   *
   * @throws IllegalArgumentException if it is not {@code host:port}
   */
  public static InetSocketAddress parseAddress(String hostAndPort) {
    if (hostAndPort == null) {
      throw new IllegalArgumentException("address must be host:port: null");
    }
    int colon = hostAndPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("address must be host:port: '" + hostAndPort + "'");
    }
    try {
      int port = Integer.parseInt(hostAndPort.substring(colon + 1));
      return new InetSocketAddress(hostAndPort.substring(0, colon), port);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("address must be host:port: '" + hostAndPort + "'", e);
    }
  }

  /** Reads one frame body; null on a clean end of stream before the length. */
  public static byte[] readFrame(InputStream in) throws IOException {
    return readFrame(in, MAX_FRAME);
  }

  /** Reads one frame body of at most {@code max} bytes; null on a clean end of stream. */
  static byte[] readFrame(InputStream in, int max) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int b0 = in.read();
    if (b0 < 0) {
      return null;
    }
    int length = (b0 << 24) | (data.readUnsignedByte() << 16) | (data.readUnsignedByte() << 8)
        | data.readUnsignedByte();
    if (length < 0 || length > max) {
      throw new IOException("frame length must be in 0.." + max + ": " + length);
    }
    return FrameBody.read(in, length); // as it arrives, not allocated from the prefix
  }

  public static void writeFrame(OutputStream out, byte[] body) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.writeInt(body.length);
    data.write(body);
    data.flush();
  }

  /** Builds a frame body (big-endian). */
  public static final class Writer {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(64);

    public Writer i8(int v) {
      buffer.write(v);
      return this;
    }

    public Writer i32(int v) {
      buffer.write(v >>> 24);
      buffer.write(v >>> 16);
      buffer.write(v >>> 8);
      buffer.write(v);
      return this;
    }

    public Writer i64(long v) {
      return i32((int) (v >>> 32)).i32((int) v);
    }

    public Writer bytes(byte[] v) {
      if (v == null) {
        return i32(-1);
      }
      i32(v.length);
      buffer.write(v, 0, v.length);
      return this;
    }

    public Writer utf(String v) {
      return bytes(v == null ? null : v.getBytes(StandardCharsets.UTF_8));
    }

    public byte[] toBytes() {
      return buffer.toByteArray();
    }
  }

  /** Reads a frame body; every read checks bounds and fails with {@link IOException}. */
  public static final class Reader {
    private final byte[] body;
    private int pos;

    public Reader(byte[] body) {
      this.body = body;
    }

    private void need(int n) throws IOException {
      // n > remaining, not pos + n > length: the sum overflows for a length near 2^31, and a
      // 21-byte request then allocated 2 GiB
      if (n < 0 || n > body.length - pos) {
        throw new EOFException("truncated frame: need " + n + " bytes at " + pos + " of "
            + body.length);
      }
    }

    public byte i8() throws IOException {
      need(1);
      return body[pos++];
    }

    public int i32() throws IOException {
      need(4);
      int v = ((body[pos] & 0xff) << 24) | ((body[pos + 1] & 0xff) << 16)
          | ((body[pos + 2] & 0xff) << 8) | (body[pos + 3] & 0xff);
      pos += 4;
      return v;
    }

    public long i64() throws IOException {
      long hi = i32() & 0xffffffffL;
      long lo = i32() & 0xffffffffL;
      return (hi << 32) | lo;
    }

    public byte[] bytes() throws IOException {
      int n = i32();
      if (n == -1) {
        return null;
      }
      need(n);
      byte[] v = new byte[n];
      System.arraycopy(body, pos, v, 0, n);
      pos += n;
      return v;
    }

    public String utf() throws IOException {
      byte[] v = bytes();
      return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    public boolean atEnd() {
      return pos == body.length;
    }
  }
}
