package io.partkit.replica.node;

import io.partkit.replica.LogReach;
import io.partkit.replica.Record;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;

/**
 * A replica's write-ahead log: one file of records, each {@code [magic][length][crc][payload]}
 * (the CRC-32C covers the length and the payload), appended by the thread that holds the replica
 * and made durable with group commit in two stages ({@link #syncLoop}), taken by two sync workers
 * or by the appender itself ({@link #syncHere}): one {@code fdatasync} covers every record
 * appended before it began, however many batches that was, then the reach records it, and {@code
 * onSynced} then hears how many records are durable.
 *
 * <p>On open, records are read up to the first that is torn or damaged. If nothing intact follows
 * it, it is the tail of an append a crash cut short: it is dropped (the file is cut there, so new
 * records follow the intact ones). If an intact record follows, the damage is in the middle of
 * what was durable, records the node may have acknowledged: {@link #open} refuses with {@link
 * Damaged}, and the node must not start from this log.
 *
 * <p>Compaction. Before a driver opens the log it may replace it whole with {@link #rewrite}. While
 * the log is open, once told how with {@link #compactWhenGrown}, it compacts itself each time it
 * has grown by that many bytes: a {@link Compaction} on a thread of its own folds the records
 * known durable into the few that restore the same state, and replaces the log with those
 * followed by every record appended after them, with the crash safety of {@link #rewrite}
 * (written aside, synced, renamed over, the directory synced). Appends and syncs go on
 * meanwhile: the state thread waits only while the records appended since the copy began are
 * copied (from the moment the new file takes every append too, the syncer syncs both files). Its
 * record counts ({@link #append}'s, {@code onSynced}'s) count every record appended since the log
 * was opened, whatever was folded since.
 *
 * <p>Reach. Beside the log, a {@link WalReach} records how far it reached: after a force of the
 * log, and before {@code onSynced} hears of it (so before anything that depends on the records is
 * sent), the log's length, record count and checksum as that force left them are written and
 * forced (while the next force of the log goes on); a compaction has the syncer
 * record its new file too before that file takes the log's name. On open, a log that does not
 * hold what its reach recorded (its tail lost, an older copy put in its place) is judged by
 * {@link LogReach#judge}: {@link #open} then leaves it untouched and opens nothing, and the driver
 * decides ({@link #setAside}). A log with no reach beside it (written before the reach was kept)
 * opens as it always did, and is given one.
 */
final class Wal implements Storage {

  static final String FILE = "replica.wal";
  /** Where {@link #rewrite} and a compaction write a new log before it takes the log's name. */
  static final String NEXT = "replica.wal.next";
  static final int MAGIC = 0x52574131;
  static final int HEADER = 12;
  /**
   * A node's log is compacted each time it has grown by this many bytes: it bounds how much of
   * the log a start replays beyond the state (a record at a time, holding none of them), and how
   * often a compaction reads back the whole log.
   */
  static final long COMPACT_BYTES = 16L << 20;
  /**
   * A compaction folds this many records at a time into the state so far, so that it holds the
   * state and one such batch, never the whole log.
   */
  static final int FOLD_RECORDS = 1 << 14;
  /** ... or records of this many bytes, whichever comes first (a batch of large values). */
  static final long FOLD_BYTES = 16L << 20;
  private static final int COPY_BYTES = 1 << 20;

  /** A damaged record with intact ones after it: the log cannot be trusted. */
  static final class Damaged extends IOException {
    private static final long serialVersionUID = 1L;

    Damaged(String message) {
      super(message);
    }
  }

  /**
   * What {@link #open} found: {@code count} intact records ({@code records}: as many, when it
   * collected them; none when they were replayed one by one). With a {@link LogReach.Shorter}
   * verdict, {@code wal} is null, nothing was written and no record replayed.
   */
  record Opened(Wal wal, List<Record> records, long count, long droppedBytes,
      LogReach.Verdict verdict) {}

  /** What a compaction while open did. */
  sealed interface Outcome {}

  /** The log was replaced: {@code records} and {@code bytes} before and after. */
  record Compacted(long recordsBefore, long recordsAfter, long bytesBefore, long bytesAfter)
      implements Outcome {}

  /** The log was kept as it was, for the reason {@code why}. */
  record Kept(String why) implements Outcome {}

