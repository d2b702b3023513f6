package io.partkit.replica.node;

import io.partkit.replica.Record;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Reads a log's records ({@link Wal}'s frames) one after another from a file, a buffer at a time,
 * so that reading a log holds one record and a buffer, never the whole file: up to the first
 * frame that is torn, damaged or malformed, or to a given end.
 */
final class WalFrames {

  private static final int BUFFER = 1 << 16;

  /** One intact frame: where it starts, its payload and the record it holds. */
  record Frame(long start, byte[] payload, Record record) {

    /** Its header and payload, as the file holds them. */
    void addTo(CRC32C crc, long upTo) {
      byte[] header = header(payload);
      long end = Math.min(upTo - start, Wal.HEADER);
      if (end > 0) {
        crc.update(header, 0, (int) end);
      }
      long body = Math.min(upTo - start - Wal.HEADER, payload.length);
      if (body > 0) {
        crc.update(payload, 0, (int) body);
      }
    }

    long end() {
      return start + Wal.HEADER + payload.length;
    }
  }

  private final FileChannel in;
  private final long end;
  private final ByteBuffer buf = ByteBuffer.allocate(BUFFER);
  /** The file position of {@link #buf}'s first byte. */
  private long bufAt;
  private long pos;

  /** Reads {@code in}'s frames from {@code from} up to {@code end} (by positional reads). */
  WalFrames(FileChannel in, long from, long end) {
    this.in = in;
    this.end = end;
    this.pos = from;
    this.bufAt = from;
    buf.limit(0);
  }

  /** Where the next frame starts: the end of the last intact one read. */
  long position() {
    return pos;
  }

  /** The next intact frame, or null at the end or at a frame that is not intact. */
  Frame next() throws IOException {
    if (pos + Wal.HEADER > end) {
      return null;
    }
    ByteBuffer h = ByteBuffer.wrap(read(pos, Wal.HEADER));
    int magic = h.getInt();
    int length = h.getInt();
    int crc = h.getInt();
    if (magic != Wal.MAGIC || length < 1 || length > Codec.MAX_FRAME
        || pos + Wal.HEADER + length > end) {
      return null;
    }
    byte[] payload = read(pos + Wal.HEADER, length);
    if (crc(payload) != crc) {
      return null;
    }
    Record r;
    try {
      r = Codec.record(payload);
    } catch (Codec.Malformed e) {
      return null;
    }
    Frame f = new Frame(pos, payload, r);
    pos = f.end();
    return f;
  }

  /**
   * The first position after {@code from} up to {@code end} of {@code in} where an intact frame
   * starts, or -1: whether what follows a damaged frame is only a torn tail.
   */
  static long intactAfter(FileChannel in, long from, long end) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
    for (long base = from + 1; base + Wal.HEADER <= end; base += chunk.capacity() - 3) {
      chunk.clear().limit((int) Math.min(chunk.capacity(), end - base));
      readFully(in, chunk, base);
      for (int i = 0; i + 4 <= chunk.limit(); i++) {
        if (chunk.getInt(i) == Wal.MAGIC && new WalFrames(in, base + i, end).next() != null) {
          return base + i;
        }
      }
    }
    return -1;
  }

  /** {@code n} bytes from {@code at}, through the buffer when they fit it. */
  private byte[] read(long at, int n) throws IOException {
    byte[] out = new byte[n];
    if (n > BUFFER) {
      ByteBuffer b = ByteBuffer.wrap(out);
      readFully(in, b, at);
      return out;
    }
    if (at < bufAt || at + n > bufAt + buf.limit()) {
      bufAt = at;
      buf.clear().limit((int) Math.min(BUFFER, end - at));
      readFully(in, buf, at);
    }
    buf.get((int) (at - bufAt), out, 0, n);
    return out;
  }

  private static void readFully(FileChannel in, ByteBuffer b, long at) throws IOException {
    long p = at;
    while (b.hasRemaining()) {
      int n = in.read(b, p);
      if (n < 0) {
        throw new IOException("the log ended at byte " + p + " while being read");
      }
      p += n;
    }
    b.flip();
  }

  /** A frame's header for {@code payload}. */
  static byte[] header(byte[] payload) {
    return ByteBuffer.allocate(Wal.HEADER).putInt(Wal.MAGIC).putInt(payload.length)
        .putInt(crc(payload)).array();
  }

  /** The CRC-32C of a payload's length and bytes, as a record's header holds it. */
  static int crc(byte[] payload) {
    CRC32C c = new CRC32C();
    ByteBuffer len = ByteBuffer.allocate(4).putInt(0, payload.length);
    c.update(len.array(), 0, 4);
    c.update(payload, 0, payload.length);
    return (int) c.getValue();
  }
}
