package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Record;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log compacted while open ({@link Wal.Compaction}): stopped after each of its steps as a crash
 * would stop it, the log reopened restores every acknowledged write; run on its own thread under
 * a stream of appends, it loses and reorders none of them; a state it cannot write keeps the log.
 * The fold here keeps each key's last write, as a checkpoint keeps a partition's data.
 */
class WalCompactionTest {

  static final int KEYS = 10;

  @TempDir
  Path dir;

  static Record write(long seq) {
    return new Record.Written(1, 1, 1, seq, Bytes.ofLong(seq % KEYS), Bytes.ofLong(seq));
  }

  static List<Record> writes(long from, long to) {
    List<Record> l = new ArrayList<>();
    for (long i = from; i < to; i++) {
      l.add(write(i));
    }
    return l;
  }

  /** Each key's last write, in key order. */
  static final UnaryOperator<List<Record>> LAST_WRITES = records -> {
    TreeMap<Bytes, Record> last = new TreeMap<>();
    for (Record r : records) {
      last.put(((Record.Written) r).key(), r);
    }
    return new ArrayList<>(last.values());
  };

  static Wal.Opened open(Path d) throws IOException {
    return Wal.open(d, n -> {}, e -> {
      throw new AssertionError(e);
    });
  }

  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < deadline).as("within 30 s: " + what).isTrue();
      Thread.sleep(1);
    }
  }

  /** Appends {@code records} to {@code all} too. */
  static long append(Wal wal, List<Record> all, List<Record> records) throws IOException {
    all.addAll(records);
    return wal.append(records);
  }

  @Test
  void aCompactionStoppedAfterAnyStepLeavesALogWithEveryAcknowledgedWrite() throws Exception {
    Wal.Compaction.Step[] steps = Wal.Compaction.Step.values();
    for (int stop = 0; stop <= steps.length; stop++) {
      String at = stop == 0 ? "before " + steps[0] : "after " + steps[stop - 1];
      Path d = dir.resolve("stop-" + stop);
      List<Record> all = new ArrayList<>();
      Wal wal = open(d).wal();
      long durable = append(wal, all, writes(0, 200));
      await("the first writes synced", () -> wal.synced() == durable);
      Wal.Compaction c = wal.compaction(LAST_WRITES);
      long seq = 200;
      for (int s = 0; s < stop; s++) {
        assertThat(c.next()).as(at).isEqualTo(steps[s]);
        assertThat(c.step()).as(at).isEqualTo(s < steps.length - 1);
        append(wal, all, writes(seq, seq + 3)); // appends between steps, as the node goes on
        seq += 3;
      }
      long last = all.size();
      await("every write synced (acknowledged)", () -> wal.synced() == last);
      wal.close(); // the crash: nothing more reaches the files

      List<Record> expected = new ArrayList<>(all);
      if (stop > Wal.Compaction.Step.RENAME.ordinal()) {
        expected = new ArrayList<>(LAST_WRITES.apply(all.subList(0, 200)));
        expected.addAll(all.subList(200, all.size()));
      }
      Wal.Opened o = open(d);
      assertThat(o.records()).as("the log replayed, stopped %s", at).isEqualTo(expected);
      assertThat(LAST_WRITES.apply(o.records())).as(at).isEqualTo(LAST_WRITES.apply(all));
      assertThat(o.droppedBytes()).as(at).isZero();
      // the log goes on after the crash: appends follow, a new compaction overwrites a leftover
      append(o.wal(), all, writes(seq, seq + 2));
      expected.addAll(writes(seq, seq + 2));
      await("the new writes synced", () -> o.wal().synced() == o.records().size() + 2);
      Wal.Compaction again = o.wal().compaction(LAST_WRITES);
      while (again.step()) {
        // to the end
      }
      assertThat(again.outcome()).as(at).isInstanceOf(Wal.Compacted.class);
      o.wal().close();
      Wal.Opened reopened = open(d);
      assertThat(reopened.records()).as("compacted again after stopping %s", at)
          .isEqualTo(LAST_WRITES.apply(all));
      assertThat(d.resolve(Wal.NEXT)).as(at).doesNotExist();
      reopened.wal().close();
    }
  }

  @Test
  void aCompletedCompactionTellsItsCountsAndTheLogShrinks() throws Exception {
    List<Record> all = new ArrayList<>();
    Wal wal = open(dir).wal();
    long durable = append(wal, all, writes(0, 500));
    await("synced", () -> wal.synced() == durable);
    long before = Files.size(dir.resolve(Wal.FILE));
    Wal.Compaction c = wal.compaction(LAST_WRITES);
    while (c.step()) {
      // to the end
    }
    assertThat(c.outcome()).isEqualTo(new Wal.Compacted(500, KEYS, before,
        Files.size(dir.resolve(Wal.FILE))));
    assertThat(Files.size(dir.resolve(Wal.FILE))).isLessThan(before / 10);
    // the counts the node waits on go on from where they were
    assertThat(append(wal, all, writes(500, 501))).isEqualTo(501);
    await("synced", () -> wal.synced() == 501);
    wal.close();
    Wal.Opened o = open(dir);
    List<Record> expected = new ArrayList<>(LAST_WRITES.apply(all.subList(0, 500)));
    expected.add(write(500));
    assertThat(o.records()).isEqualTo(expected);
    o.wal().close();
  }

  @Test
  void appendsWhileCompactionsRunOnTheirOwnThreadAreNeitherLostNorReordered() throws Exception {
    LinkedBlockingQueue<Long> reported = new LinkedBlockingQueue<>();
    LinkedBlockingQueue<Wal.Outcome> outcomes = new LinkedBlockingQueue<>();
    AtomicReference<IOException> failed = new AtomicReference<>();
    Wal wal = Wal.open(dir, reported::add, failed::set).wal();
    wal.compactWhenGrown(8 << 10, LAST_WRITES, outcomes::add);
    List<Record> all = new ArrayList<>();
    List<Wal.Compacted> compacted = new ArrayList<>();
    long seq = 0;
    while (compacted.size() < 5) {
      int n = 1 + (int) (seq % 3);
      long count = append(wal, all, writes(seq, seq + n));
      seq += n;
      assertThat(count).isEqualTo(all.size());
      if (seq % 64 < 3) {
        // now and then, wait for the group commit to catch up, as a node waits to acknowledge
        await("synced", () -> wal.synced() >= count);
      }
      for (Wal.Outcome o = outcomes.poll(); o != null; o = outcomes.poll()) {
        assertThat(o).isInstanceOf(Wal.Compacted.class);
        compacted.add((Wal.Compacted) o);
      }
      assertThat(seq).as("five compactions within 200,000 writes").isLessThan(200_000);
    }
    long last = all.size();
    await("every write synced", () -> wal.synced() == last);
    wal.close(); // possibly in the middle of a compaction: a crash there too
    assertThat(failed.get()).isNull();
    List<Long> counts = new ArrayList<>(reported);
    assertThat(counts).as("durable counts only grow").isSorted().contains(last);
    for (Wal.Compacted c : compacted) {
      assertThat(c.recordsAfter()).isLessThan(c.recordsBefore());
      assertThat(c.bytesAfter()).isLessThan(c.bytesBefore());
    }

    List<Record> log = open(dir).records();
    assertThat(LAST_WRITES.apply(log)).isEqualTo(LAST_WRITES.apply(all));
    // the log is the fold of a prefix of the appends, then the rest of them in order
    boolean matched = false;
    for (int head = 0; head <= Math.min(KEYS, log.size()) && !matched; head++) {
      int k = all.size() - (log.size() - head);
      if (k >= 0) {
        List<Record> expected = new ArrayList<>(LAST_WRITES.apply(all.subList(0, k)));
        expected.addAll(all.subList(k, all.size()));
        matched = expected.equals(log);
      }
    }
    assertThat(matched).as("the log (%d records) is a folded prefix of the %d appends and"
        + " their rest", log.size(), all.size()).isTrue();
    assertThat(log.size()).as("compacted: far fewer records than appended")
        .isLessThan(all.size() / 2);
  }

  @Test
  void aStateOverTheRecordLimitKeepsTheLogAndWaitsForItToDoubleBeforeTryingAgain()
      throws Exception {
    Record huge = new Record.Written(1, 1, 1, 1, Bytes.ofLong(1),
        Bytes.of(new byte[Codec.MAX_FRAME + 1]));
    AtomicInteger folds = new AtomicInteger();
    LinkedBlockingQueue<Wal.Outcome> outcomes = new LinkedBlockingQueue<>();
    Wal wal = open(dir).wal();
    wal.compactWhenGrown(4 << 10, records -> {
      folds.incrementAndGet();
      return List.of(huge);
    }, outcomes::add);
    List<Record> all = new ArrayList<>();
    long seq = 0;
    while (outcomes.isEmpty()) {
      long count = append(wal, all, writes(seq, seq + 1));
      seq++;
      await("synced", () -> wal.synced() >= count);
      assertThat(seq).as("an attempt within 10,000 writes").isLessThan(10_000);
    }
    Wal.Outcome first = outcomes.take();
    assertThat(first).isInstanceOf(Wal.Kept.class);
    assertThat(((Wal.Kept) first).why()).contains("over the " + Codec.MAX_FRAME + "-byte limit");
    assertThat(wal.compacting()).isFalse();
    int attempts = folds.get();
    long size = Files.size(dir.resolve(Wal.FILE));
    // below twice its size then, no attempt starts
    while (Files.size(dir.resolve(Wal.FILE)) < 2 * size - 200) {
      append(wal, all, writes(seq, seq + 1));
      seq++;
      assertThat(wal.compacting()).as("at %d bytes, after giving up at %d",
          Files.size(dir.resolve(Wal.FILE)), size).isFalse();
    }
    assertThat(folds.get()).isEqualTo(attempts);
    // past it, one does
    while (outcomes.isEmpty() && !wal.compacting()) {
      append(wal, all, writes(seq, seq + 1));
      seq++;
      assertThat(Files.size(dir.resolve(Wal.FILE))).isLessThan(2 * size + 1000);
    }
    assertThat(outcomes.poll(30, TimeUnit.SECONDS)).isInstanceOf(Wal.Kept.class);
    long last = all.size();
    await("synced", () -> wal.synced() == last);
    wal.close();
    Wal.Opened o = open(dir);
    assertThat(o.records()).as("the log as it was appended").isEqualTo(all);
    o.wal().close();
  }
}
