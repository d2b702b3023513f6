package io.partkit.kvstore.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.wire.Wire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay tells a torn tail (a crash mid-append: drop it) from corruption before the end (refuse
 * to open: the records after it were acknowledged). Before this distinction, one flipped byte in
 * the middle of a log was taken for a torn tail, and the node's startup compaction then deleted
 * every intact record after it.
 */
class WriteAheadLogTest {

  private static final int RECORDS = 1000;

  @TempDir Path dir;

  /** Writes records 0..RECORDS-1 (each its number as an int, then a few padding bytes). */
  private Path writeLog() throws IOException {
    Path file = dir.resolve("wal.log");
    try (WriteAheadLog log = WriteAheadLog.open(file, body -> { })) {
      long last = 0;
      for (int i = 0; i < RECORDS; i++) {
        last = log.append(new Wire.Writer().i32(i).bytes(new byte[] {1, 2, 3, 4, 5}).toBytes());
      }
      log.awaitDurable(last);
    }
    return file;
  }

  private static List<Integer> replay(Path file) throws IOException {
    List<Integer> seen = new ArrayList<>();
    WriteAheadLog.open(file, body -> seen.add(body.i32())).close();
    return seen;
  }

  /** Each record is 8 header bytes + 4 + 4 + 5 body bytes. */
  private static long offsetOf(int record) {
    return record * (8L + 13);
  }

