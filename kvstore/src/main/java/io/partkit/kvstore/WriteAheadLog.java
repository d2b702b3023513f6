package io.partkit.kvstore;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.CRC32C;

/**
 * A node's append-only log, with group commit: a record is durable once
 * {@link #awaitDurable(long)} returns for its sequence number, and a node acknowledges a write
 * only after that. Whoever waits first writes and forces everything appended so far, so under
 * load one {@code fsync} covers many writes (the classic group commit of database logs).
 *
 * <p>Record format (persisted): {@code int32 length, int32 crc32c(body), body}. Replay stops at
 * a torn tail (a damaged record with nothing intact after it: a crash mid-write can only damage
 * the unacknowledged tail) and refuses to open a log damaged anywhere else
 * ({@link CorruptLogException}): the records after the damage were acknowledged.
 * After a failed write or force the log refuses everything (fail-stop): the node must restart
 * and replay rather than acknowledge writes it may not have stored.
 */
final class WriteAheadLog implements AutoCloseable {

  /** Receives the records of a log being replayed, in order. */
  interface Visitor {
    void record(Wire.Reader body) throws IOException;
  }

  private final Path file;
  private final FileChannel channel;
  private final Object lock = new Object();
  private ByteArrayOutputStream pending = new ByteArrayOutputStream(4096);
  private long appended; // guarded by lock
  private long durable; // guarded by lock
  private boolean flushing; // guarded by lock
  private IOException failure; // guarded by lock
  /** Forces records whose appender answered before they were durable ({@link #forceSoon}). */
  private final ExecutorService forcer;
  /** Tests: {@link #forceSoon} forces nothing, so that a record stays pending until a waiter. */
  private volatile boolean backgroundForcesHeld;

  private WriteAheadLog(Path file, FileChannel channel) {
    this.file = file;
    this.channel = channel;
    this.forcer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "wal-forcer " + file.getFileName());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Replays {@code file} (if it exists) into {@code visitor}, then opens it for appending. The
   * caller compacts by {@link #rewrite}.
   */
  static WriteAheadLog open(Path file, Visitor visitor) throws IOException {
    if (Files.exists(file)) {
      replay(file, visitor);
    }
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return new WriteAheadLog(file, channel);
  }

  private static void replay(Path file, Visitor visitor) throws IOException {
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      long position = 0;
      long size = in.size();
      int records = 0;
      while (position + 8 <= size) {
        String damage = damage(in, position, size);
        if (damage != null) {
          long next = nextIntactRecord(in, position, size);
          if (next >= 0) {
            throw new CorruptLogException(file, position, records, damage, next);
          }
          break; // a torn tail: nothing intact follows, so only unacknowledged writes are lost
        }
        ByteBuffer body = read(in, position + 8, header(in, position).getInt());
        visitor.record(new Wire.Reader(body.array()));
        position += 8 + body.capacity();
        records++;
      }
    }
  }

  /** What is wrong with the record at {@code position}, or null if it is intact. */
  private static String damage(FileChannel in, long position, long size) throws IOException {
    ByteBuffer header = header(in, position);
    int length = header.getInt();
    int crc = header.getInt();
    if (length < 1 || length > Wire.MAX_FRAME) {
      return "length " + length + " outside 1.." + Wire.MAX_FRAME;
    }
    if (position + 8 + length > size) {
      return "length " + length + " runs past the end of the file (" + size + " bytes)";
    }
    CRC32C check = new CRC32C();
    check.update(read(in, position + 8, length));
    return (int) check.getValue() == crc ? null : "checksum mismatch";
  }

  /**
   * The offset of the first intact record after a damaged one at {@code bad}, or -1. A crash
   * can only tear the end of the log (the unacknowledged batch being written), so an intact
   * record after a damaged one means the damage is not a torn tail but corruption (a flipped
   * bit, a bad sector), and dropping what follows would silently lose acknowledged writes. The
   * damaged record's own length is tried first (a flipped byte in a body leaves it right), then
   * every later offset, since a damaged length says nothing about where the next record starts.
   * A random offset passes the checksum with probability 2^-32.
   */
  private static long nextIntactRecord(FileChannel in, long bad, long size) throws IOException {
    int length = header(in, bad).getInt();
    if (length >= 1 && length <= Wire.MAX_FRAME && bad + 8 + length + 8 <= size
        && damage(in, bad + 8 + length, size) == null) {
      return bad + 8 + length;
    }
    for (long p = bad + 1; p + 8 <= size; p++) {
      if (damage(in, p, size) == null) {
        return p;
      }
    }
    return -1;
  }

  private static ByteBuffer header(FileChannel in, long position) throws IOException {
    return read(in, position, 8);
  }

