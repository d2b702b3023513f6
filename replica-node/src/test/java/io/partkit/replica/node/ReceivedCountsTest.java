package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.replica.Bytes;
import io.partkit.replica.Numbering;
import io.partkit.replica.Record;
import io.partkit.replica.node.load.CopiesReceived;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A node's counts of what it received come from its replica's records: every snapshot page's
 * entries and bytes, a partition per copy completed (its last page), a level taken by name with
 * the keys it changed and no partition, and nothing for a replicated write. The registry's
 * counters say the same, and go when the node closes.
 */
class ReceivedCountsTest {

  private static Bytes b(String s) {
    return Bytes.of(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void snapshotPagesAndLevelsByNameAreCountedAndReplicatedWritesAreNot() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ReceivedCounts counts = new ReceivedCounts(4, registry);
    assertThat(counts.now()).isEqualTo(CopiesReceived.NONE);

    TreeMap<Bytes, Bytes> first = new TreeMap<>();
    first.put(b("a"), b("1234"));
    first.put(b("bb"), b("56"));
    TreeMap<Bytes, Bytes> second = new TreeMap<>();
    second.put(b("c"), b("789"));
    Numbering n = Numbering.NONE;
    counts.count(List.of(
        new Record.SnapshotPage(0, 3, 1, 1, 3, 0, false, first, n),
        new Record.Written(0, 3, 1, 4, b("zz"), b("value")),
        new Record.SnapshotPage(0, 3, 1, 1, 3, 1, true, second, n)));
    assertThat(counts.now()).isEqualTo(new CopiesReceived(3, (1 + 4) + (2 + 2) + (1 + 3), 1, 2,
        0));

    TreeMap<Bytes, Bytes> put = new TreeMap<>();
    put.put(b("d"), b("12"));
    TreeSet<Bytes> removed = new TreeSet<>(List.of(b("eee")));
    counts.count(List.of(new Record.Rebased(2, 5, 0, 2, 10, put, removed)));
    assertThat(counts.now()).isEqualTo(new CopiesReceived(5, 13 + 3 + 3, 1, 2, 1));

    assertThat(registry.get(ReceivedCounts.KEYS).tag("node", "node-4").functionCounter()
        .count()).isEqualTo(5);
    assertThat(registry.get(ReceivedCounts.PARTITIONS).functionCounter().count()).isEqualTo(1);
    assertThat(registry.get(ReceivedCounts.LEVELS).functionCounter().count()).isEqualTo(1);
    counts.close();
    assertThat(registry.getMeters()).isEmpty();
  }
}
