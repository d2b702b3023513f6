package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Record.CheckpointPage;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A partition larger than a checkpoint's page: its checkpoint is several records, each about a
 * page, that restore it whole, and a log that ends among them restores what came before them.
 */
class PagedCheckpointTest {

  private static final Timing TIMING = Timing.DEFAULT;
  private static final int SELF = 0;
  private static final long PAGE_BYTES = 1_000;

  /** A primary's log of {@code writes} writes of values of 10 to 300 bytes, from {@code seed}. */
  private static List<Record> log(long seed, int writes) {
    Random r = new Random(seed);
    List<Record> log = new ArrayList<>();
    log.add(new Record.Born(7));
    log.add(new Record.Configured(0, 1, SELF, List.of(1, 2)));
    log.add(new Record.LevelBegun(0, 1, 1));
    for (int i = 1; i <= writes; i++) {
      byte[] value = new byte[10 + r.nextInt(291)];
      r.nextBytes(value);
      log.add(new Record.Written(0, 1, 1, i, Bytes.ofLong(r.nextInt(60)), Bytes.of(value)));
    }
    return log;
  }

  private static SortedMap<Bytes, Bytes> data(Replica r) {
    return new TreeMap<>(r.localData(0));
  }

  @Test
  void aPartitionOverAPageCheckpointsInSeveralPagesThatRestoreItIdentically() {
    for (long seed = 1; seed <= 20; seed++) {
      Replica fromLog = Replica.restore(SELF, TIMING, log(seed, 200));
      List<Record> paged = fromLog.checkpoint(PAGE_BYTES);
      List<Record> pages = paged.stream().filter(x -> x instanceof CheckpointPage).toList();
      Checkpoint last = (Checkpoint) paged.get(paged.size() - 1);
      assertThat(pages).as("seed %d", seed).hasSizeGreaterThan(5);
      assertThat(last.pages()).as("seed %d", seed).isEqualTo(pages.size());
      for (int i = 0; i < pages.size(); i++) {
        CheckpointPage page = (CheckpointPage) pages.get(i);
        assertThat(page.page()).isEqualTo(i);
        long bytes = page.data().entrySet().stream()
            .mapToLong(e -> CheckpointPages.size(e.getKey(), e.getValue())).sum();
        assertThat(bytes).as("seed %d page %d", seed, i).isLessThanOrEqualTo(PAGE_BYTES);
      }
      Replica restored = Replica.restore(SELF, TIMING, paged);
      assertThat(data(restored)).as("seed %d", seed).isEqualTo(data(fromLog))
          .hasSizeGreaterThan(30);
      assertThat(restored.checkpoint(PAGE_BYTES)).as("seed %d", seed).isEqualTo(paged);
      // the same state as a checkpoint in one record: only the paging differs
      assertThat(restored.checkpoint()).isEqualTo(fromLog.checkpoint()).hasSize(2);
      assertThat(Checkpoints.whole(paged)).isEqualTo(Checkpoints.whole(fromLog.checkpoint()));
      assertThat(Checkpoints.whole(paged).get(0).data()).isEqualTo(data(fromLog));
    }
  }

  @Test
  void aLogTornWithinAPagedCheckpointRestoresTheStateBeforeIt() {
    for (long seed = 1; seed <= 10; seed++) {
      List<Record> before = log(seed, 120);
      List<Record> all = log(seed, 240); // the same writes, then 120 more
      Replica previous = Replica.restore(SELF, TIMING, before);
      List<Record> paged = Replica.restore(SELF, TIMING, all).checkpoint(PAGE_BYTES);
      assertThat(paged).hasSizeGreaterThan(5);
      // a log of the earlier records, then the checkpoint of them and the later ones
      for (int torn = 0; torn < paged.size(); torn++) {
        List<Record> log = new ArrayList<>(before);
        log.addAll(paged.subList(0, torn));
        Replica r = Replica.restore(SELF, TIMING, log);
        assertThat(data(r)).as("seed %d, the log torn after %d of the checkpoint's %d records",
            seed, torn, paged.size()).isEqualTo(data(previous));
        assertThat(Checkpoints.whole(r.checkpoint(PAGE_BYTES)))
            .isEqualTo(Checkpoints.whole(previous.checkpoint()));
        // a fold that ended among the pages: its checkpoint, then the rest, completes them
        List<Record> folded = new ArrayList<>(r.checkpoint(PAGE_BYTES));
        folded.addAll(paged.subList(torn, paged.size()));
        assertThat(data(Replica.restore(SELF, TIMING, folded))).as("seed %d torn %d", seed, torn)
            .isEqualTo(data(Replica.restore(SELF, TIMING, all)));
        // a checkpoint on its own, torn: the partition as before it, none
        assertThat(Replica.restore(SELF, TIMING, paged.subList(0, torn)).localData(0))
            .isEmpty();
      }
      List<Record> whole = new ArrayList<>(before);
      whole.addAll(paged);
      assertThat(data(Replica.restore(SELF, TIMING, whole)))
          .isEqualTo(data(Replica.restore(SELF, TIMING, all)));
    }
  }

  @Test
  void aRecordOfThePartitionAmongItsCheckpointsPagesEndsThem() {
    List<Record> paged = Replica.restore(SELF, TIMING, log(3, 200)).checkpoint(PAGE_BYTES);
    List<Record> log = new ArrayList<>(paged.subList(0, 3));
    log.add(new Record.LevelBegun(0, 1, 2));
    log.addAll(paged.subList(3, paged.size()));
    assertThatThrownBy(() -> Replica.restore(SELF, TIMING, log))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the checkpoint of partition 0 completes");
  }

  @Test
  void aCheckpointWhosePagesDidNotAllComeIsRefused() {
    List<Record> paged = Replica.restore(SELF, TIMING, log(4, 200)).checkpoint(PAGE_BYTES);
    List<Record> log = new ArrayList<>(paged);
    log.remove(2); // a page lost in the middle: the log was not written whole
    assertThatThrownBy(() -> Replica.restore(SELF, TIMING, log))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("completes " + (paged.size() - 2) + " pages, but 0 came");
    assertThatThrownBy(() -> Checkpoints.whole(log)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anEntryLargerThanAPageTakesAPageOfItsOwn() {
    List<Record> log = new ArrayList<>(log(5, 0));
    log.add(new Record.Written(0, 1, 1, 1, Bytes.ofLong(1), Bytes.of(new byte[5_000])));
    log.add(new Record.Written(0, 1, 1, 2, Bytes.ofLong(2), Bytes.of(new byte[10])));
    log.add(new Record.Written(0, 1, 1, 3, Bytes.ofLong(3), Bytes.of(new byte[5_000])));
    Replica r = Replica.restore(SELF, TIMING, log);
    List<Record> paged = r.checkpoint(PAGE_BYTES);
    // Born, then the pages: {1}, {2}; the checkpoint holds {3}
    assertThat(paged).hasSize(4);
    assertThat(((CheckpointPage) paged.get(1)).data()).containsOnlyKeys(Bytes.ofLong(1));
    assertThat(((CheckpointPage) paged.get(2)).data()).containsOnlyKeys(Bytes.ofLong(2));
    assertThat(((Checkpoint) paged.get(3)).data()).containsOnlyKeys(Bytes.ofLong(3));
    assertThat(data(Replica.restore(SELF, TIMING, paged))).isEqualTo(data(r));
  }
}
