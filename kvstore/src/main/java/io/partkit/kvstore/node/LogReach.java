package io.partkit.kvstore.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * How far a node's write-ahead log reached on stable storage, kept in its own file beside the
 * log ({@code wal.reach}), so that a log cut short, replaced by an older copy or deleted is told
 * apart from a log that simply ends: replay can only see what is in the log, and a log that lost
 * its last half looks exactly like a shorter, intact one.
 *
 * <p>Format (persisted): two slots of 48 bytes, each {@code int64 generation, int64 log id,
 * int64 length, int64 next log id, int64 next length, int32 crc32c(the 40 bytes before),
 * int32 0}. A write goes to the slot the
 * generation picks, in place, and is forced; a reader takes the intact slot of the highest
 * generation, so a crash mid-write leaves the other slot's older, still true, reach. The log id
 * is the random number of the log's first record ({@link WriteAheadLog}): a compaction writes a
 * log with a new id, and a reach naming another id than the log's says nothing about it.
 */
final class LogReach implements AutoCloseable {

  /**
   * What a reach file says: the log it is about and how many bytes of it were durable, and,
   * while a compaction renames its new log over the old one, that log's id and length (0, 0
   * otherwise): a crash between the rename and the next write leaves the new log with the
   * reach still naming the old.
   */
  record Mark(long logId, long length, long nextId, long nextLength) {

    /** How many bytes of the log {@code id} were durable, or -1 if this reach is not about it. */
    long lengthOf(long id) {
      return id != 0 && id == logId ? length : id != 0 && id == nextId ? nextLength : -1;
    }
  }

  private static final int SLOT = 48;
  private static final int FIELDS = 40;

  private final Path file;
  private final FileChannel channel;
  private long generation;

  private LogReach(Path file, FileChannel channel, long generation) {
    this.file = file;
    this.channel = channel;
    this.generation = generation;
  }

  /** The file beside {@code log} that records how far it reached. */
  static Path fileFor(Path log) {
    return log.resolveSibling(log.getFileName().toString().replace(".log", "") + ".reach");
  }

  /** A reach file neither of whose slots is intact: it says nothing about the log. */
  static final class DamagedException extends IOException {
    DamagedException(String message) {
      super(message);
    }
  }

  /**
   * What {@code file} says, or null if it does not exist or is empty (created, and the node
   * stopped before it wrote its first slot: the log it would have named was never renamed in).
   *
   * @throws DamagedException if it holds bytes but neither slot is intact
   */
  static Mark read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return null;
    }
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
    if (all.capacity() == 0) {
      return null;
    }
    long best = -1;
    Mark mark = null;
    for (int slot = 0; slot < 2 && all.remaining() >= (slot + 1) * SLOT; slot++) {
      ByteBuffer s = all.slice(slot * SLOT, SLOT);
      long generation = s.getLong(0);
      CRC32C crc = new CRC32C();
      crc.update(s.slice(0, FIELDS));
      if ((int) crc.getValue() == s.getInt(FIELDS) && generation > best) {
        best = generation;
        mark = new Mark(s.getLong(8), s.getLong(16), s.getLong(24), s.getLong(32));
      }
    }
    if (mark == null) {
      throw new DamagedException("the log reach " + file + " is damaged (no intact slot in its "
          + all.capacity() + " bytes), so whether the write-ahead log beside it lost"
          + " acknowledged records cannot be told");
    }
    return mark;
  }

  /** Opens (creating) the reach file for writing; {@link #write} replaces what it says. */
  static LogReach open(Path file) throws IOException {
    long generation = 0;
    if (Files.exists(file)) {
      ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
      for (int slot = 0; slot < 2 && all.remaining() >= (slot + 1) * SLOT; slot++) {
        generation = Math.max(generation, all.getLong(slot * SLOT));
      }
    }
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.READ);
    return new LogReach(file, channel, generation);
  }

  /** Records durably that the log {@code logId} reached {@code length} bytes. */
  void write(long logId, long length) throws IOException {
    write(new Mark(logId, length, 0, 0));
  }

  /** Records {@code mark} durably. */
  synchronized void write(Mark mark) throws IOException {
    write(mark, true);
  }

  /**
   * Records {@code mark}, forcing it to disk with {@code force}; without, it is in the file (so
   * any later reader sees it) and reaches the disk with the next {@link #force} or the system's
   * own write-back. A reach that lags is never wrong: it only says less than the log holds.
   */
  synchronized void write(Mark mark, boolean force) throws IOException {
    long next = generation + 1;
    ByteBuffer s = ByteBuffer.allocate(SLOT);
    s.putLong(next).putLong(mark.logId()).putLong(mark.length()).putLong(mark.nextId())
        .putLong(mark.nextLength());
    CRC32C crc = new CRC32C();
    crc.update(s.array(), 0, FIELDS);
    s.putInt((int) crc.getValue()).putInt(0).flip();
    long at = (next % 2) * SLOT;
    while (s.hasRemaining()) {
      channel.write(s, at + s.position());
    }
    if (force) {
      channel.force(false);
    }
    generation = next;
  }

  /** Forces what was written to disk. */
  synchronized void force() throws IOException {
    channel.force(false);
  }

  Path file() {
    return file;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