  private static void flip(Path file, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x40);
    }
  }

  private static byte[] record(int i) {
    return new Wire.Writer().i32(i).bytes(new byte[] {1, 2, 3, 4, 5}).toBytes();
  }

  @Test
  void aRecordForcedSoonReachesTheFileWithNobodyWaiting() throws Exception {
    Path file = dir.resolve("wal.log");
    try (WriteAheadLog log = WriteAheadLog.open(file, body -> { })) {
      log.append(record(0));
      log.append(record(1));
      log.forceSoon(log.append(record(2)));
      // nobody awaits the records: only the background force writes them (a condition with a
      // generous deadline, for a loaded machine)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Files.size(file) < offsetOf(3) && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      Path copy = dir.resolve("copy.log");
      Files.copy(file, copy); // replayed while the log is still open: no close has forced it
      assertThat(replay(copy)).containsExactly(0, 1, 2);
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS) // a waiter left waiting must fail, not hang
  void anErrorInTheGroupCommitReleasesEveryWaiterAndFailsTheLog() throws Exception {
    Path file = dir.resolve("wal.log");
    List<IOException> told = new CopyOnWriteArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    WriteAheadLog log = WriteAheadLog.open(file, body -> { });
    try {
      log.onFailure(told::add);
      CountDownLatch inStep = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      log.commitStepForTest((channel, batch) -> {
        inStep.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new OutOfMemoryError("Java heap space (injected)");
      });
      long first = log.append(record(0));
      Future<?> flusher = threads.submit(() -> {
        log.awaitDurable(first);
        return null;
      });
      assertThat(inStep.await(60, TimeUnit.SECONDS)).as("the flusher is in the step").isTrue();
      long second = log.append(record(1));
      Thread[] waiting = new Thread[1];
      Future<?> waiter = threads.submit(() -> {
        waiting[0] = Thread.currentThread();
        log.awaitDurable(second);
        return null;
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while ((waiting[0] == null || waiting[0].getState() != Thread.State.WAITING)
          && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(1);
      }
      assertThat(waiting[0].getState()).as("waits for the batch in progress")
          .isEqualTo(Thread.State.WAITING);
      release.countDown();
      for (Future<?> f : List.of(flusher, waiter)) {
        assertThatThrownBy(() -> f.get(60, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(IOException.class)
            .hasMessageContaining("write-ahead log " + file + " failed: OutOfMemoryError");
      }
      assertThat(told).hasSize(1);
      assertThat(told.get(0)).hasMessageContaining("OutOfMemoryError: Java heap space (injected)")
          .hasRootCauseInstanceOf(OutOfMemoryError.class);
      assertThatThrownBy(() -> log.append(record(2))).as("the log refuses everything after")
          .isInstanceOf(UncheckedIOException.class).hasMessageContaining("OutOfMemoryError");
    } finally {
      threads.shutdownNow();
      log.close();
    }
    assertThat(replay(file)).as("nothing of the failed batch was acknowledged").isEmpty();
  }

  @Test
  void afterAWriteThatFailedMidBatchTheReachCoversEveryIntactRecord() throws IOException {
    Path file = dir.resolve("wal.log");
    Path reachFile = LogReach.fileFor(file);
    LogReach reach = LogReach.open(reachFile);
    WriteAheadLog log = WriteAheadLog.openWritten(file, WriteAheadLog.rewrite(file, List.of()),
        reach);
    long last = 0;
    for (int i = 0; i < 100; i++) {
      last = log.append(record(i));
    }
    log.awaitDurable(last); // acknowledged
    // the disk fills halfway through the next batch: whole records of it are in the file
    log.commitStepForTest((channel, batch) -> {
      channel.write(java.nio.ByteBuffer.wrap(batch, 0, batch.length / 2));
      throw new IOException("No space left on device");
    });
    for (int i = 100; i < 200; i++) {
      last = log.append(record(i));
    }
    long failed = last;
    assertThatThrownBy(() -> log.awaitDurable(failed))
        .hasMessageContaining("No space left on device");
    log.close();
    WriteAheadLog.Replayed replayed = WriteAheadLog.replay(file, body -> { });
    LogReach.Mark mark = LogReach.read(reachFile);
    assertThat(mark.lengthOf(replayed.logId())).as("the reach, next to the intact records")
        .isGreaterThanOrEqualTo(replayed.intactBytes());
    assertThat(replay(file)).as("every acknowledged record, and none of the failed batch")
        .hasSize(100);
  }

  @Test
  void aCleanCloseForcesWhatWasAppended() throws IOException {
    Path file = dir.resolve("wal.log");
    try (WriteAheadLog log = WriteAheadLog.open(file, body -> { })) {
      log.append(record(0));
      log.append(record(1)); // nobody waits for either
    }
    assertThat(replay(file)).containsExactly(0, 1);
  }

  @Test
  void anIntactLogReplaysEveryRecordInOrder() throws IOException {
    List<Integer> seen = replay(writeLog());
    assertThat(seen).hasSize(RECORDS);
    for (int i = 0; i < RECORDS; i++) {
      assertThat(seen.get(i)).isEqualTo(i);
    }
  }

  @Test
  void aFlippedByteInTheMiddleStopsTheOpenNamingTheFileAndOffset() throws IOException {
    Path file = writeLog();
    flip(file, offsetOf(500) + 8 + 2); // inside record 500's body
    byte[] before = Files.readAllBytes(file);
    assertThatThrownBy(() -> replay(file))
        .isInstanceOf(CorruptLogException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("offset " + offsetOf(500))
        .hasMessageContaining("record 501: checksum mismatch")
        .hasMessageContaining("intact record follows at offset " + offsetOf(501));
    assertThat(Files.readAllBytes(file)).as("the log is left as it was").isEqualTo(before);
  }

  @Test
  void aDamagedLengthInTheMiddleIsCorruptionToo() throws IOException {
    Path file = writeLog();
    flip(file, offsetOf(300)); // the high byte of record 300's length: far past the end
    assertThatThrownBy(() -> replay(file))
        .isInstanceOfSatisfying(CorruptLogException.class,
            e -> assertThat(e.offset()).isEqualTo(offsetOf(300)))
        .hasMessageContaining("record 301: length");
  }

  @Test
  void aTornTailIsDroppedAndEverythingBeforeItReplays() throws IOException {
    Path file = writeLog();
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(offsetOf(RECORDS - 1) + 11); // a crash mid-way through the last record
    }
    assertThat(replay(file)).hasSize(RECORDS - 1).endsWith(RECORDS - 2);
  }

  @Test
  void aDamagedLastRecordIsATornTail() throws IOException {
    Path file = writeLog();
    flip(file, offsetOf(RECORDS - 1) + 12);
    assertThat(replay(file)).hasSize(RECORDS - 1);
  }
}
