package io.partkit.replica;

import io.partkit.replica.Record.Checkpoint;
import io.partkit.replica.Record.CheckpointPage;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A node's {@link Replica#checkpoint} read back a partition at a time: for an observer that
 * compares what nodes hold (a harness's placement check), not for a log.
 */
public final class Checkpoints {

  private Checkpoints() {}

  /**
   * Each partition's {@link Checkpoint} in {@code checkpoint} with its whole data, its pages
   * ({@link CheckpointPage}) taken into it; the pages of a copy still arriving and of a
   * checkpoint that never completed are left out.
   *
   * @throws IllegalStateException when a checkpoint names pages that did not come right before it
   */
  public static SortedMap<Integer, Checkpoint> whole(Iterable<Record> checkpoint) {
    SortedMap<Integer, Checkpoint> whole = new TreeMap<>();
    TreeMap<Integer, CheckpointPages.Gathered> gathering = new TreeMap<>();
    for (Record r : checkpoint) {
      if (r instanceof CheckpointPage page) {
        CheckpointPages.Gathered g = CheckpointPages.Gathered.take(
            gathering.get(page.partition()), page);
        if (g == null) {
          gathering.remove(page.partition());
        } else {
          gathering.put(page.partition(), g);
        }
      } else if (r instanceof Checkpoint c) {
        TreeMap<Bytes, Bytes> data = CheckpointPages.Gathered.complete(
            gathering.remove(c.partition()), c);
        whole.put(c.partition(), new Checkpoint(c.partition(), c.epoch(), c.configured(),
            c.role(), c.primary(), c.backups(), c.deposed(), c.level(), c.nextLevel(),
            c.levelled(), c.seq(), c.numbering(), c.inherited(), c.stateEpoch(), c.stateLevel(),
            data));
      } else {
        gathering.remove(r.partition());
      }
    }
    return whole;
  }
}
