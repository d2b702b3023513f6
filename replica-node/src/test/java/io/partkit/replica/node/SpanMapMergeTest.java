package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random re-cuts of key ranges that both split and merge, on a real {@link Control}:
 * {@link SpanMap#checkRefines} accepts exactly those in which every new range's replicas are
 * those of each committed range it overlaps (decided here by comparing the ranges' bounds, not
 * by boundaries); after the splits {@link SpanMap#splits} asks for, the core maps onto the new
 * table with merged ranges over several core partitions, every random key's core partition
 * mapping to the index that holds the key and taking its row. A failing seed is in the
 * assertion's description.
 */
class SpanMapMergeTest {

  private static final List<List<NodeId>> ROWS = List.of(List.of(SpanMapTest.A),
      List.of(SpanMapTest.B), List.of(NodeId.of("c")));

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 42, 1234, 98765, -7, 500, 501, 502})
  void randomSplitsAndMergesKeepEveryKeyOnItsRow(long seed) {
    Random r = new Random(seed);
    String s = "seed " + seed;
    KeyRanges ranges = SpanMapTest.randomRanges(r, 1 + r.nextInt(6));
    PartitionAssignment committed = PartitionAssignment.of("range", 1, 0, ranges,
        randomRows(r, ranges.partitionCount()));
    Control c = SpanMapTest.control(ranges);
    int accepted = 0;
    int merges = 0;
    for (int round = 0; round < 12; round++) {
      KeyRanges next = reCut(r, committed);
      PartitionAssignment proposed = PartitionAssignment.of("range", committed.epoch() + 1, 0,
          next, rowsFor(r, committed, next));
      String what = s + ", round " + round + ": " + committed + " to " + proposed;
      if (!movesNoData(committed, proposed)) {
        PartitionAssignment refused = committed;
        assertThatThrownBy(() -> SpanMap.checkRefines(refused, proposed)).as(what)
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
        continue;
      }
      SpanMap.checkRefines(committed, proposed);
      accepted++;
      if (next.splitCount() < ((KeyRanges) committed.scheme()).splitCount()
          || !keys(next).containsAll(keys((KeyRanges) committed.scheme()))) {
        merges++;
      }
      SpanMapTest.split(c, SpanMap.splits(next, SpanMapTest.numberings(c)), what);
      assertThat(SpanMap.splits(next, SpanMapTest.numberings(c))).as("%s: made once", what)
          .isEmpty();
      assertKeysOnTheirRows(proposed, c, r, what);
      committed = proposed;
    }
    assertThat(accepted).as("%s: re-cuts accepted", s).isGreaterThan(0);
    assertThat(merges).as("%s: merges accepted", s).isGreaterThan(0);
  }

  /** Every random key's core partition maps to the index holding it, and takes its row. */
  private static void assertKeysOnTheirRows(PartitionAssignment table, Control c, Random r,
      String what) {
    SortedMap<Integer, io.partkit.replica.Numbering> core = SpanMapTest.numberings(c);
    SpanMap map = SpanMap.of(table.scheme(), core);
    Map<Integer, List<NodeId>> rows = new HashMap<>();
    for (int i = 0; i < table.partitionCount(); i++) {
      rows.put(i, table.replicas(i));
    }
    SortedMap<Integer, List<NodeId>> onCore = map.toCore(rows);
    assertThat(onCore.keySet()).as(what).isEqualTo(core.keySet());
    for (int k = 0; k < 200; k++) {
      byte[] key = SpanMapTest.randomKey(r);
      int holder = core.entrySet().stream()
          .filter(e -> e.getValue().holds(e.getKey(), Bytes.of(key)))
          .mapToInt(Map.Entry::getKey).findFirst().orElseThrow();
      int i = table.scheme().partitionOfKey(key);
      assertThat(map.index(holder)).as("%s: key %s in core %d", what, Arrays.toString(key),
          holder).isEqualTo(i);
      assertThat(map.cores(i)).as(what).contains(holder);
      assertThat(onCore.get(holder)).as(what).isEqualTo(table.replicas(i));
    }
  }

  /** The oracle: each new range overlaps only committed ranges of its own replicas. */
  private static boolean movesNoData(PartitionAssignment from, PartitionAssignment to) {
    KeyRanges a = (KeyRanges) from.scheme();
    KeyRanges b = (KeyRanges) to.scheme();
    for (int j = 0; j < b.partitionCount(); j++) {
      for (int i = 0; i < a.partitionCount(); i++) {
        if (below(a.lowerBound(i), b.upperBound(j)) && below(b.lowerBound(j), a.upperBound(i))
            && !from.replicas(i).equals(to.replicas(j))) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether {@code key} is below {@code end}, a range's exclusive end (null: none). */
  private static boolean below(byte[] key, byte[] end) {
    return end == null || Arrays.compareUnsigned(key, end) < 0;
  }

  /**
   * Some committed split keys dropped (more often between ranges of one row, which may merge),
   * now and then a new one added.
   */
  private static KeyRanges reCut(Random r, PartitionAssignment committed) {
    KeyRanges ranges = (KeyRanges) committed.scheme();
    TreeSet<Bytes> keys = new TreeSet<>();
    for (int i = 0; i < ranges.splitCount(); i++) {
      boolean oneRow = committed.replicas(i).equals(committed.replicas(i + 1));
      if (r.nextInt(oneRow ? 2 : 6) != 0) {
        keys.add(Bytes.of(ranges.splits().get(i)));
      }
    }
    int more = r.nextInt(3);
    while (more-- > 0) {
      byte[] k = SpanMapTest.randomKey(r);
      if (k.length > 1 || k[0] != 0) {
        keys.add(Bytes.of(k));
      }
    }
    List<byte[]> list = new ArrayList<>();
    keys.forEach(k -> list.add(k.toArray()));
    return KeyRanges.of(list);
  }

  private static TreeSet<Bytes> keys(KeyRanges ranges) {
    TreeSet<Bytes> keys = new TreeSet<>();
    ranges.splits().forEach(k -> keys.add(Bytes.of(k)));
    return keys;
  }

  /** Mostly the row of the committed range holding each new range's first key. */
  private static List<List<NodeId>> rowsFor(Random r, PartitionAssignment committed,
      KeyRanges next) {
    List<List<NodeId>> rows = new ArrayList<>();
    for (int j = 0; j < next.partitionCount(); j++) {
      rows.add(r.nextInt(8) == 0 ? ROWS.get(r.nextInt(ROWS.size()))
          : committed.replicas(committed.scheme().partitionOfKey(next.lowerBound(j))));
    }
    return rows;
  }

  /** Rows from a small set, so that neighbours often share theirs. */
  private static List<List<NodeId>> randomRows(Random r, int n) {
    List<List<NodeId>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(i > 0 && r.nextBoolean() ? rows.get(i - 1) : ROWS.get(r.nextInt(ROWS.size())));
    }
    return rows;
  }
}
