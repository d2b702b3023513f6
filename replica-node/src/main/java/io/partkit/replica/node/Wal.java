package io.partkit.replica.node;

import io.partkit.replica.Record;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * A replica's write-ahead log: one file of records, each {@code [magic][length][crc][payload]}
 * (the CRC-32C covers the length and the payload), appended by the thread that owns the replica
 * and made durable by a syncer thread with group commit: one {@code fdatasync} covers every record
 * appended before it began, however many batches that was, and {@code onSynced} then hears how
 * many records are durable.
 *
 * <p>On open, records are read up to the first that is torn or damaged. If nothing intact follows
 * it, it is the tail of an append a crash cut short: it is dropped (the file is cut there, so new
 * records follow the intact ones). If an intact record follows, the damage is in the middle of
 * what was durable, records the node may have acknowledged: {@link #open} refuses with {@link
 * Damaged}, and the node must not start from this log.
 *
 * <p>The log is not compacted while it is open: it grows with every write. A driver replaces it
 * whole with {@link #rewrite} before opening it, with the few records that restore its state (the
 * control's and the nodes', at each start).
 */
final class Wal implements Storage {

  static final String FILE = "replica.wal";
  /** Where {@link #rewrite} writes the new log before it takes the old one's name. */
  static final String NEXT = "replica.wal.next";
  static final int MAGIC = 0x52574131;
  static final int HEADER = 12;

  /** A damaged record with intact ones after it: the log cannot be trusted. */
  static final class Damaged extends IOException {
    private static final long serialVersionUID = 1L;

    Damaged(String message) {
      super(message);
    }
  }

  /** What {@link #open} found. */
  record Opened(Wal wal, List<Record> records, long droppedBytes) {}

  private final Path file;
  private final FileChannel channel;
  private final LongConsumer onSynced;
  private final Consumer<IOException> onFailure;
  private final Object lock = new Object();
  private final Thread syncer;
  private long appended;
  private long synced;
  private long syncs;
  private boolean closed;

  private Wal(Path file, FileChannel channel, long records, LongConsumer onSynced,
      Consumer<IOException> onFailure) {
    this.file = file;
    this.channel = channel;
    this.onSynced = onSynced;
    this.onFailure = onFailure;
    this.appended = records;
    this.synced = records;
    this.syncer = new Thread(this::syncLoop, "wal-sync");
    this.syncer.setDaemon(true);
  }

