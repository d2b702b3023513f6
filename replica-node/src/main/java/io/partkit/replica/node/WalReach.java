package io.partkit.replica.node;

import io.partkit.replica.LogReach;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * How far a {@link Wal}'s file reached when last made durable, in a small file of its own beside
 * it ({@link #FILE}): replay sees only what is in the log, and a log that lost its last records
 * looks exactly like a shorter, intact one. {@link LogReach#judge} decides what a start makes of
 * a log measured against it.
 *
 * <p>A mark names a log by its length, its record count and the CRC-32C of its bytes up to that
 * length: a log holds what a mark reached when its first {@code bytes} bytes have that checksum,
 * so a log that lost its tail, and an older or another log put in its place, are both told apart
 * from the log the mark was written for. A reach holds one mark, or two while a compaction's new
 * file is about to take the log's name (the old file's and the new one's): either may be the log
 * after a crash, and a log that holds what either reached is whole.
 *
 * <p>Format (persisted): two slots of 64 bytes, each {@code int64 generation}, two marks of
 * {@code int64 bytes, int64 records, int64 crc} (the second all zero when absent), {@code int32
 * crc32c(the 56 bytes before), int32 0}. A write goes in place to the slot its generation picks,
 * and is forced; a reader takes the intact slot of the highest generation, so a crash mid-write
 * leaves the other slot's older, still true, reach. A reach that lags says less than the log
 * holds, never more.
 */
final class WalReach implements AutoCloseable {

  static final String FILE = "replica.wal.reach";
  private static final int SLOT = 64;
  private static final int FIELDS = 56;

  /** One log's extent: {@code crc} is the CRC-32C of its first {@code bytes} bytes. */
  record Mark(long bytes, long records, int crc) {

    LogReach reach() {
      return new LogReach(records, bytes);
    }
  }

  private final FileChannel channel;
  private long generation;

  private WalReach(FileChannel channel, long generation) {
    this.channel = channel;
    this.generation = generation;
  }

  /**
   * The marks the reach in {@code dir} holds (the log's, then a compaction's new file's, if any),
   * or an empty list when there is none: no file, or an empty one (a log from before the reach
   * was kept, or a node that stopped before its first).
   *
   * @throws Wal.Damaged when it holds bytes but neither slot is intact: whether the log lost
   *     records cannot be told
   */
  static List<Mark> read(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    if (!Files.exists(file)) {
      return List.of();
    }
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
    if (all.capacity() == 0) {
      return List.of();
    }
    long best = -1;
    List<Mark> marks = null;
    for (int slot = 0; slot < 2 && all.capacity() >= (slot + 1) * SLOT; slot++) {
      ByteBuffer s = all.slice(slot * SLOT, SLOT);
      long generation = s.getLong(0);
      CRC32C crc = new CRC32C();
      crc.update(s.slice(0, FIELDS));
      if ((int) crc.getValue() == s.getInt(FIELDS) && generation > best) {
        best = generation;
        marks = new ArrayList<>(2);
        for (int at = 8; at < FIELDS; at += 24) {
          Mark m = new Mark(s.getLong(at), s.getLong(at + 8), (int) s.getLong(at + 16));
          if (at == 8 || m.bytes() > 0) {
            marks.add(m);
          }
        }
      }
    }
    if (marks == null) {
      throw new Wal.Damaged(file + " is damaged (no intact slot in its " + all.capacity()
          + " bytes), so whether the log beside it lost records that were durable cannot be"
          + " told; the node must not start from this log (replace its data)");
    }
    return marks;
  }

  /** Opens (creating) the reach in {@code dir} for writing; {@link #write} replaces it. */
  static WalReach open(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    long generation = 0;
    if (Files.exists(file)) {
      ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
      for (int slot = 0; slot < 2 && all.capacity() >= (slot + 1) * SLOT; slot++) {
        generation = Math.max(generation, all.getLong(slot * SLOT));
      }
    }
    return new WalReach(FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE), generation);
  }

  /** Records durably that the log reached {@code log}, and a new file {@code next} (or null). */
  synchronized void write(Mark log, Mark next) throws IOException {
    long g = generation + 1;
    ByteBuffer s = ByteBuffer.allocate(SLOT);
    s.putLong(g);
    for (Mark m : new Mark[] {log, next}) {
      if (m == null) {
        s.putLong(0).putLong(0).putLong(0);
      } else {
        s.putLong(m.bytes()).putLong(m.records()).putLong(m.crc());
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(s.array(), 0, FIELDS);
    s.putInt((int) crc.getValue()).putInt(0).flip();
    long at = (g % 2) * SLOT;
    while (s.hasRemaining()) {
      channel.write(s, at + s.position());
    }
    channel.force(false);
    generation = g;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
