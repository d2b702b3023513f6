package io.partkit.kvstore.node;

import io.partkit.kvstore.wire.Wire;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
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
 * After a failed write or force, or any {@link Error} in an append or the group commit (out of
 * memory), the log refuses everything (fail-stop), releases every waiter, names the cause, and
 * tells its failure listener once: the node stops, to be restarted and replay rather than
 * acknowledge writes it may not have stored (a node alive but unable to log answered every
 * request ERROR, reads too, until someone restarted it).
 *
 * <p>A compacted log starts with an identity record (a random 64-bit id), and, when the log was
 * opened with a {@link LogReach}, how many of its bytes are durable is written there after every
 * force, on a background thread, and forced to disk at most
 * {@value #REACH_FORCE_DELAY_MILLIS} ms later: a log found shorter than its reach at start-up
 * lost records that were acknowledged (see {@code TcpKvNode}). The reach is current in the file
 * (so a log cut while the machine runs is caught to the last force), and on disk at most that
 * delay behind; a cut within what it lags still looks like a torn tail. Forcing the reach after
 * every force of the log took a fifth to a third of the puts per second of 8 writing clients.
 */
final class WriteAheadLog implements AutoCloseable {

  /** Receives the records of a log being replayed, in order. */
  interface Visitor {
    void record(Wire.Reader body) throws IOException;
  }

  /** What replay found: the log's id (0: none, a log older than identity records) and tail. */
  record Replayed(boolean exists, long logId, long intactBytes, long fileBytes, int records,
      String tornDamage) {
    /** Bytes after the last intact record, dropped as a torn tail. */
    long tornBytes() {
      return fileBytes - intactBytes;
    }
  }

  /** A log written by {@link #rewrite}: its id and length. */
  record Written(long logId, long length) {}

  /** The group-commit step: writes a batch of framed records and forces it to disk. */
  interface CommitStep {
    void commit(FileChannel channel, byte[] batch) throws IOException;
  }

  /** How long a reach written after a force may wait before it is forced to disk. */
  static final long REACH_FORCE_DELAY_MILLIS = 100;

  /** The body of the identity record: these bytes, then the id as int64. */
  private static final byte[] IDENTITY = {'P', 'K', 'W', 'A', 'L', '1'};
  private static final SecureRandom IDS = new SecureRandom();

  private final Path file;
  private final FileChannel channel;
  private final long logId;
  private final LogReach reach; // null: no reach recorded (tests of the log alone)
  private final ScheduledExecutorService marker;
  private boolean reachForceScheduled; // only on the marker thread
  private final AtomicBoolean markQueued =
      new AtomicBoolean();
  private Consumer<IOException> failureListener = e -> { }; // guarded by lock
  private long durableBytes; // guarded by lock
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
  /** Writes and forces each batch; tests put a failing step in its place. */
  private volatile CommitStep commitStep = WriteAheadLog::writeAndForce;

  private WriteAheadLog(Path file, FileChannel channel, long logId, long length, LogReach reach) {
    this.file = file;
    this.channel = channel;
    this.logId = logId;
    this.durableBytes = length;
    this.reach = reach;
    this.forcer = daemonThread("wal-forcer " + file.getFileName());
    this.marker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "wal-reach " + file.getFileName());
      t.setDaemon(true);
      return t;
    });
  }

  private static ExecutorService daemonThread(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Replays {@code file} (if it exists) into {@code visitor}, then opens it for appending, with
   * no reach recorded (tests of the log alone). A node replays, compacts by {@link #rewrite} and
   * opens the result with {@link #openWritten}.
   */
  static WriteAheadLog open(Path file, Visitor visitor) throws IOException {
    Replayed replayed = replay(file, visitor);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return new WriteAheadLog(file, channel, replayed.logId(), channel.size(), null);
  }

  /**
   * Opens the log {@link #rewrite} just wrote for appending, and records in {@code reach} that
   * all of it is durable before returning.
   */
  static WriteAheadLog openWritten(Path file, Written written, LogReach reach) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
    try {
      if (channel.size() != written.length()) {
        throw new IOException("write-ahead log " + file + " holds " + channel.size()
            + " bytes right after it was written with " + written.length());
      }
      reach.write(written.logId(), written.length());
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    return new WriteAheadLog(file, channel, written.logId(), written.length(), reach);
  }

  /**
   * Replays {@code file} into {@code visitor} up to a torn tail, and says how far it got; a
   * missing file replays nothing.
   *
   * @throws CorruptLogException if the log is damaged before its end
   */
  static Replayed replay(Path file, Visitor visitor) throws IOException {
    if (!Files.exists(file)) {
      return new Replayed(false, 0, 0, 0, 0, null);
    }
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      long position = 0;
      long size = in.size();
      int records = 0;
      long logId = 0;
      String torn = null;
      while (position + 8 <= size) {
        String damage = damage(in, position, size);
        if (damage != null) {
          long next = nextIntactRecord(in, position, size);
          if (next >= 0) {
            throw new CorruptLogException(file, position, records, damage, next);
          }
          torn = damage;
          break; // a torn tail: nothing intact follows, so only unacknowledged writes are lost
        }
        ByteBuffer body = read(in, position + 8, header(in, position).getInt());
        if (records == 0 && isIdentity(body.array())) {
          logId = ByteBuffer.wrap(body.array(), IDENTITY.length, 8).getLong();
        } else {
          visitor.record(new Wire.Reader(body.array()));
        }
        position += 8 + body.capacity();
        records++;
      }
      if (torn == null && position < size) {
        torn = (size - position) + " bytes, shorter than a record header";
      }
      return new Replayed(true, logId, position, size, records, torn);
    }
  }

  private static boolean isIdentity(byte[] body) {
    return body.length == IDENTITY.length + 8
        && Arrays.equals(body, 0, IDENTITY.length, IDENTITY, 0, IDENTITY.length);
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
   * Atomically replaces the log at {@code file} with the given records (compaction), under a new
   * identity record: written to a temporary file, forced, renamed over the log. If that fails
   * (a full disk), the temporary file is removed and the old log is left as it was.
   */
  static Written rewrite(Path file, Iterable<byte[]> records) throws IOException {
    return rewrite(file, records, written -> { });
  }

  /** What must happen after the new log is durable and before it replaces the old one. */
  interface BeforeRename {
    void written(Written written) throws IOException;
  }

  /**
   * {@link #rewrite(Path, Iterable)}, calling {@code beforeRename} with the new log once it is
   * durable, before the rename (a node records the coming log in its reach there).
   */
  static Written rewrite(Path file, Iterable<byte[]> records, BeforeRename beforeRename)
      throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    long logId;
    do {
      logId = IDS.nextLong();
    } while (logId == 0);
    long length;
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 16);
      frame(buffer, ByteBuffer.allocate(IDENTITY.length + 8).put(IDENTITY).putLong(logId)
          .array());
      for (byte[] record : records) {
        frame(buffer, record);
        if (buffer.size() > (1 << 20)) {
          writeFully(out, buffer.toByteArray());
          buffer.reset();
        }
      }
      writeFully(out, buffer.toByteArray());
      out.force(true);
      length = out.size();
      beforeRename.written(new Written(logId, length));
    } catch (IOException e) {
      Files.deleteIfExists(tmp); // never leave half a log behind (a full disk must not fill up)
      throw e;
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true); // make the rename itself durable
    } catch (IOException e) {
      // some file systems cannot open a directory for fsync; the rename is then as durable as
      // the file system makes it
    }
    return new Written(logId, length);
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
    try {
      synchronized (lock) {
        if (failure != null) {
          throw new UncheckedIOException(failedException(failure));
        }
        frame(pending, record);
        return ++appended;
      }
    } catch (Error e) {
      // An Error mid-frame (out of memory growing the buffer) may leave half a record pending:
      // the log fails, so that it is never written, and the caller's change is not applied.
      throw new UncheckedIOException(failOnError(e));
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
    try {
      groupCommit(seq);
    } catch (Error e) {
      // Out of memory copying the batch, say: the log fails, so that nobody waits on it
      throw failOnError(e);
    }
  }

  private void groupCommit(long seq) throws IOException {
    byte[] batch;
    long batchEnd;
    synchronized (lock) {
      while (true) {
        if (failure != null) {
          throw failedException(failure);
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
      batch = pending.toByteArray();
      batchEnd = appended;
      // sized for the next batch like this one, but a batch of one large value must not keep
      // as much again of the heap until the next write
      pending = new ByteArrayOutputStream(Math.max(4096, Math.min(batch.length, 1 << 20)));
      flushing = true; // set last: whatever throws above leaves no flag for waiters to wait on
    }
    Throwable failed = null;
    try {
      commitStep.commit(channel, batch);
    } catch (IOException | RuntimeException | Error e) {
      failed = e; // any of them: the waiters below must be released, and the log failed
    }
    synchronized (lock) {
      flushing = false;
      if (failed == null) {
        durable = batchEnd;
        durableBytes += batch.length;
      }
      lock.notifyAll();
    }
    if (failed != null) {
      IOException cause = failed instanceof IOException io ? io
          : new IOException(describe(failed), failed);
      fail(cause);
      throw failedException(cause);
    }
    markSoon();
    // the batch ended at batchEnd >= seq: the caller appended seq before it called us
  }

  private static void writeAndForce(FileChannel channel, byte[] batch) throws IOException {
    writeFully(channel, batch);
    channel.force(false);
  }

  /** Fails the log for an Error and returns what its callers are told. */
  IOException failOnError(Error e) {
    IOException cause = new IOException(describe(e), e);
    fail(cause);
    return failedException(cause);
  }

  /** The one message of a failed log: the file and the cause, e.g. "No space left on device". */
  private IOException failedException(IOException cause) {
    return new IOException("write-ahead log " + file + " failed: " + describe(cause), cause);
  }

  static String describe(Throwable cause) {
    String message = cause.getMessage();
    String name = cause.getClass().getSimpleName();
    return message == null || message.isBlank() ? name
        : cause instanceof IOException && cause.getClass() == IOException.class ? message
        : name + ": " + message;
  }

  /**
   * Fails the log (fail-stop) for {@code cause}, and tells the listener once. Idempotent: the
   * first cause is the one kept.
   */
  private void fail(IOException cause) {
    Consumer<IOException> tell;
    IOException told;
    synchronized (lock) {
      if (failure != null) {
        lock.notifyAll();
        return;
      }
      failure = cause;
      lock.notifyAll();
      tell = failureListener;
      told = failedException(cause);
    }
    tell.accept(told);
  }

  /**
   * Who learns, once, that the log failed (the node stops). Called on the thread that saw the
   * failure, outside the log's lock.
   */
  void onFailure(Consumer<IOException> listener) {
    synchronized (lock) {
      failureListener = listener;
    }
  }

  /** On the marker thread: the reach written since the last force goes to disk. */
  private void forceReach() {
    reachForceScheduled = false;
    try {
      reach.force();
    } catch (IOException | RuntimeException | Error e) {
      fail(new IOException("forcing its reach in " + reach.file() + " failed: " + describe(e),
          e));
    }
  }

  /** Records in the reach, on the marker thread, how many bytes are durable now. */
  private void markSoon() {
    if (reach == null || !markQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      marker.execute(() -> {
        markQueued.set(false);
        long length;
        synchronized (lock) {
          if (failure != null) {
            return;
          }
          length = durableBytes;
        }
        try {
          reach.write(new LogReach.Mark(logId, length, 0, 0), false);
          if (!reachForceScheduled) {
            reachForceScheduled = true;
            marker.schedule(this::forceReach, REACH_FORCE_DELAY_MILLIS,
                TimeUnit.MILLISECONDS);
          }
        } catch (IOException | RuntimeException | Error e) {
          fail(new IOException("recording its reach in " + reach.file() + " failed: "
              + describe(e), e));
        }
      });
    } catch (RejectedExecutionException e) {
      markQueued.set(false); // closing: close() records the final reach
    }
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

  /** Tests: {@code step} writes and forces every batch from now on, e.g. one that throws. */
  void commitStepForTest(CommitStep step) {
    commitStep = step;
  }

  /** The state a failed write or force leaves: every later append and wait fails (tests). */
  void failForTest(IOException cause) {
    fail(cause);
  }

  /**
   * Forces what is appended (a clean close loses no record, including those of
   * {@link #forceSoon}), then refuses everything. Closing a failed log cuts it back to its
   * durable records (a batch that failed mid-write may have left intact ones after them, never
   * acknowledged) and records that length as its reach: the reach never lags the intact records,
   * so a later cut among them is caught rather than taken for a torn tail.
   */
  @Override
  public void close() throws IOException {
    forcer.shutdown();
    marker.shutdown();
    boolean whole = true;
    try {
      awaitDurable(lastAppended());
    } catch (IOException e) {
      whole = false; // failed earlier or now: a record that is not durable was never acknowledged
    }
    long length;
    synchronized (lock) {
      if (failure == null) {
        failure = new IOException("closed");
      }
      lock.notifyAll();
      while (flushing) { // a batch still being written must end before the file is cut
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      length = durableBytes;
    }
    try {
      marker.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      if (whole) {
        if (reach != null) {
          reach.write(logId, length); // the marker may have stopped short of the last force
        }
      } else {
        cutToDurable(length);
      }
    } finally {
      try {
        if (reach != null) {
          reach.close();
        }
      } finally {
        channel.close();
      }
    }
  }

  /** After a failure: the log cut back to {@code length} durable bytes, and its reach there. */
  private void cutToDurable(long length) {
    try {
      if (channel.size() > length) {
        channel.truncate(length); // frees blocks: works on a full disk
        channel.force(true);
      }
    } catch (IOException | RuntimeException e) {
      // the reach below still covers every acknowledged record
    }
    if (reach != null) {
      try {
        reach.write(logId, length); // in place, in a file that never grows
      } catch (IOException | RuntimeException e) {
        // the reach keeps its last, lower length: it lags, as before this close
      }
    }
  }
}