  private final Path dir;
  private final Path file;
  private final LongConsumer onSynced;
  private final Consumer<IOException> onFailure;
  private final Object lock = new Object();
  /** The two sync workers ({@link #syncLoop}): each takes a log's force or a reach's round. */
  private final Thread[] workers;
  /** Workers waiting for a job, parked, each woken by the one that takes it off this list. */
  private final ArrayDeque<Thread> idle = new ArrayDeque<>();
  /** Workers taken off {@link #idle} and not yet back to pick a job. */
  private int waking;
  /** A worker is forcing the log's files: no other may until it is done. */
  private boolean forcing;
  /** A worker is writing (or reporting) a reach: no other may until it is done. */
  private boolean reaching;
  /** What the last force taken covers: records appended, and reach rounds asked, before it. */
  private long forceTaken;
  private long askedTaken;
  /**
   * The last force done: the records and reach rounds it covers, the marks of the files it
   * forced, and its number ({@code forcedRound}; {@code reachedRound} is the last a reach
   * recorded).
   */
  private long forcedRecords;
  private long forcedAsked;
  private WalReach.Mark[] forcedMarks;
  private long forcedRound;
  private long reachedRound;
  private final WalReach reach;
  /** The CRC-32C of the file's bytes so far ({@link #bytes} of them), for its reach. */
  private CRC32C crc;
  /** Reach rounds asked of the syncer ({@link #recordReach}), and the last it did. */
  private long reachAsked;
  private long reachDone;
  /** The syncer stopped on a failure: no reach round will come. */
  private boolean failed;
  /** The file appends go to. */
  private FileChannel channel;
  /** During a compaction, the new file that takes every append too; null otherwise. */
  private FileChannel mirror;
  /** Files replaced by a compaction, for the syncer to close once it no longer syncs them. */
  private final List<FileChannel> retired = new ArrayList<>();
  private long appended;
  private long synced;
  private long syncs;
  /** The file's size: where the next append goes. */
  private long bytes;
  /** The file begins with this many records (a compaction's), which stand for {@link #folded}. */
  private long headRecords;
  private long folded;
  /** How many bytes of growth start a compaction (0: never); see {@link #compactWhenGrown}. */
  private long compactBytes;
  private UnaryOperator<List<Record>> fold;
  private Consumer<Outcome> told;
  /** The file's size at which the next compaction starts. */
  private long compactAt = Long.MAX_VALUE;
  private Compaction compaction;
  private boolean closed;

  private Wal(Path dir, FileChannel channel, long records, long bytes, CRC32C crc,
      WalReach reach, LongConsumer onSynced, Consumer<IOException> onFailure) {
    this.dir = dir;
    this.crc = crc;
    this.reach = reach;
    this.file = dir.resolve(FILE);
    this.channel = channel;
    this.onSynced = onSynced;
    this.onFailure = onFailure;
    this.appended = records;
    this.synced = records;
    this.forceTaken = records;
    this.bytes = bytes;
    this.headRecords = records;
    this.folded = records;
    this.workers = new Thread[] {new Thread(this::syncLoop, "wal-sync-1"),
        new Thread(this::syncLoop, "wal-sync-2")};
    for (Thread w : workers) {
      w.setDaemon(true);
    }
  }

  /**
   * Opens the log in {@code dir} (created if missing), reading every intact record into {@link
   * Opened#records} (for a log small enough to hold whole: the control's, tests').
   *
   * @param onSynced called on the syncer thread with the count of durable records after each sync
   * @param onFailure called on the syncer thread when a sync fails (the node must stop)
   * @throws Damaged when a damaged record is followed by intact ones, or the reach beside the log
   *     is damaged
   */
  static Opened open(Path dir, LongConsumer onSynced, Consumer<IOException> onFailure)
      throws IOException {
    List<Record> records = new ArrayList<>();
    Opened o = open(dir, records::add, onSynced, onFailure);
    return new Opened(o.wal(), records, o.count(), o.droppedBytes(), o.verdict());
  }

