package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.LogReach;
import io.partkit.replica.Record;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalTest {

  @TempDir
  Path dir;

  static Record written(long seq) {
    return new Record.Written(1, 1, 1, seq, Bytes.ofLong(seq), Bytes.ofLong(seq * 10));
  }

  static List<Record> written(int from, int to) {
    List<Record> l = new ArrayList<>();
    for (int i = from; i < to; i++) {
      l.add(written(i));
    }
    return l;
  }

  Wal.Opened open() throws IOException {
    return Wal.open(dir, n -> {}, e -> {
      throw new AssertionError(e);
    });
  }

  /** Appends and waits until durable; closes. */
  void write(List<Record> records) throws Exception {
    AtomicLong synced = new AtomicLong();
    CountDownLatch done = new CountDownLatch(1);
    Wal.Opened o = Wal.open(dir, n -> {
      synced.set(n);
      done.countDown();
    }, e -> {
      throw new AssertionError(e);
    });
    long target = o.wal().append(records);
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    while (o.wal().synced() < target) {
      Thread.sleep(1);
    }
    o.wal().close();
  }

  @Test
  void recordsComeBackInOrderAfterAReopen() throws Exception {
    write(written(1, 4));
    write(List.of(new Record.Configured(2, 3, 0, List.of(1, 2)), new Record.LevelBegun(2, 3, 1)));
    Wal.Opened o = open();
    List<Record> expected = new ArrayList<>(written(1, 4));
    expected.add(new Record.Configured(2, 3, 0, List.of(1, 2)));
    expected.add(new Record.LevelBegun(2, 3, 1));
    assertThat(o.records()).isEqualTo(expected);
    assertThat(o.droppedBytes()).isZero();
    o.wal().close();
  }

  @Test
  void oneRoundCoversEveryRecordForcedBeforeItsReachBegan() throws Exception {
    CountDownLatch inFirstSync = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Long> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
    Wal.Opened o = Wal.open(dir, n -> {
      reported.add(n);
      inFirstSync.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, e -> {
      throw new AssertionError(e);
    });
    Wal wal = o.wal();
    assertThat(wal.append(List.of(written(1)))).isEqualTo(1);
    assertThat(inFirstSync.await(10, TimeUnit.SECONDS)).isTrue();
    // the first round's report is held up: ten batches are appended behind it
    for (int i = 0; i < 10; i++) {
      wal.append(written(2 + i * 3, 5 + i * 3));
    }
    // the log's force goes on meanwhile (the other worker), but nothing is reported yet
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (wal.forced() < 31 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(wal.forced()).isEqualTo(31);
    assertThat(wal.synced()).isEqualTo(1);
    assertThat(reported).containsExactly(1L);
    release.countDown();
    // synced() counts the round before its report is made: wait for the report itself
    while (!reported.contains(31L) && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(wal.synced()).isEqualTo(31);
    assertThat(wal.syncs()).as("one round for the first record, one reach for the ten batches")
        .isEqualTo(2);
    assertThat(reported).containsExactly(1L, 31L);
    wal.close();
  }

  /**
   * The bytes {@code record} takes in a log, with the last {@code cut} of them left off: an
   * append a crash cut short after the sync before it (so after the reach that sync recorded).
   */
  byte[] frame(Record record, int cut) throws Exception {
    Path other = dir.resolve("frame-" + System.nanoTime());
    Wal.Opened o = Wal.open(other, n -> {}, e -> {
      throw new AssertionError(e);
    });
    long target = o.wal().append(List.of(record));
    while (o.wal().synced() < target) {
      Thread.sleep(1);
    }
    o.wal().close();
    byte[] b = Files.readAllBytes(other.resolve(Wal.FILE));
    return java.util.Arrays.copyOf(b, b.length - cut);
  }

  @Test
  void aTornTailIsDroppedAndNewRecordsFollowTheIntactOnes() throws Exception {
    write(written(1, 3));
    Path file = dir.resolve(Wal.FILE);
    // the next record's append was cut short by a crash, before any sync covered it
    Files.write(file, frame(written(3), 5), StandardOpenOption.APPEND);
    Wal.Opened o = open();
    assertThat(o.records()).isEqualTo(written(1, 3));
    assertThat(o.droppedBytes()).isGreaterThan(0);
    o.wal().close();
    write(List.of(written(3)));
    Wal.Opened again = open();
    assertThat(again.records()).isEqualTo(written(1, 4));
    assertThat(again.droppedBytes()).isZero();
    again.wal().close();
  }

  @Test
  void zerosAfterTheLastRecordAreATornTail() throws Exception {
    write(written(1, 3));
    Files.write(dir.resolve(Wal.FILE), new byte[100], StandardOpenOption.APPEND);
    Wal.Opened o = open();
    assertThat(o.records()).isEqualTo(written(1, 3));
    assertThat(o.droppedBytes()).isEqualTo(100);
    o.wal().close();
  }

  @Test
  void aDamagedLastRecordIsATornTail() throws Exception {
    write(written(1, 3));
    Path file = dir.resolve(Wal.FILE);
    byte[] tail = frame(written(3), 0); // appended, and not synced when the node crashed
    tail[tail.length - 3] ^= 0x40;
    Files.write(file, tail, StandardOpenOption.APPEND);
    Wal.Opened o = open();
    assertThat(o.records()).isEqualTo(written(1, 3));
    o.wal().close();
  }

  @Test
  void aLogCutShortOfItsReachIsFoundShortLeftAsItWasAndSetAside() throws Exception {
    write(written(1, 6));
    Path file = dir.resolve(Wal.FILE);
    byte[] whole = Files.readAllBytes(file);
    byte[] three = frameOf(written(1, 4));
    Files.write(file, three); // a synced tail lost at a record boundary
    Wal.Opened o = open();
    assertThat(o.wal()).as("nothing opened").isNull();
    assertThat(o.verdict()).isInstanceOf(LogReach.Shorter.class);
    LogReach.Shorter s = (LogReach.Shorter) o.verdict();
    assertThat(s.reached()).isEqualTo(new LogReach(5, whole.length));
    assertThat(s.found()).isEqualTo(new LogReach(3, three.length));
    assertThat(s.missing()).contains("records 3..4 are missing");
    assertThat(s.startFrom(o.records())).isEmpty();
    assertThat(Files.readAllBytes(file)).as("the log is left as it was found").isEqualTo(three);

    Path aside = Wal.setAside(dir);
    assertThat(aside.getFileName().toString()).isEqualTo(Wal.FILE + ".short-1");
    assertThat(Files.readAllBytes(aside)).isEqualTo(three);
    Wal.Opened fresh = open();
    assertThat(fresh.records()).isEmpty();
    assertThat(fresh.verdict()).isInstanceOf(LogReach.Unrecorded.class);
    fresh.wal().close();
    assertThat(verdict()).as("reopened, the empty log is whole")
        .isInstanceOf(LogReach.Whole.class);
  }

  @Test
  void anOlderCopyOfTheLogPutInItsPlaceIsFoundShortThoughLonger() throws Exception {
    write(written(1, 40));
    byte[] older = Files.readAllBytes(dir.resolve(Wal.FILE));
    assertThat(Wal.rewrite(dir, written(7, 9))).isTrue(); // compacted: far shorter now
    write(written(100, 101));
    Files.write(dir.resolve(Wal.FILE), older); // a backup of the log before it was compacted
    Wal.Opened o = open();
    assertThat(o.verdict()).isInstanceOf(LogReach.Shorter.class);
    assertThat(((LogReach.Shorter) o.verdict()).sameLog()).isFalse();
    assertThat(((LogReach.Shorter) o.verdict()).missing()).contains("not the one");
  }

  @Test
  void aLogWithNoReachBesideItOpensAsItAlwaysDidAndIsGivenOne() throws Exception {
    write(written(1, 4));
    Files.delete(dir.resolve(WalReach.FILE)); // a log written before the reach was kept
    Wal.Opened o = open();
    assertThat(o.verdict()).isInstanceOf(LogReach.Unrecorded.class);
    assertThat(o.records()).isEqualTo(written(1, 4));
    o.wal().close();
    Files.write(dir.resolve(Wal.FILE), frameOf(written(1, 2)));
    assertThat(verdict()).as("cut after it was given one")
        .isInstanceOf(LogReach.Shorter.class);
  }

  @Test
  void aDamagedReachIsRefused() throws Exception {
    write(written(1, 4));
    Files.write(dir.resolve(WalReach.FILE), new byte[128]);
    assertThatThrownBy(this::open).isInstanceOf(Wal.Damaged.class)
        .hasMessageContaining(WalReach.FILE).hasMessageContaining("cannot be told");
  }

  /** What an open finds, the log closed again. */
  LogReach.Verdict verdict() throws IOException {
    Wal.Opened o = open();
    if (o.wal() != null) {
      o.wal().close();
    }
    return o.verdict();
  }

  /** The bytes of a log holding {@code records}. */
  byte[] frameOf(List<Record> records) throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (Record r : records) {
      out.write(frame(r, 0));
    }
    return out.toByteArray();
  }

  @Test
  void aDamagedRecordFollowedByIntactOnesIsRefused() throws Exception {
    write(written(1, 4));
    Path file = dir.resolve(Wal.FILE);
    byte[] b = Files.readAllBytes(file);
    b[Wal.HEADER + 20] ^= 0x01; // inside the first record's payload
    Files.write(file, b);
    assertThatThrownBy(this::open).isInstanceOf(Wal.Damaged.class)
        .hasMessageContaining("record 0").hasMessageContaining("intact record follows");
    assertThat(Files.readAllBytes(file)).as("the log is left as it was found").isEqualTo(b);
  }

  @Test
  void aRewrittenLogHoldsOnlyItsRecordsAndTakesNewOnesAfterThem() throws Exception {
    write(written(1, 40));
    assertThat(Wal.rewrite(dir, written(7, 9))).isTrue();
    assertThat(dir.resolve(Wal.NEXT)).as("the new log took the old one's name").doesNotExist();
    write(written(100, 101));
    Wal.Opened o = open();
    List<Record> expected = new ArrayList<>(written(7, 9));
    expected.add(written(100));
    assertThat(o.records()).isEqualTo(expected);
    o.wal().close();
  }

  @Test
  void aRewriteCutShortBeforeItsRenameLeavesTheOldLogWhole() throws Exception {
    write(written(1, 5));
    Files.write(dir.resolve(Wal.NEXT), new byte[] {1, 2, 3}); // a crash while writing the new log
    Wal.Opened o = open();
    assertThat(o.records()).isEqualTo(written(1, 5));
    o.wal().close();
    assertThat(Wal.rewrite(dir, written(4, 5))).isTrue();
    o = open();
    assertThat(o.records()).as("a later rewrite starts its file afresh").isEqualTo(written(4, 5));
    o.wal().close();
  }

  @Test
  void aRecordOverTheSizeLimitDoesNotFitAndIsNeverWritten() throws Exception {
    Record huge = new Record.Written(1, 1, 1, 1, Bytes.ofLong(1),
        Bytes.of(new byte[Codec.MAX_FRAME + 1]));
    write(written(1, 3));
    assertThat(Wal.rewrite(dir, List.of(written(1), huge))).as("a record over the limit")
        .isFalse();
    assertThat(dir.resolve(Wal.NEXT)).as("nothing written").doesNotExist();
    Wal.Opened o = open();
    assertThat(o.records()).as("the log as it was").isEqualTo(written(1, 3));
    assertThatThrownBy(() -> o.wal().append(List.of(huge))).isInstanceOf(IOException.class)
        .hasMessageContaining("over the limit");
    o.wal().close();
    Wal.Opened again = open();
    assertThat(again.records()).as("the refused append wrote nothing").isEqualTo(written(1, 3));
    again.wal().close();
  }

  /**
   * A checkpoint of a partition over the record limit (32 MiB here, in 4 MiB values) is known
   * over it before it is encoded: encoding it would take its size again and more in buffers,
   * which in a node's 128 MiB heap ends the process (out of memory) at every start and every
   * compaction.
   */
  @Test
  void aCheckpointOverTheLimitIsRefusedWithoutEncodingIt() throws Exception {
    java.util.TreeMap<Bytes, Bytes> data = new java.util.TreeMap<>();
    Bytes value = Bytes.of(new byte[4 << 20]);
    for (long k = 0; k < 8; k++) {
      data.put(Bytes.ofLong(k), value);
    }
    Record big = new Record.Checkpoint(0, 1, true, io.partkit.replica.Role.PRIMARY, 0,
        List.of(), false, 1, 2, true, 8, io.partkit.replica.Numbering.NONE, false, 1, 1, data);
    write(written(1, 3));
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
        java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    assertThat(Wal.rewrite(dir, List.of(big))).isFalse();
    Wal.Opened o = open();
    long opened = threads.getCurrentThreadAllocatedBytes();
    assertThatThrownBy(() -> o.wal().append(List.of(big))).isInstanceOf(IOException.class)
        .hasMessageContaining("a record of at least " + (8 * (16 + (4 << 20))) + " bytes is"
            + " over the limit of " + Codec.MAX_FRAME);
    long after = threads.getCurrentThreadAllocatedBytes();
    assertThat(opened - before).as("bytes allocated by the refused rewrite and the open")
        .isLessThan(1 << 20);
    assertThat(after - opened).as("bytes allocated by the refused append").isLessThan(1 << 20);
    assertThat(o.records()).as("the log as it was").isEqualTo(written(1, 3));
    o.wal().close();
  }

  @Test
  void anObserverReadsTheIntactRecordsWithoutTouchingTheLog() throws Exception {
    Path file = dir.resolve(Wal.FILE);
    assertThat(Wal.readIntact(file)).as("no log yet").isEmpty();
    write(written(1, 4));
    long size = Files.size(file);
    Files.write(file, new byte[] {1, 2, 3}, StandardOpenOption.APPEND); // a record being appended
    assertThat(Wal.readIntact(file)).isEqualTo(written(1, 4));
    assertThat(Files.size(file)).as("the torn tail is left where it is").isEqualTo(size + 3);
  }
}
