package io.partkit.verification.history;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads a long EDN history file of one operation per line with two threads: the calling thread
 * reads it from the start as {@link FastEdnHistoryReader} always does, while another reads the
 * second half, from the first line start after the middle, into a list of its own; when the
 * calling thread reaches that line start, the second half's operations are appended and the
 * reading is done. Why: reading was the longest part of {@code partkit check} on a long history
 * (a 154 MB file: about 1 s of the one reading thread, docs/checker-scale.md), and the checker
 * cannot start before the whole history is read.
 *
 * <p>Exact by giving up: the second half is used only if the calling thread reaches that line
 * start between two forms (no form straddles it), at the line the second thread counted for it,
 * and the second thread read every form of its half itself (nothing for the general reader, every
 * operation with its {@code :index}, since an index taken from the position would need the count
 * of the first half). Otherwise the calling thread reads on by itself, as it does for every other
 * file: same operations, same lines, same messages. The split by key
 * ({@link SplitWhileReading}) is done in both halves and joined ({@link SplitWhileReading#append}).
 * {@code TwoHalvesTest} holds the result to the one thread's on seeded files split at every line.
 */
final class TwoHalves {
  private TwoHalves() {}

  /**
   * How many readings used the second thread's half, in this JVM: TwoHalvesTest reads it before
   * and after a reading to tell a second half used from one given up (the result is the same).
   */
  static final AtomicLong TAKEN_OVER = new AtomicLong();

  /** Smaller files are read by one thread: the second thread would save little. */
  static final long FROM = 8L << 20;

  /** How far past the middle a line start is looked for. */
  private static final int LOOK = 1 << 16;

  /** True when {@code read} may use two threads on a file of {@code size} bytes. */
  static boolean worthIt(long size) {
    return size >= FROM && Runtime.getRuntime().availableProcessors() >= 2;
  }

  /**
   * Reads {@code file} (whose first {@code headLength} bytes are {@code head}, the rest
   * {@code rest}; no byte-order mark) as {@link FastEdnHistoryReader#read} reads it.
   *
   * @param splitAt the byte offset to split at, or -1 for the first line start after a little
   *     more than half
   *     (tests give every line start)
   */
  static boolean read(String source, Path file, byte[] head, int headLength, InputStream rest,
      List<Op> ops, int buffer, long splitAt) throws HistoryParseException {
    long at;
    try {
      at = splitAt >= 0 ? splitAt : lineStartAfter(file);
    } catch (IOException e) {
      at = -1; // the calling thread reads it all, and says what it cannot read
    }
    if (at <= 0) {
      return FastEdnHistoryReader.read(source, head, headLength, rest, ops, buffer);
    }
    List<Op> second = ops instanceof SplitWhileReading
        ? ((SplitWhileReading) ops).continuation() : new ArrayList<>();
    Half half = new Half(source, file, at, second, buffer);
    Thread t = new Thread(half, "partkit-read");
    t.setDaemon(true);
    half.thread = t;
    t.start();
    try {
      return FastEdnHistoryReader.read(source, head, headLength, rest, ops, buffer, true, half);
    } finally {
      half.cancelled = true; // when the calling thread read on by itself
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Where the second half starts: this share of the file goes to the calling thread, a little
   * more than half, since the second thread first counts the first half's lines (about a sixth
   * of the time it takes to read them).
   */
  private static final double FIRST_SHARE = 0.54;

  /** The offset just after the first '\n' at or after the split point, or -1. */
  private static long lineStartAfter(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long mid = (long) (ch.size() * FIRST_SHARE);
      ByteBuffer b = ByteBuffer.allocate(LOOK);
      while (b.hasRemaining() && ch.read(b, mid + b.position()) > 0) {
        // read until LOOK bytes or the end
      }
      for (int i = 0; i < b.position(); i++) {
        if (b.get(i) == '\n') {
          long at = mid + i + 1;
          return at < ch.size() ? at : -1;
        }
      }
      return -1;
    }
  }

  /** The second half: its lines counted from the file's start, then read. */
  private static final class Half implements Runnable, FastEdnHistoryReader.Rest {
    private final String source;
    private final Path file;
    private final long at;
    private final List<Op> ops;
    private final int buffer;
    volatile boolean cancelled;
    Thread thread;
    private boolean read; // its every form read, to the end of the file
    private int firstLine;
    private Throwable failure;

    Half(String source, Path file, long at, List<Op> ops, int buffer) {
      this.source = source;
      this.file = file;
      this.at = at;
      this.ops = ops;
      this.buffer = buffer;
    }

    @Override
    public void run() {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        int line = 1 + lineEnds(ch, at);
        InputStream in = Channels.newInputStream(ch.position(at));
        read = FastEdnHistoryReader.readRest(source, in, line, ops, buffer, () -> cancelled);
        firstLine = ops.isEmpty() ? -1 : ops.get(0).line();
      } catch (IOException | RuntimeException e) {
        read = false; // the calling thread reads on, and names any error where it meets it
      } catch (Error e) {
        failure = e; // out of memory: not hidden
      }
    }

    /**
     * Line ends before {@code to}, as EdnBytes counts them: '\n', "\r\n" and a lone '\r' each
     * end one ({@code to} is just after a '\n', so no "\r\n" is cut). Eight bytes at a time,
     * byte by byte only in words with a '\r': a plain loop over the bytes took 0.4 s for 77 MB,
     * a third of what the second thread saves.
     */
    private int lineEnds(FileChannel ch, long to) throws IOException {
      ByteBuffer b = ByteBuffer.allocate(1 << 16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      byte[] a = b.array();
      int count = 0;
      boolean cr = false; // the byte before was '\r'
      for (long pos = 0; pos < to && !cancelled; ) {
        b.clear();
        b.limit((int) Math.min(a.length, to - pos));
        int n = 0;
        while (b.hasRemaining()) {
          int r = ch.read(b, pos + n);
          if (r <= 0) {
            throw new IOException("the file got shorter");
          }
          n += r;
        }
        int i = 0;
        for (; i + 8 <= n; i += 8) {
          long w = b.getLong(i);
          if (zeroBytes(w ^ CRS) != 0) {
            for (int j = i; j < i + 8; j++) {
              count += a[j] == '\r' || (a[j] == '\n' && !cr) ? 1 : 0;
              cr = a[j] == '\r';
            }
            continue;
          }
          count += Long.bitCount(zeroBytes(w ^ LFS));
          if (cr && a[i] == '\n') {
            count--; // the end of a "\r\n" counted at its '\r'
          }
          cr = false;
        }
        for (; i < n; i++) {
          count += a[i] == '\r' || (a[i] == '\n' && !cr) ? 1 : 0;
          cr = a[i] == '\r';
        }
        pos += n;
      }
      return count;
    }

    private static final long LFS = 0x0A0A0A0A0A0A0A0AL;
    private static final long CRS = 0x0D0D0D0D0D0D0D0DL;
    private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;

    /** The high bit of each byte of {@code x} that is zero, and no other bit. */
    private static long zeroBytes(long x) {
      return ~(((x & LOW7) + LOW7) | x | LOW7);
    }

    @Override
    public void notNeeded() {
      cancelled = true;
    }

    @Override
    public long at() {
      return at;
    }

    @Override
    public boolean takeOver(List<Op> into, int line) throws HistoryParseException {
      try {
        thread.join(); // its fields are then seen as it left them
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      if (failure instanceof Error) {
        throw (Error) failure;
      }
      if (!read || firstLine != line) {
        return false;
      }
      TAKEN_OVER.incrementAndGet();
      if (into instanceof SplitWhileReading) {
        ((SplitWhileReading) into).append((SplitWhileReading) ops);
      } else {
        into.addAll(ops);
      }
      return true;
    }
  }
}
