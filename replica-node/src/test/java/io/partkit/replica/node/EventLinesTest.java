package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class EventLinesTest {

  private static final Numbering HALVES = new Numbering.Hashed(4, 8, 0);

  @Test
  void aConfigurationSaysTheNodesRoleThePartitionAndItsEpoch() {
    assertThat(EventLines.of(2, new Record.Configured(5, 7, 2, List.of(0, 4), HALVES)))
        .hasValue("node 2 partition 5 epoch 7: configured primary, backups [0, 4], keys"
            + " numbered 5 modulo 8 (base 4)");
    assertThat(EventLines.of(4, new Record.Configured(5, 7, 2, List.of(0, 4), HALVES)))
        .get().asString().startsWith("node 4 partition 5 epoch 7: configured backup,");
    assertThat(EventLines.of(1, new Record.Configured(5, 8, 2, List.of(0), HALVES)))
        .get().asString().startsWith("node 1 partition 5 epoch 8: configured out (primary 2),");
  }

  @Test
  void aCopyIsOneLineAtItsLastPageAndWritesAreNone() {
    TreeMap<Bytes, Bytes> page = new TreeMap<>(Map.of(Bytes.ofLong(1), Bytes.ofLong(2)));
    assertThat(EventLines.of(3, new Record.SnapshotPage(6, 9, 1, 2, 40, 0, false, page,
        HALVES))).isEmpty();
    assertThat(EventLines.of(3, new Record.SnapshotPage(6, 9, 1, 2, 40, 2, true, page,
        HALVES))).hasValue("node 3 partition 6 epoch 9: took a whole copy in 3 pages from node 1"
            + " as of write 40");
    assertThat(EventLines.of(3, new Record.SnapshotPage(6, 9, 1, 2, 40, 0, true, page,
        HALVES))).get().asString().contains("in 1 page from node 1");
    assertThat(EventLines.of(3, new Record.Written(6, 9, 2, 41, Bytes.ofLong(1),
        Bytes.ofLong(3)))).isEmpty();
  }

  @Test
  void levellingsRebasesSplitsAndMergesAreEvents() {
    assertThat(EventLines.of(0, new Record.LevelBegun(1, 3, 2)))
        .hasValue("node 0 partition 1 epoch 3: levelling 2 begun as primary");
    assertThat(EventLines.of(0, new Record.Rebased(1, 3, 2, 2, 17,
        new TreeMap<>(Map.of(Bytes.ofLong(1), Bytes.ofLong(2))),
        new TreeSet<>(Set.of(Bytes.ofLong(5)))))).hasValue("node 0 partition 1 epoch 3: rebased"
            + " on node 2 as of write 17 without a copy (1 keys put, 1 removed)");
    assertThat(EventLines.of(0, new Record.Split(1, 8)))
        .hasValue("node 0 partition 1: split at modulus 8, keys moved to partition 5");
    assertThat(EventLines.of(0, new Record.Born(3)))
        .hasValue("node 0: born as incarnation 3");
  }
}