  private static ByteBuffer read(FileChannel in, long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (in.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of file at " + (position + buffer.position()));
      }
    }
    return buffer.flip();
  }

  /**
   * Atomically replaces the log at {@code file} with the given records (compaction): written to
   * a temporary file, forced, renamed over the log.
   */
  static void rewrite(Path file, Iterable<byte[]> records) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 16);
      for (byte[] record : records) {
        frame(buffer, record);
        if (buffer.size() > (1 << 20)) {
          writeFully(out, buffer.toByteArray());
          buffer.reset();
        }
      }
      writeFully(out, buffer.toByteArray());
      out.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true); // make the rename itself durable
    } catch (IOException e) {
      // some file systems cannot open a directory for fsync; the rename is then as durable as
      // the file system makes it
    }
  }

  private static void frame(ByteArrayOutputStream buffer, byte[] record) {
    CRC32C crc = new CRC32C();
    crc.update(record, 0, record.length);
    int c = (int) crc.getValue();
    int n = record.length;
    buffer.write(n >>> 24);
    buffer.write(n >>> 16);
    buffer.write(n >>> 8);
    buffer.write(n);
    buffer.write(c >>> 24);
    buffer.write(c >>> 16);
    buffer.write(c >>> 8);
    buffer.write(c);
    buffer.write(record, 0, n);
  }

  private static void writeFully(FileChannel out, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      out.write(buffer);
    }
  }

  /**
   * Appends a record (not yet durable) and returns its sequence number. Callers append under
   * the lock that orders their in-memory change, so the log order is the apply order.
   *
   * @throws UncheckedIOException if the log already failed
   */
  long append(byte[] record) {
    synchronized (lock) {
      if (failure != null) {
        throw new UncheckedIOException("write-ahead log " + file + " failed earlier", failure);
      }
      frame(pending, record);
      return ++appended;
    }
  }

  /** The sequence number of the last appended record: a reader waits for it to be durable. */
  long lastAppended() {
    synchronized (lock) {
      return appended;
    }
  }

  /**
   * Returns once the record numbered {@code seq} (and all before it) is on stable storage.
   *
   * @throws IOException if writing or forcing the log failed
   */
  void awaitDurable(long seq) throws IOException {
    byte[] batch;
    long batchEnd;
    synchronized (lock) {
      while (true) {
        if (failure != null) {
          throw new IOException("write-ahead log " + file + " failed", failure);
        }
        if (durable >= seq) {
          return;
        }
        if (!flushing) {
          break;
        }
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted waiting for the write-ahead log", e);
        }
      }
      flushing = true;
      batch = pending.toByteArray();
      batchEnd = appended;
      pending = new ByteArrayOutputStream(Math.max(4096, batch.length));
    }
    IOException failed = null;
    try {
      writeFully(channel, batch);
      channel.force(false);
    } catch (IOException e) {
      failed = e;
    }
    synchronized (lock) {
      flushing = false;
      if (failed != null) {
        failure = failed;
      } else {
        durable = batchEnd;
      }
      lock.notifyAll();
      if (failed != null) {
        throw new IOException("write-ahead log " + file + " failed", failed);
      }
    }
    // the batch ended at batchEnd >= seq: the caller appended seq before it called us
  }

  /**
   * Makes the record numbered {@code seq} durable soon, on a background thread, for an appender
   * that answers before its record is durable because nothing acknowledged depends on it yet
   * (see {@code NodeMigration.activate}). Any waiter for a later record forces it first; this only
   * keeps it from staying in memory on a node that goes quiet. A failure fails the log, as in
   * {@link #awaitDurable}, and the next caller is told.
   */
  void forceSoon(long seq) {
    if (backgroundForcesHeld) {
      return;
    }
    try {
      forcer.execute(() -> {
        try {
          awaitDurable(seq);
        } catch (IOException e) {
          // the log has failed (fail-stop): every later append and wait reports it
        }
      });
    } catch (RejectedExecutionException e) {
      // closing: close() forces what is pending
    }
  }

  /**
   * Tests: from now on {@link #forceSoon} forces nothing, so a test can see which step makes a
   * record durable that its appender answered before it was.
   */
  void holdBackgroundForcesForTest() {
    backgroundForcesHeld = true;
  }

  /** The state a failed write or force leaves: every later append and wait fails (tests). */
  void failForTest(IOException cause) {
    synchronized (lock) {
      failure = cause;
      lock.notifyAll();
    }
  }

  /**
   * Forces what is appended (a clean close loses no record, including those of
   * {@link #forceSoon}), then refuses everything.
   */
  @Override
  public void close() throws IOException {
    forcer.shutdown();
    try {
      awaitDurable(lastAppended());
    } catch (IOException e) {
      // failed earlier or now: a record that is not durable was never acknowledged
    }
    synchronized (lock) {
      if (failure == null) {
        failure = new IOException("closed");
      }
      lock.notifyAll();
    }
    channel.close();
  }
}