  /**
   * Opens the log in {@code dir} (created if missing), reading every intact record.
   *
   * @param onSynced called on the syncer thread with the count of durable records after each sync
   * @param onFailure called on the syncer thread when a sync fails (the node must stop)
   * @throws Damaged when a damaged record is followed by intact ones
   */
  static Opened open(Path dir, LongConsumer onSynced, Consumer<IOException> onFailure)
      throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE);
    boolean fresh = !Files.exists(file);
    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    try {
      if (fresh) {
        syncDirectory(dir); // the file's name is durable before any record in it is
      }
      long size = ch.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw new IOException(file + " is too large to replay (" + size + " bytes)");
      }
      ByteBuffer all = ByteBuffer.allocate((int) size);
      while (all.hasRemaining() && ch.read(all, all.position()) >= 0) {
        // read it whole
      }
      byte[] bytes = all.array();
      List<Record> records = new ArrayList<>();
      int pos = 0;
      while (pos < bytes.length) {
        int end = intact(bytes, pos, records);
        if (end < 0) {
          break;
        }
        pos = end;
      }
      long dropped = bytes.length - pos;
      if (dropped > 0) {
        for (int q = pos + 1; q + HEADER <= bytes.length; q++) {
          if (intact(bytes, q, null) >= 0) {
            throw new Damaged(file + ": the record at byte " + pos + " (record " + records.size()
                + ") is damaged and an intact record follows at byte " + q + ": records that were"
                + " durable are lost; the node must not start from this log (replace its data)");
          }
        }
        ch.truncate(pos);
        ch.force(true);
      }
      ch.position(pos);
      Wal wal = new Wal(file, ch, records.size(), onSynced, onFailure);
      wal.syncer.start();
      return new Opened(wal, records, dropped);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Replaces the log in {@code dir} with one holding only {@code records}, durable on return. The
   * new log is written and synced under another name, then renamed over the old one and the
   * directory synced, so a crash at any point leaves either log whole: the old one or the new.
   * Call it only while no {@link Wal} of {@code dir} is open.
   *
   * @return false, with nothing written, when a record is over the size a log record may have
   */
  static boolean rewrite(Path dir, List<Record> records) throws IOException {
    List<byte[]> encoded = encode(records);
    if (largest(encoded) > Codec.MAX_FRAME) {
      return false;
    }
    ByteBuffer buf = frames(encoded);
    Path next = dir.resolve(NEXT);
    try (FileChannel ch = FileChannel.open(next, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(next, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    syncDirectory(dir);
    return true;
  }

  /** The end of the intact record at {@code pos} (added to {@code into}), or -1. */
  private static int intact(byte[] b, int pos, List<Record> into) {
    if (pos + HEADER > b.length) {
      return -1;
    }
    ByteBuffer h = ByteBuffer.wrap(b, pos, HEADER);
    int magic = h.getInt();
    int length = h.getInt();
    int crc = h.getInt();
    if (magic != MAGIC || length < 1 || length > Codec.MAX_FRAME
        || (long) pos + HEADER + length > b.length) {
      return -1;
    }
    CRC32C c = new CRC32C();
    c.update(b, pos + 4, 4);
    c.update(b, pos + HEADER, length);
    if ((int) c.getValue() != crc) {
      return -1;
    }
    byte[] payload = new byte[length];
    System.arraycopy(b, pos + HEADER, payload, 0, length);
    try {
      Record r = Codec.record(payload);
      if (into != null) {
        into.add(r);
      }
    } catch (Codec.Malformed e) {
      return -1;
    }
    return pos + HEADER + length;
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /**
   * Appends {@code records} (not yet durable: the syncer makes them so).
   *
   * @return how many records the log holds with these, the count {@code onSynced} must reach
   *     before anything that depends on them is sent
   */
  @Override
  public long append(List<Record> records) throws IOException {
    if (records.isEmpty()) {
      synchronized (lock) {
        return appended;
      }
    }
    List<byte[]> encoded = encode(records);
    int largest = largest(encoded);
    if (largest > Codec.MAX_FRAME) {
      throw new IOException("a record of " + largest + " bytes is over the limit of "
          + Codec.MAX_FRAME);
    }
    ByteBuffer buf = frames(encoded);
    while (buf.hasRemaining()) {
      channel.write(buf);
    }
    synchronized (lock) {
      appended += records.size();
      lock.notifyAll();
      return appended;
    }
  }

  /** Each record's payload. */
  private static List<byte[]> encode(List<Record> records) {
    List<byte[]> encoded = new ArrayList<>(records.size());
    for (Record r : records) {
      encoded.add(Codec.encode(r));
    }
    return encoded;
  }

  /** The size of the largest payload, 0 for none. */
  private static int largest(List<byte[]> payloads) {
    int largest = 0;
    for (byte[] p : payloads) {
      largest = Math.max(largest, p.length);
    }
    return largest;
  }

  /** The payloads framed as the log holds them, ready to write. */
  private static ByteBuffer frames(List<byte[]> payloads) {
    int total = 0;
    for (byte[] p : payloads) {
      total += HEADER + p.length;
    }
    ByteBuffer buf = ByteBuffer.allocate(total);
    for (byte[] p : payloads) {
      CRC32C c = new CRC32C();
      ByteBuffer len = ByteBuffer.allocate(4).putInt(0, p.length);
      c.update(len.array(), 0, 4);
      c.update(p, 0, p.length);
      buf.putInt(MAGIC).putInt(p.length).putInt((int) c.getValue()).put(p);
    }
    return buf.flip();
  }

  /** Records durable now. */
  long synced() {
    synchronized (lock) {
      return synced;
    }
  }

  /** Syncs done so far (each covers every record appended before it began). */
  long syncs() {
    synchronized (lock) {
      return syncs;
    }
  }

  /** The log's file. */
  Path file() {
    return file;
  }

  private void syncLoop() {
    while (true) {
      long target;
      synchronized (lock) {
        while (!closed && appended == synced) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        target = appended;
      }
      try {
        channel.force(false);
      } catch (IOException e) {
        onFailure.accept(e);
        return;
      }
      synchronized (lock) {
        synced = target;
        syncs++;
      }
      onSynced.accept(target);
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    try {
      syncer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    channel.close();
  }
}