  /**
   * Opens the log in {@code dir} (created if missing), reading it a record at a time: it is
   * checked and judged against its reach first, then, unless it is short (when nothing is
   * replayed), its intact records are decoded again one by one into {@code replay}, in order. So
   * opening holds one record and a buffer besides what {@code replay} keeps, never the log whole;
   * {@link Opened#records} is empty.
   *
   * @param onSynced called on the syncer thread with the count of durable records after each sync
   * @param onFailure called on the syncer thread when a sync fails (the node must stop)
   * @throws Damaged when a damaged record is followed by intact ones, or the reach beside the log
   *     is damaged
   */
  static Opened open(Path dir, Consumer<Record> replay, LongConsumer onSynced,
      Consumer<IOException> onFailure) throws IOException {
    Files.createDirectories(dir);
    // a compaction's file is part of the log only once renamed: one left by a process that
    // stopped mid-compaction (halted on another thread's failure) is nothing, and on a full disk
    // it holds the room this start needs
    Files.deleteIfExists(dir.resolve(NEXT));
    Path file = dir.resolve(FILE);
    boolean fresh = !Files.exists(file);
    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    try {
      if (fresh) {
        syncDirectory(dir); // the file's name is durable before any record in it is
      }
      long size = ch.size();
      List<WalReach.Mark> marks = WalReach.read(dir);
      // the checksums of the log's first bytes, as far as each mark reached, and of all of it
      CRC32C[] markCrcs = new CRC32C[marks.size()];
      for (int i = 0; i < markCrcs.length; i++) {
        markCrcs[i] = new CRC32C();
      }
      CRC32C crc = new CRC32C();
      WalFrames frames = new WalFrames(ch, 0, size);
      long count = 0;
      for (WalFrames.Frame f = frames.next(); f != null; f = frames.next()) {
        f.addTo(crc, Long.MAX_VALUE);
        for (int i = 0; i < markCrcs.length; i++) {
          if (marks.get(i).bytes() > f.start()) {
            f.addTo(markCrcs[i], marks.get(i).bytes());
          }
        }
        count++;
      }
      long pos = frames.position();
      long dropped = size - pos;
      if (dropped > 0) {
        long q = WalFrames.intactAfter(ch, pos, size);
        if (q >= 0) {
          throw new Damaged(file + ": the record at byte " + pos + " (record " + count
              + ") is damaged and an intact record follows at byte " + q + ": records that were"
              + " durable are lost; the node must not start from this log (replace its data)");
        }
      }
      LogReach.Verdict verdict = judge(marks, markCrcs, pos, count);
      if (verdict instanceof LogReach.Shorter) {
        ch.close();
        return new Opened(null, List.of(), count, dropped, verdict);
      }
      WalFrames again = new WalFrames(ch, 0, pos);
      for (long i = 0; i < count; i++) {
        WalFrames.Frame f = again.next();
        if (f == null) {
          throw new IOException(file + ": record " + i + " at byte " + again.position()
              + " changed while the log was being opened");
        }
        replay.accept(f.record());
      }
      if (dropped > 0) {
        ch.truncate(pos);
      }
      // what the log holds may be in the page cache alone (appended before a process crash):
      // durable before the reach names it
      ch.force(true);
      WalReach reach = WalReach.open(dir);
      try {
        reach.write(new WalReach.Mark(pos, count, (int) crc.getValue()), null);
      } catch (IOException | RuntimeException e) {
        reach.close();
        throw e;
      }
      ch.position(pos);
      Wal wal = new Wal(dir, ch, count, pos, crc, reach, onSynced, onFailure);
      for (Thread w : wal.workers) {
        w.start();
      }
      return new Opened(wal, List.of(), count, dropped, verdict);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * The log's first {@code length} bytes (intact records, {@code count} of them) against the marks
   * its reach holds, {@code crcs} the checksums of the log's bytes up to each (as far as the log
   * has intact bytes): whole when it holds what any of them reached, with {@link LogReach#judge}'s
   * rule; short, as the first mark (the log's own) has it, otherwise.
   */
  private static LogReach.Verdict judge(List<WalReach.Mark> marks, CRC32C[] crcs, long length,
      long count) {
    LogReach found = new LogReach(count, length);
    if (marks.isEmpty()) {
      return LogReach.judge(null, found, true);
    }
    LogReach.Verdict first = null;
    for (int i = 0; i < marks.size(); i++) {
      WalReach.Mark m = marks.get(i);
      boolean same = m.bytes() > length || (int) crcs[i].getValue() == m.crc();
      LogReach.Verdict v = LogReach.judge(m.reach(), found, same);
      if (v instanceof LogReach.Whole) {
        return v;
      }
      first = first == null ? v : first;
    }
    return first;
  }

  /**
   * Moves the log in {@code dir} aside, under a name no earlier one took ({@code
   * replica.wal.short-N}), and removes its reach: the next {@link #open} finds no log, as on a
   * new disk. The log is kept for an operator to read, never replayed. Call it only while no
   * {@link Wal} of {@code dir} is open.
   *
   * @return where the log went
   */
  static Path setAside(Path dir) throws IOException {
    Path aside;
    int n = 1;
    do {
      aside = dir.resolve(FILE + ".short-" + n++);
    } while (Files.exists(aside));
    Path log = dir.resolve(FILE);
    if (Files.exists(log)) {
      Files.move(log, aside, StandardCopyOption.ATOMIC_MOVE);
    } else {
      Files.createFile(aside);
    }
    // the log first: a crash between the two leaves no log and its reach, which is short again
    syncDirectory(dir);
    Files.deleteIfExists(dir.resolve(WalReach.FILE));
    syncDirectory(dir);
    return aside;
  }

  /**
   * Replaces the log in {@code dir} with one holding only {@code records}, durable on return. The
   * new log is written and synced under another name, then renamed over the old one and the
   * directory synced, so a crash at any point leaves either log whole: the old one or the new.
   * Call it only while no {@link Wal} of {@code dir} is open.
   *
   * @return false, with the log as it was, when a record is over the size a log record may have
   */
  static boolean rewrite(Path dir, List<Record> records) throws IOException {
    if (overLimit(records) > 0) {
      return false;
    }
    Path next = dir.resolve(NEXT);
    WalReach.Mark written;
    try {
      try (FileChannel ch = FileChannel.open(next, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        // a record at a time: a large state's checkpoint is many pages, never held encoded whole
        CRC32C c = new CRC32C();
        long bytes = 0;
        for (Record r : records) {
          byte[] payload = Codec.encode(r);
          if (payload.length > Codec.MAX_FRAME) {
            ch.close();
            Files.deleteIfExists(next);
            return false;
          }
          ByteBuffer frame = frames(List.of(payload));
          c.update(frame.array(), 0, frame.limit());
          bytes += frame.limit();
          writeFully(ch, frame);
        }
        ch.force(true);
        written = new WalReach.Mark(bytes, records.size(), (int) c.getValue());
      }
      List<WalReach.Mark> marks = WalReach.read(dir);
      try (WalReach reach = WalReach.open(dir)) {
        if (!marks.isEmpty()) {
          // either file may be the log after a crash from here until the reach names the new
          // one alone; with no reach, the old log was never judged, and the new one is not yet
          // either
          reach.write(marks.get(0), written);
        }
        Files.move(next, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(dir);
        reach.write(written, null);
      }
    } catch (IOException e) {
      removeNext(dir, e); // nothing once renamed
      throw e;
    }
    return true;
  }

  /**
   * Removes a {@link #NEXT} that a failed rewrite or compaction left (none once it was renamed):
   * on a full disk, the half-written file would hold the very space a restart needs. A failure
   * to remove it is added to {@code cause}.
   */
  private static void removeNext(Path dir, IOException cause) {
    try {
      Files.deleteIfExists(dir.resolve(NEXT));
    } catch (IOException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * The intact records at the start of the log {@code file} (a {@link #FILE}), read without
   * writing anything (empty when there is no log): for an observer beside the process that owns
   * the log, which may be appending to it meanwhile (a record being appended is a torn tail here,
   * and left out).
   */
  static List<Record> readIntact(Path file) throws IOException {
    List<Record> records = new ArrayList<>();
    readIntact(file, records::add);
    return records;
  }

  /** {@link #readIntact}, a record at a time into {@code into}. */
  static void readIntact(Path file, Consumer<Record> into) throws IOException {
    FileChannel ch;
    try {
      ch = FileChannel.open(file, StandardOpenOption.READ);
    } catch (java.nio.file.NoSuchFileException e) {
      return;
    }
    try (ch) {
      WalFrames frames = new WalFrames(ch, 0, ch.size());
      for (WalFrames.Frame f = frames.next(); f != null; f = frames.next()) {
        into.accept(f.record());
      }
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /**
   * Appends {@code records} (not yet durable: the syncer makes them so). Once the log has grown
   * past its compaction threshold, it starts a compaction on a thread of its own.
   *
   * @return how many records the log holds with these, the count {@code onSynced} must reach
   *     before anything that depends on them is sent
   */
  @Override
  public long append(List<Record> records) throws IOException {
    return append(records, true);
  }

  /**
   * {@link #append}, leaving the sync to the caller: it calls {@link #syncHere} next (outside any
   * lock of its own), and no worker is woken for these records meanwhile.
   */
  long appendForCaller(List<Record> records) throws IOException {
    return append(records, false);
  }

  private long append(List<Record> records, boolean wake) throws IOException {
    if (records.isEmpty()) {
      synchronized (lock) {
        return appended;
      }
    }
    long over = overLimit(records);
    if (over > 0) {
      throw new IOException("a record of at least " + over + " bytes is over the limit of "
          + Codec.MAX_FRAME);
    }
    List<byte[]> encoded = encode(records);
    int largest = largest(encoded);
    if (largest > Codec.MAX_FRAME) {
      throw new IOException("a record of " + largest + " bytes is over the limit of "
          + Codec.MAX_FRAME);
    }
    ByteBuffer buf = frames(encoded);
    Compaction started = null;
    long count;
    synchronized (lock) {
      writeFully(channel, buf.duplicate());
      crc.update(buf.array(), 0, buf.limit());
      if (mirror != null) {
        writeFully(mirror, buf);
        compaction.targetCrc.update(buf.array(), 0, buf.limit());
      }
      bytes += buf.limit();
      appended += records.size();
      count = appended;
      if (wake) {
        dispatch();
      }
      if (compaction == null && !closed && bytes >= compactAt) {
        compaction = new Compaction(fold);
        started = compaction;
      }
    }
    if (started != null) {
      Compaction c = started;
      Thread t = new Thread(() -> compactInBackground(c), "wal-compact");
      t.setDaemon(true);
      t.start();
    }
    return count;
  }

  private static void writeFully(FileChannel to, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      to.write(buf);
    }
  }

  /**
   * From now on, compacts the log each time it has grown by {@code growth} bytes since it was
   * opened or last compacted, folding records with {@code fold} (pure: called on the compaction's
   * thread, with the records known durable, a batch at a time, each batch after the records its
   * previous batches folded into); {@code told} hears each compaction's outcome on that thread. A
   * compaction that keeps the log (its state has a record over the size limit, or is no smaller)
   * waits for the log to grow by {@code growth} or by its whole size, whichever is more, before it
   * tries again, so that trying costs a bounded share of the appends however often it fails.
   */
  void compactWhenGrown(long growth, UnaryOperator<List<Record>> fold, Consumer<Outcome> told) {
    if (growth < 1) {
      throw new IllegalArgumentException("a log's compaction threshold must be at least one"
          + " byte, not " + growth);
    }
    synchronized (lock) {
      this.compactBytes = growth;
      this.fold = fold;
      this.told = told;
      this.compactAt = bytes + growth;
    }
  }

  /**
   * Begins a compaction folding with {@code fold}, to be taken {@link Compaction#step} by step by
   * the caller (tests stop it between any two steps, as a crash would).
   *
   * @throws IllegalStateException when one is under way
   */
  Compaction compaction(UnaryOperator<List<Record>> fold) {
    synchronized (lock) {
      if (compaction != null) {
        throw new IllegalStateException("a compaction of " + file + " is under way");
      }
      compaction = new Compaction(fold);
      return compaction;
    }
  }

  private void compactInBackground(Compaction c) {
    try {
      while (c.step()) {
        // one step after another
      }
      told.accept(c.outcome());
    } catch (IOException e) {
      synchronized (lock) {
        if (closed) {
          return; // the node is stopping: a compaction cut short is one a crash cut short
        }
      }
      removeNext(dir, e);
      onFailure.accept(new IOException("the log's compaction failed: " + e, e));
    }
  }

  /**
   * One compaction of an open log, step by step, in this order: {@link Step#FOLD} reads the
   * records known durable and folds them; {@link Step#WRITE} writes the folded records to {@link
   * #NEXT}, then every record appended after those it folded, as far as the log reached then;
   * {@link Step#MIRROR} copies what was appended since, and from then on every append goes to
   * both files (the syncer syncs both), which is the only time the state thread waits for it;
   * {@link Step#SYNC} makes the new file durable and has the syncer record it in the reach beside
   * the old one's ({@link WalReach}); {@link Step#RENAME} gives it the log's name
   * (atomically); {@link Step#SYNC_DIRECTORY} makes the rename durable; {@link Step#SWITCH} makes
   * it the only file appended to and synced.
   *
   * <p>A crash at any point leaves a log that restores the same state: before the rename, the old
   * log, with every append (whatever it was synced to, it was synced to the old file too); after
   * it, the new one, durable before it took the name, with every append since synced to it
   * before it was reported durable. A leftover {@link #NEXT} is ignored and written afresh by the
   * next compaction.
   */
  final class Compaction {

    /** A compaction's steps, in order. */
    enum Step { FOLD, WRITE, MIRROR, SYNC, RENAME, SYNC_DIRECTORY, SWITCH }

    private final UnaryOperator<List<Record>> folding;
    private Step next = Step.FOLD;
    private Outcome outcome;
    /** The records it folds: the first {@code durable} of the log's count. */
    private long durable;
    private long prefixBytes;
    private List<Record> head;
    private long headBytes;
    private FileChannel old;
    private FileChannel target;
    /** The CRC-32C of what was written to {@link #target} so far. */
    private final CRC32C targetCrc = new CRC32C();
    /** Where the old file's copy into the new one has reached. */
    private long copied;

    private Compaction(UnaryOperator<List<Record>> folding) {
      this.folding = folding;
    }

    /** The step it takes next; null once done. */
    Step next() {
      return next;
    }

    /** What it did; null until done. */
    Outcome outcome() {
      return outcome;
    }

    /**
     * Takes the next step.
     *
     * @return whether steps remain
     * @throws java.nio.channels.ClosedChannelException when the log was closed
     */
    boolean step() throws IOException {
      if (next == null) {
        return false;
      }
      synchronized (lock) {
        if (closed) {
          throw new java.nio.channels.ClosedChannelException();
        }
      }
      Step taking = next;
      next = taking == Step.SWITCH ? null : Step.values()[taking.ordinal() + 1];
      switch (taking) {
        case FOLD -> fold();
        case WRITE -> write();
        case MIRROR -> mirror();
        case SYNC -> {
          target.force(true);
          recordReach();
        }
        case RENAME -> Files.move(dir.resolve(NEXT), file, StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
        case SYNC_DIRECTORY -> syncDirectory(dir);
        case SWITCH -> switchOver();
        default -> throw new IllegalStateException("no step " + taking);
      }
      return next != null;
    }

    private void fold() throws IOException {
      long count;
      synchronized (lock) {
        durable = synced;
        count = headRecords + durable - folded;
        old = channel;
        if (durable == folded) {
          keep("no record was made durable since it was opened or last compacted");
          return;
        }
      }
      List<Record> batch = new ArrayList<>();
      long pos = 0;
      try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
        DataInputStream data = new DataInputStream(new BufferedInputStream(
            Channels.newInputStream(in), 1 << 16));
        int unfolded = 0;
        long unfoldedBytes = 0;
        for (long i = 0; i < count; i++) {
          int magic = data.readInt();
          int length = data.readInt();
          int crc = data.readInt();
          if (magic != MAGIC || length < 1 || length > Codec.MAX_FRAME) {
            throw new Damaged(file + ": the durable record " + i + " at byte " + pos
                + " has a damaged header");
          }
          byte[] payload = new byte[length];
          data.readFully(payload);
          if (crc(payload) != crc) {
            throw new Damaged(file + ": the durable record " + i + " at byte " + pos
                + " does not match its checksum");
          }
          try {
            batch.add(Codec.record(payload));
          } catch (Codec.Malformed e) {
            throw new Damaged(file + ": the durable record " + i + " at byte " + pos
                + " is malformed: " + e.getMessage());
          }
          pos += HEADER + length;
          unfoldedBytes += HEADER + length;
          if (++unfolded == FOLD_RECORDS || unfoldedBytes >= FOLD_BYTES) {
            batch = new ArrayList<>(folding.apply(batch));
            unfolded = 0;
            unfoldedBytes = 0;
          }
        }
      }
      head = folding.apply(batch);
      prefixBytes = pos;
      if (overLimit(head) > 0) {
        keep("a record of its state is over the " + Codec.MAX_FRAME + "-byte limit");
        return;
      }
      // encoded here to be measured, and again as written, a record at a time: a large
      // state's checkpoint is many pages, never held encoded whole
      headBytes = 0;
      for (Record r : head) {
        int length = Codec.encode(r).length;
        if (length > Codec.MAX_FRAME) {
          keep("a record of its state is over the " + Codec.MAX_FRAME + "-byte limit");
          return;
        }
        headBytes += HEADER + length;
      }
      if (headBytes >= prefixBytes) {
        keep("its state (" + headBytes + " bytes) is no smaller than the records it stands for ("
            + prefixBytes + " bytes)");
      }
    }

    private void keep(String why) {
      outcome = new Kept(why);
      next = null;
      synchronized (lock) {
        compactAt = compactBytes == 0 ? Long.MAX_VALUE : bytes + Math.max(compactBytes, bytes);
        compaction = null;
      }
    }

    private void write() throws IOException {
      long end;
      synchronized (lock) {
        end = bytes;
        // readable too: once it is the log, the next compaction copies from it
        target = FileChannel.open(dir.resolve(NEXT), StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
      }
      for (Record r : head) {
        ByteBuffer frame = frames(List.of(Codec.encode(r)));
        targetCrc.update(frame.array(), 0, frame.limit());
        writeFully(target, frame);
      }
      copy(prefixBytes, end);
    }

    private void mirror() throws IOException {
      synchronized (lock) {
        copy(copied, bytes);
        mirror = target;
      }
    }

    /** Copies the old file's bytes {@code [from, to)} to the end of the new one. */
    private void copy(long from, long to) throws IOException {
      ByteBuffer buf = ByteBuffer.allocate((int) Math.min(COPY_BYTES, Math.max(1, to - from)));
      long pos = from;
      while (pos < to) {
        buf.clear().limit((int) Math.min(buf.capacity(), to - pos));
        int n = old.read(buf, pos);
        if (n < 0) {
          throw new IOException(file + " ended at byte " + pos + " before " + to);
        }
        buf.flip();
        targetCrc.update(buf.array(), 0, buf.limit());
        writeFully(target, buf);
        pos += n;
      }
      copied = to;
    }

    private void switchOver() {
      synchronized (lock) {
        long bytesBefore = bytes;
        long recordsBefore = headRecords + appended - folded;
        retired.add(channel);
        channel = target;
        crc = targetCrc;
        mirror = null;
        bytes = headBytes + bytes - prefixBytes;
        headRecords = head.size();
        folded = durable;
        compactAt = compactBytes == 0 ? Long.MAX_VALUE : bytes + compactBytes;
        compaction = null;
        dispatch(); // the file it retired is for a worker to close
        outcome = new Compacted(recordsBefore, headRecords + appended - folded, bytesBefore,
            bytes);
      }
    }

    /** Closes the new file, if open (the log is closing). */
    private void abandon() {
      if (target != null) {
        try {
          target.close();
        } catch (IOException e) {
          // closing
        }
      }
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

  /**
   * The least size of the first of {@code records} known over the record limit without encoding
   * it ({@link Codec#leastSize}), 0 for none: a checkpoint of a partition larger than a record is
   * refused before it takes its size again and more in buffers, which in a node's heap could
   * stop the process (out of memory) at each start and each compaction.
   */
  private static long overLimit(List<Record> records) {
    for (Record r : records) {
      long least = Codec.leastSize(r);
      if (least > Codec.MAX_FRAME) {
        return least;
      }
    }
    return 0;
  }

  /** The size of the largest payload, 0 for none. */
  private static int largest(List<byte[]> payloads) {
    int largest = 0;
    for (byte[] p : payloads) {
      largest = Math.max(largest, p.length);
    }
    return largest;
  }

  /** The CRC-32C of a payload's length and bytes, as a record's header holds it. */
  private static int crc(byte[] payload) {
    return WalFrames.crc(payload);
  }

  /** The payloads framed as the log holds them, ready to write. */
  private static ByteBuffer frames(List<byte[]> payloads) {
    int total = 0;
    for (byte[] p : payloads) {
      total += HEADER + p.length;
    }
    ByteBuffer buf = ByteBuffer.allocate(total);
    for (byte[] p : payloads) {
      buf.putInt(MAGIC).putInt(p.length).putInt(crc(p)).put(p);
    }
    return buf.flip();
  }

  /**
   * Has the syncer take a round that begins now, forcing every file appended to and recording
   * their reach, and waits for it: a compaction's new file, durable, is then in the reach before
   * it takes the log's name.
   */
  private void recordReach() throws IOException {
    synchronized (lock) {
      long asked = ++reachAsked;
      dispatch();
      while (reachDone < asked) {
        if (closed) {
          throw new java.nio.channels.ClosedChannelException();
        }
        if (failed) {
          throw new IOException("the log's syncer failed before it recorded the reach");
        }
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted waiting for the reach");
        }
      }
    }
  }

  /** The marks of the file appended to and of a compaction's new file (or null), as they are. */
  private WalReach.Mark[] marksNow() {
    WalReach.Mark log = new WalReach.Mark(bytes, headRecords + appended - folded,
        (int) crc.getValue());
    if (mirror == null) {
      return new WalReach.Mark[] {log, null};
    }
    Compaction c = compaction;
    WalReach.Mark next = new WalReach.Mark(c.headBytes + bytes - c.prefixBytes,
        c.head.size() + appended - c.durable, (int) c.targetCrc.getValue());
    return new WalReach.Mark[] {log, next};
  }

  /** Records durable now. */
  long synced() {
    synchronized (lock) {
      return synced;
    }
  }

  /**
   * Records whose force is done: durable in the log, perhaps not yet in its reach (so not yet
   * reported).
   */
  long forced() {
    synchronized (lock) {
      return forcedRound == 0 ? synced : forcedRecords;
    }
  }

  /**
   * Group commits reported so far: each is a reach that recorded the last force done when it
   * began, which covered every record appended before that force began.
   */
  long syncs() {
    synchronized (lock) {
      return syncs;
    }
  }

  /** Whether a compaction is under way. */
  boolean compacting() {
    synchronized (lock) {
      return compaction != null;
    }
  }

  /** The log's file. */
  Path file() {
    return file;
  }

  /** Under the lock: records were appended that no force taken so far covers, or a round asked. */
  private boolean forceWanted() {
    return !forcing && (appended > forceTaken || reachAsked > askedTaken || !retired.isEmpty());
  }

  /** Under the lock: a force was done that no reach recorded yet. */
  private boolean reachWanted() {
    return !reaching && forcedRound > reachedRound;
  }

  /**
   * Under the lock: wakes idle workers so that each job nobody took has a worker coming for it.
   * One worker that is idle is woken per job, none when a worker is already on its way: an
   * append while the log is being forced wakes nobody (the force's worker sees it when done).
   */
  private void dispatch() {
    int jobs = (forceWanted() ? 1 : 0) + (reachWanted() ? 1 : 0);
    while (jobs > waking && !idle.isEmpty()) {
      waking++;
      LockSupport.unpark(idle.poll());
    }
  }

  /** A job of the sync stage: a force of the log's files, or a reach. */
  private static final class Job {
    final boolean force;
    long target;
    long asked;
    long round;
    WalReach.Mark[] marks;
    List<FileChannel> toSync = List.of();
    List<FileChannel> toClose = List.of();

    Job(boolean force) {
      this.force = force;
    }
  }

  /**
   * Under the lock: takes the job to do next, the reach first (it finishes a batch whose force is
   * done), or null when there is none (or the log is closed or failed).
   */
  private Job claim() {
    if (closed || failed) {
      return null;
    }
    if (reachWanted()) {
      reaching = true;
      Job j = new Job(false);
      j.round = forcedRound;
      j.target = forcedRecords;
      j.asked = forcedAsked;
      j.marks = forcedMarks;
      return j;
    }
    if (forceWanted()) {
      forcing = true;
      Job j = new Job(true);
      j.toClose = new ArrayList<>(retired);
      retired.clear();
      if (appended > forceTaken || reachAsked > askedTaken) {
        j.target = appended;
        j.asked = reachAsked;
        j.marks = marksNow();
        forceTaken = j.target;
        askedTaken = j.asked;
        // while a compaction's new file takes appends, a record is durable only once both hold
        // it: either may be the log after a crash
        j.toSync = mirror == null ? List.of(channel) : List.of(channel, mirror);
      }
      return j;
    }
    return null;
  }

  /**
   * Does a job {@link #claim} took, outside the lock, and lets it go. A reach reports the records
   * it recorded to {@code onSynced} before it lets go, so reports come one at a time, in order.
   *
   * @return false when it failed (reported to {@code onFailure}): nothing more is done
   */
  private boolean run(Job j) {
    try {
      if (j.force) {
        for (FileChannel c : j.toClose) {
          try {
            c.close(); // a log a compaction replaced: what it held is in the new one, synced
          } catch (IOException e) {
            // nothing depends on it any more
          }
        }
        for (FileChannel c : j.toSync) {
          c.force(false);
        }
        synchronized (lock) {
          forcing = false;
          if (!j.toSync.isEmpty()) {
            forcedRecords = j.target;
            forcedAsked = j.asked;
            forcedMarks = j.marks;
            forcedRound++;
          }
        }
        return true;
      }
      // before anything that depends on these records is sent: a log found short of this later
      // lost them
      reach.write(j.marks[0], j.marks[1]);
    } catch (IOException e) {
      synchronized (lock) {
        failed = true;
        lock.notifyAll();
        idle.forEach(LockSupport::unpark);
        if (closed) {
          return false;
        }
      }
      onFailure.accept(e);
      return false;
    }
    boolean more;
    synchronized (lock) {
      reachedRound = j.round;
      more = j.target > synced;
      if (more) {
        synced = j.target;
        syncs++;
      }
      reachDone = Math.max(reachDone, j.asked);
      lock.notifyAll();
    }
    try {
      if (more) {
        onSynced.accept(j.target);
      }
    } finally {
      synchronized (lock) {
        reaching = false;
      }
    }
    return true;
  }

  /**
   * Takes the sync stage's jobs on the calling thread while there are some no other thread holds
   * (see {@link #syncLoop}): a caller that appended with {@link #appendForCaller} forces the log
   * itself and records the reach, as a group commit's leader does, instead of waking a worker.
   * While it records a reach, what others appended meanwhile is forced by a worker (woken for
   * it), so the two stages still overlap.
   */
  void syncHere() {
    while (true) {
      Job j;
      synchronized (lock) {
        j = claim();
        dispatch(); // the other job, if one is wanted too, is a worker's
        if (j == null) {
          return;
        }
      }
      if (!run(j)) {
        return;
      }
    }
  }

  /**
   * A sync worker. Group commit in two stages, each taken by one thread at a time (a worker, or
   * a caller of {@link #syncHere}): a <em>force</em> makes every file appended to durable (every
   * record appended before it began, however many batches that was), then a <em>reach</em>
   * records in {@link WalReach} how far the last force done reached, forces it, and reports the
   * records durable to {@code onSynced}. A thread that has forced takes the reach itself; while
   * it records it, another forces what was appended meanwhile, so the reach of one batch and the
   * log's force of the next overlap (two forced writes per batch, but one after the other only
   * for a batch that found both stages idle). A reach records the last force done when it
   * begins, so one reach may stand for several forces.
   */
  private void syncLoop() {
    Thread me = Thread.currentThread();
    boolean parked = false;
    while (true) {
      Job j;
      synchronized (lock) {
        if (parked) {
          parked = false;
          if (!idle.remove(me)) {
            waking--; // dispatch took it off the list to wake it
          }
        }
        if (closed || failed) {
          return;
        }
        j = claim();
        if (j == null) {
          idle.push(me);
          parked = true;
        }
        dispatch();
      }
      if (parked) {
        LockSupport.park(this);
        continue;
      }
      if (!run(j)) {
        return;
      }
    }
  }

  @Override
  public void close() throws IOException {
    List<FileChannel> toClose = new ArrayList<>();
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
      for (Thread w : workers) {
        LockSupport.unpark(w);
      }
      if (compaction != null) {
        compaction.abandon();
      }
    }
    try {
      long deadline = System.nanoTime() + 5_000_000_000L;
      for (Thread w : workers) {
        w.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (lock) {
      toClose.addAll(retired);
      retired.clear();
      toClose.add(channel);
    }
    for (FileChannel c : toClose) {
      c.close();
    }
    reach.close();
  }
}
