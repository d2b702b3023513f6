package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import io.partkit.replica.Control;
import io.partkit.replica.Numbering;
import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The coordinator's indices and the core's numbers matched by span, on a real {@link Control}:
 * seeded random refinements of key ranges and token rings, split by the list {@link
 * SpanMap#splits} makes, end with every coordinator partition one core partition of equal span,
 * and every key in the core partition its coordinator index maps to. A failing seed is in the
 * assertion's description.
 */
class SpanMapTest {

  static final NodeId A = NodeId.of("a");
  static final NodeId B = NodeId.of("b");

  /** A control over {@code scheme}, its table as the coordinator's first. */
  static Control control(PartitionScheme scheme) {
    return new Control(ReplicaNodeMain.TIMING, scheme, 1, List.of(0));
  }

  static SortedMap<Integer, Numbering> numberings(Control c) {
    SortedMap<Integer, Numbering> n = new TreeMap<>();
    for (int p : c.partitionIds()) {
      n.put(p, c.configuration(p).numbering());
    }
    return n;
  }

  /** Carries the splits out on {@code c}, each split's new number the one the list expects. */
  static void split(Control c, List<SpanMap.CoreSplit> splits, String seed) {
    for (SpanMap.CoreSplit s : splits) {
      Numbering before = c.configuration(s.partition()).numbering();
      Optional<Integer> child = c.split(s.partition(), s.cut());
      assertThat(child).as("%s: split %s", seed, s)
          .hasValue((int) (s.partition() + before.modulus()));
    }
  }

  static byte[] randomKey(Random r) {
    byte[] k = new byte[1 + r.nextInt(3)];
    r.nextBytes(k);
    return k;
  }

  static KeyRanges randomRanges(Random r, int splits) {
    TreeSet<Bytes> keys = new TreeSet<>();
    while (keys.size() < splits) {
      byte[] k = randomKey(r);
      if (k[0] != 0 || k.length > 1) {
        keys.add(Bytes.of(k));
      }
    }
    List<byte[]> list = new ArrayList<>();
    keys.forEach(k -> list.add(k.toArray()));
    return KeyRanges.of(list);
  }

  /** {@code ranges} with {@code more} split keys added, none removed. */
  static KeyRanges refine(Random r, KeyRanges ranges, int more) {
    TreeSet<Bytes> keys = new TreeSet<>();
    ranges.splits().forEach(k -> keys.add(Bytes.of(k)));
    int want = keys.size() + more;
    while (keys.size() < want) {
      byte[] k = randomKey(r);
      if (k.length > 1 || k[0] != 0) {
        keys.add(Bytes.of(k));
      }
    }
    List<byte[]> list = new ArrayList<>();
    keys.forEach(k -> list.add(k.toArray()));
    return KeyRanges.of(list);
  }

  static TokenRanges refine(Random r, TokenRanges ring, int more) {
    TreeSet<Long> tokens = new TreeSet<>();
    for (long t : ring.tokens()) {
      tokens.add(t);
    }
    int want = tokens.size() + more;
    while (tokens.size() < want) {
      // now and then a token at either end of the line: cuts of the range that wraps
      int pick = r.nextInt(10);
      tokens.add(pick == 0 ? Long.MAX_VALUE - r.nextInt(3) : pick == 1
          ? Long.MIN_VALUE + r.nextInt(3) : r.nextLong());
    }
    return TokenRanges.of(tokens.stream().mapToLong(Long::longValue).toArray());
  }

  /**
   * Every coordinator partition is one core partition of equal span, and random keys are held
   * by the core partition their coordinator index maps to.
   */
  static void assertEqualSpans(PartitionScheme scheme, Control c, Random r, String seed) {
    SpanMap map = SpanMap.of(scheme, numberings(c));
    assertThat(map.equalSpans()).as("%s: equal spans, %s", seed, map).isTrue();
    assertThat(c.partitions()).as(seed).isEqualTo(scheme.partitionCount());
    for (int i = 0; i < scheme.partitionCount(); i++) {
      int core = map.cores(i).get(0);
      assertThat(map.index(core)).as(seed).isEqualTo(i);
      Numbering n = c.configuration(core).numbering();
      if (scheme instanceof KeyRanges ranges) {
        Bytes[] span = ((Numbering.KeySpans) n).span(core);
        assertThat(span[0]).as("%s: the first key of %d", seed, i)
            .isEqualTo(Bytes.of(ranges.lowerBound(i)));
        byte[] upper = ranges.upperBound(i);
        assertThat(span[1]).as("%s: the end of %d", seed, i)
            .isEqualTo(upper == null ? null : Bytes.of(upper));
      } else {
        TokenRanges ring = (TokenRanges) scheme;
        long[] span = ((Numbering.TokenSpans) n).span(core);
        int before = i == 0 ? ring.partitionCount() - 1 : i - 1;
        assertThat(span).as("%s: the tokens of %d", seed, i)
            .containsExactly(ring.token(before), ring.token(i));
      }
    }
    for (int k = 0; k < 200; k++) {
      byte[] key = randomKey(r);
      int i = scheme.partitionOfKey(key);
      int core = map.cores(i).get(0);
      assertThat(c.configuration(core).numbering().holds(core, Bytes.of(key)))
          .as("%s: key %s in coordinator partition %d, core %d", seed,
              Arrays.toString(key), i, core).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 42, 1234, 98765, -7})
  void randomKeyRangeRefinementsEndInEqualSpans(long seed) {
    Random r = new Random(seed);
    String s = "seed " + seed;
    KeyRanges ranges = randomRanges(r, r.nextInt(6));
    Control c = control(ranges);
    assertEqualSpans(ranges, c, r, s);
    for (int round = 0; round < 4; round++) {
      KeyRanges finer = refine(r, ranges, 1 + r.nextInt(6));
      List<SpanMap.CoreSplit> splits = SpanMap.splits(finer, numberings(c));
      assertThat(splits).as(s).hasSize(finer.splitCount() - ranges.splitCount());
      split(c, splits, s);
      // prepared, not committed: the core is finer than the committed table
      SpanMap coarse = SpanMap.of(ranges, numberings(c));
      int inside = 0;
      for (int i = 0; i < ranges.partitionCount(); i++) {
        inside += coarse.cores(i).size();
        for (int core : coarse.cores(i)) {
          assertThat(coarse.index(core)).as(s).isEqualTo(i);
        }
      }
      assertThat(inside).as(s).isEqualTo(finer.partitionCount());
      assertThat(SpanMap.splits(finer, numberings(c))).as("%s: made once", s).isEmpty();
      assertEqualSpans(finer, c, r, s);
      ranges = finer;
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 42, 1234, 98765, -7})
  void randomTokenRingJoinsEndInEqualSpans(long seed) {
    Random r = new Random(seed);
    String s = "seed " + seed;
    TokenRanges ring = refine(r, TokenRanges.of(r.nextLong()), r.nextInt(5));
    Control c = control(ring);
    assertEqualSpans(ring, c, r, s);
    for (int round = 0; round < 4; round++) {
      TokenRanges finer = refine(r, ring, 1 + r.nextInt(6));
      split(c, SpanMap.splits(finer, numberings(c)), s);
      SpanMap coarse = SpanMap.of(ring, numberings(c));
      for (int i = 0; i < ring.partitionCount(); i++) {
        for (int core : coarse.cores(i)) {
          assertThat(coarse.index(core)).as(s).isEqualTo(i);
        }
      }
      assertThat(SpanMap.splits(finer, numberings(c))).as("%s: made once", s).isEmpty();
      assertEqualSpans(finer, c, r, s);
      ring = finer;
    }
  }

  /**
   * The range that wraps, (100, -100], cut past the largest token and before the smallest: the
   * core partition keeps the part up to the first cut from its low end, the ring's order.
   */
  @Test
  void aWrappingTokenRangeIsCutOnBothSidesOfTheWrap() {
    TokenRanges ring = TokenRanges.of(-100, 0, 100);
    Control c = control(ring);
    TokenRanges joined = TokenRanges.of(Long.MIN_VALUE + 1, -100, 0, 100, 200, Long.MAX_VALUE);
    List<SpanMap.CoreSplit> splits = SpanMap.splits(joined, numberings(c));
    assertThat(splits).containsExactly(
        new SpanMap.CoreSplit(0, Bytes.ofLong(200)),
        new SpanMap.CoreSplit(3, Bytes.ofLong(Long.MAX_VALUE)),
        new SpanMap.CoreSplit(9, Bytes.ofLong(Long.MIN_VALUE + 1)));
    split(c, splits, "wrap");
    SpanMap map = SpanMap.of(joined, numberings(c));
    // joined's index 0 is (MAX, MIN + 1], which wraps; index 4 is (100, 200], core 0's half
    assertThat(map.cores(0)).containsExactly(9);
    assertThat(map.cores(4)).containsExactly(0);
    assertThat(map.cores(5)).containsExactly(3);
    assertThat(map.cores(1)).containsExactly(9 + 12);
    assertEqualSpans(joined, c, new Random(5), "wrap");
    SpanMap before = SpanMap.of(ring, numberings(c));
    assertThat(before.cores(0)).as("from the wrapping range's low end up")
        .containsExactly(0, 3, 9, 21);
    assertThat(before.toCore(java.util.Map.of(0, "w", 1, "x")))
        .containsOnlyKeys(0, 3, 9, 21, 1);
  }

  @Test
  void aReCutThatMovesDataIsRefusedNamingThePartitionAndWhatWasExpected() {
    KeyRanges ranges = KeyRanges.of(new byte[] {10}, new byte[] {20});
    PartitionAssignment committed = PartitionAssignment.of("range", 3, 0, ranges,
        List.of(List.of(A), List.of(A), List.of(B)));
    PartitionAssignment across = PartitionAssignment.of("range", 4, 0, ranges.withoutSplit(1),
        List.of(List.of(A), List.of(A)));
    assertThatThrownBy(() -> SpanMap.checkRefines(committed, across))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("split partition 1 overlaps committed partition 2")
        .hasMessageContaining("expected its [b]")
        .hasMessageContaining("a merge covers only partitions on the same replicas");
    PartitionAssignment merged = PartitionAssignment.of("range", 4, 0, ranges.withoutSplit(0),
        List.of(List.of(A), List.of(B)));
    SpanMap.checkRefines(committed, merged); // partitions 0 and 1 are both on [a]
    PartitionAssignment moved = PartitionAssignment.of("range", 4, 0,
        ranges.withSplit(2, new byte[] {30}), List.of(List.of(A), List.of(A), List.of(B),
            List.of(A)));
    assertThatThrownBy(() -> SpanMap.checkRefines(committed, moved))
        .hasMessageContaining("split partition 3 overlaps committed partition 2")
        .hasMessageContaining("expected its [b]");
    PartitionAssignment good = PartitionAssignment.of("range", 4, 0,
        ranges.withSplit(2, new byte[] {30}), List.of(List.of(A), List.of(A), List.of(B),
            List.of(B)));
    SpanMap.checkRefines(committed, good);
    PartitionAssignment ring = PartitionAssignment.of("tokenring", 4, 0, TokenRanges.of(5),
        List.of(List.of(A)));
    assertThatThrownBy(() -> SpanMap.checkRefines(committed, ring))
        .hasMessageContaining("cuts another line");
    PartitionAssignment left = PartitionAssignment.of("tokenring", 5, 0, TokenRanges.of(0),
        List.of(List.of(A)));
    PartitionAssignment two = PartitionAssignment.of("tokenring", 4, 0, TokenRanges.of(0, 9),
        List.of(List.of(A), List.of(B)));
    assertThatThrownBy(() -> SpanMap.checkRefines(two, left))
        .hasMessageContaining("split partition 0 overlaps committed partition 1")
        .hasMessageContaining("expected its [b]");
    SpanMap.checkRefines(PartitionAssignment.of("tokenring", 4, 0, TokenRanges.of(0, 9),
        List.of(List.of(A), List.of(A))), left);
  }

  /** A ring of one token is one range, all of it: its parts run from past the token round. */
  @Test
  void aRingOfOneTokenSplitsAllRoundIt() {
    TokenRanges one = TokenRanges.of(7);
    Control c = control(one);
    TokenRanges three = TokenRanges.of(-5, 7, 9);
    List<SpanMap.CoreSplit> splits = SpanMap.splits(three, numberings(c));
    assertThat(splits).containsExactly(new SpanMap.CoreSplit(0, Bytes.ofLong(9)),
        new SpanMap.CoreSplit(1, Bytes.ofLong(-5)));
    split(c, splits, "one token");
    assertThat(SpanMap.of(one, numberings(c)).cores(0)).containsExactly(0, 1, 3);
    assertEqualSpans(three, c, new Random(7), "one token");
  }

  @Test
  void aCoreCoarserThanTheCoordinatorOrOfAnotherKindIsNamed() {
    Control c = control(KeyRanges.of(new byte[] {10}));
    assertThatThrownBy(() -> SpanMap.of(KeyRanges.of(new byte[] {10}, new byte[] {20}),
        numberings(c)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("coordinator partition 2 starts at key 0x14, inside the control's"
            + " partition 1");
    assertThatThrownBy(() -> SpanMap.of(TokenRanges.of(1, 2), numberings(c)))
        .hasMessageContaining("expected a token range");
    assertThatThrownBy(() -> SpanMap.splits(HashSlots.of(2), numberings(c)))
        .hasMessageContaining("coordinator partition 0");
  }

  @Test
  void hashSlotsMapOntoThemselves() {
    HashSlots slots = new HashSlots(4, KeyHash.MURMUR3_128);
    Control c = control(slots);
    SpanMap map = SpanMap.of(slots, numberings(c));
    for (int p = 0; p < 4; p++) {
      assertThat(map.cores(p)).containsExactly(p);
    }
    assertThat(SpanMap.splits(slots, numberings(c))).isEmpty();
    assertThatThrownBy(() -> SpanMap.of(new HashSlots(8, KeyHash.MURMUR3_128), numberings(c)))
        .hasMessageContaining("coordinator partition 0");
    assertThat(map.sumByIndex(java.util.Map.of(1, 2.0, 3, 4.0))).containsExactly(0, 2, 0, 4);
  }
  /**
   * {@link SpanMap#sizesByIndex}: a coordinator range of one core partition gets its keys and
   * median; one of several (the core finer after a merge) the sum of their keys and the median
   * of the largest, the lowest on a tie; a core partition without a size is named.
   */
  @Test
  void sizesSumKeysAndTakeTheMedianOfTheLargestCorePartition() {
    byte[] k10 = {10};
    byte[] k20 = {20};
    byte[] k30 = {30};
    Control c = control(KeyRanges.of(k10, k20, k30)); // core 0..3: [,10) [10,20) [20,30) [30,)
    SortedMap<Integer, Numbering> core = numberings(c);
    KeyRanges merged = KeyRanges.of(k10); // [,10) and [10,) over core 1, 2 and 3
    SpanMap map = SpanMap.of(merged, core);
    assertThat(map.cores(1)).containsExactly(1, 2, 3);
    java.util.Map<Integer, SpanMap.CoreSize> byCore = new TreeMap<>();
    byCore.put(0, new SpanMap.CoreSize(4, new byte[] {5}));
    byCore.put(1, new SpanMap.CoreSize(7, new byte[] {15}));
    byCore.put(2, new SpanMap.CoreSize(9, new byte[] {25}));
    byCore.put(3, new SpanMap.CoreSize(9, new byte[] {35}));
    List<SpanMap.CoreSize> sizes = map.sizesByIndex(byCore);
    assertThat(sizes).hasSize(2);
    assertThat(sizes.get(0).keys()).isEqualTo(4);
    assertThat(sizes.get(0).splitKey()).containsExactly(5);
    assertThat(sizes.get(1).keys()).as("summed").isEqualTo(25);
    assertThat(sizes.get(1).splitKey()).as("the largest's, the lowest of a tie")
        .containsExactly(25);
    byCore.put(0, new SpanMap.CoreSize(0, null));
    assertThat(map.sizesByIndex(byCore).get(0).splitKey()).as("an empty range").isNull();
    byCore.remove(3);
    assertThatThrownBy(() -> map.sizesByIndex(byCore))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no size of the control's partition 3, inside coordinator"
            + " partition 1");
  }
}
