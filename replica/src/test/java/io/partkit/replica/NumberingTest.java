package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.KeyRanges;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Key spans and token spans: first tables route as partkit's schemes, splits divide exactly. */
class NumberingTest {

  private static Bytes key(Random random) {
    byte[] b = new byte[random.nextInt(12)];
    random.nextBytes(b);
    return Bytes.of(b);
  }

  private static KeyRanges keyRanges(Random random, int partitions) {
    TreeSet<Bytes> splits = new TreeSet<>();
    while (splits.size() < partitions - 1) {
      Bytes k = key(random);
      if (k.length() > 0) {
        splits.add(k);
      }
    }
    return KeyRanges.of(splits.stream().map(Bytes::toArray).toList());
  }

  private static TokenRanges tokenRing(Random random, int partitions) {
    TreeSet<Long> tokens = new TreeSet<>();
    while (tokens.size() < partitions) {
      tokens.add(random.nextLong());
    }
    return TokenRanges.of(tokens.stream().mapToLong(Long::longValue).toArray());
  }

  /** The partitions of {@code table} holding {@code key}: exactly one, or the test fails. */
  private static int holder(TreeMap<Integer, Numbering> table, Bytes key, String what) {
    List<Integer> holders = table.entrySet().stream()
        .filter(e -> e.getValue().holds(e.getKey(), key)).map(e -> e.getKey()).toList();
    assertThat(holders).as("%s: partitions holding %s", what, key).hasSize(1);
    return holders.get(0);
  }

  private static TreeMap<Integer, Numbering> firstTable(PartitionScheme scheme) {
    TreeMap<Integer, Numbering> table = new TreeMap<>();
    for (int p = 0; p < scheme.partitionCount(); p++) {
      table.put(p, Numbering.of(scheme, p));
    }
    return table;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5, 64})
  void aFirstTableRoutesEveryKeyAsItsSchemeDoes(int partitions) {
    long seed = 31L * partitions;
    Random random = new Random(seed);
    KeyRanges ranges = keyRanges(random, partitions);
    TokenRanges ring = tokenRing(random, partitions);
    TreeMap<Integer, Numbering> byKeys = firstTable(ranges);
    TreeMap<Integer, Numbering> byTokens = firstTable(ring);
    for (int i = 0; i < 2_000; i++) {
      Bytes key = key(random);
      String what = "seed " + seed;
      assertThat(holder(byKeys, key, what)).as("%s, key %s", what, key)
          .isEqualTo(ranges.partitionOfKey(key.toArray()));
      assertThat(holder(byTokens, key, what)).as("%s, key %s", what, key)
          .isEqualTo(ring.partitionOf(KeyHash.CASSANDRA_MURMUR3.hash(key.toArray())));
    }
    // the split keys themselves start their partitions, as the scheme routes them
    for (int p = 1; p < partitions; p++) {
      Bytes first = Bytes.of(ranges.splits().get(p - 1));
      assertThat(holder(byKeys, first, "split key")).isEqualTo(p);
    }
  }

  /**
   * Random splits of random partitions, at random keys inside them or at their midpoints: every
   * key stays in exactly one partition, a split moves keys only from the partition to its new
   * one, and an ancestor's numbering split at the cut its descendant names is the descendant's.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void splitsKeepEveryKeyInOnePartitionAndMoveOnlyToTheNewOne(long seed) {
    Random random = new Random(seed);
    PartitionScheme scheme = seed % 2 == 0 ? keyRanges(random, 3) : tokenRing(random, 3);
    TreeMap<Integer, Numbering> table = firstTable(scheme);
    List<Bytes> keys = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      keys.add(key(random));
    }
    for (int step = 0; step < 40; step++) {
      int p = new ArrayList<>(table.keySet()).get(random.nextInt(table.size()));
      Numbering n = table.get(p);
      Optional<Bytes> cut = random.nextBoolean() ? n.midpoint(p) : inside(n, p, keys, random);
      if (cut.isEmpty()) {
        continue;
      }
      TreeMap<Bytes, Integer> before = new TreeMap<>();
      for (Bytes k : keys) {
        before.put(k, holder(table, k, "seed " + seed + " before step " + step));
      }
      Numbering split = n.split(p, cut.get());
      int child = (int) (p + n.modulus());
      assertThat(table).as("seed %d", seed).doesNotContainKey(child);
      table.put(p, split);
      table.put(child, split);
      assertThat(split.upTo(n.modulus())).isEqualTo(n);
      assertThat(split.cut(n.modulus())).isEqualTo(cut.get());
      for (Bytes k : keys) {
        int now = holder(table, k, "seed " + seed + " after step " + step);
        int was = before.get(k);
        assertThat(now == was || was == p && now == child)
            .as("seed %d step %d: key %s moved from %d to %d splitting %d", seed, step, k, was,
                now, p).isTrue();
      }
    }
    assertThat(table.size()).as("seed %d: splits made", seed).isGreaterThan(10);
  }

  /** A key of {@code keys} strictly inside partition {@code p}, for key spans only. */
  private static Optional<Bytes> inside(Numbering n, int p, List<Bytes> keys, Random random) {
    if (!(n instanceof Numbering.KeySpans)) {
      return n.midpoint(p);
    }
    List<Bytes> held = keys.stream().filter(k -> n.holds(p, k)).distinct().sorted().toList();
    return held.size() < 2 ? Optional.empty()
        : Optional.of(held.get(1 + random.nextInt(held.size() - 1)));
  }

  @Test
  void aCutOutsideItsPartitionOrWhereNoneIsTakenIsRefusedWithTheRange() {
    Numbering keys = Numbering.of(KeyRanges.of(new byte[] {5}), 1); // [05, end)
    assertThatThrownBy(() -> keys.split(1, Bytes.of(new byte[] {5})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot split partition 1 [05, end) at 05")
        .hasMessageContaining("strictly inside");
    assertThatThrownBy(() -> keys.split(1, Bytes.of(new byte[] {4})))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> keys.split(1, null)).isInstanceOf(IllegalArgumentException.class);
    assertThat(keys.split(1, Bytes.of(new byte[] {5, 0})).holds(3, Bytes.of(new byte[] {5, 0})))
        .isTrue();
    Numbering ring = Numbering.of(TokenRanges.of(-10, 10), 1); // (-10, 10]
    assertThatThrownBy(() -> ring.split(1, Bytes.ofLong(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(-10, 10]");
    assertThatThrownBy(() -> ring.split(1, Bytes.ofLong(-10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ring.split(1, Bytes.of(new byte[] {1})))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eight bytes");
    assertThatThrownBy(() -> new Numbering.Hashed(2, 2).split(0, Bytes.ofLong(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("take no cut");
    assertThatThrownBy(() -> Numbering.NONE.split(0, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theWrappingRangeOfARingSplitsOnEitherSideOfTheWrap() {
    Numbering wrap = Numbering.of(TokenRanges.of(-10, 10), 0); // (10, max] and [min, -10]
    assertThat(wrap.describe(0)).isEqualTo("(10, -10]");
    long up = Long.MAX_VALUE / 2;
    long down = Long.MIN_VALUE / 2;
    Numbering high = wrap.split(0, Bytes.ofLong(up)); // 0: (10, up], 2: (up, -10]
    Numbering low = wrap.split(0, Bytes.ofLong(down)); // 0: (10, down], 2: (down, -10]
    assertThat(high.describe(2)).isEqualTo("(" + up + ", -10]");
    assertThat(low.describe(2)).isEqualTo("(" + down + ", -10]");
    Random random = new Random(17);
    int[] seen = new int[4];
    for (int i = 0; i < 2_000; i++) {
      Bytes key = Bytes.ofLong(random.nextLong());
      long t = KeyHash.CASSANDRA_MURMUR3.hash(key.toArray());
      boolean wrapped = t > 10 || t <= -10;
      assertThat(wrap.holds(0, key)).isEqualTo(wrapped);
      if (!wrapped) {
        continue;
      }
      boolean highChild = t > up || t <= -10;
      boolean lowChild = t > down && t <= -10;
      assertThat(high.holds(2, key)).as("token %d", t).isEqualTo(highChild);
      assertThat(high.holds(0, key)).as("token %d", t).isEqualTo(!highChild);
      assertThat(low.holds(2, key)).as("token %d", t).isEqualTo(lowChild);
      assertThat(low.holds(0, key)).as("token %d", t).isEqualTo(!lowChild);
      seen[(highChild ? 2 : 0) + (lowChild ? 1 : 0)]++;
    }
    assertThat(seen[0]).as("keys that stay in both").isPositive();
    assertThat(seen[2]).as("keys split off above the wrap only").isPositive();
    assertThat(seen[3]).as("keys split off in both").isPositive();
    assertThat(Numbering.of(TokenRanges.of(7), 0).midpoint(0)).as("the whole ring").isPresent();
    assertThat(Numbering.of(TokenRanges.of(7, 8), 1).midpoint(1)).as("one token").isEmpty();
  }

  /**
   * A merge of the two halves of a split holds every key either half held, in the numbering of
   * their parent one generation on, which is newer than both halves and than the parent.
   */
  @ParameterizedTest
  @ValueSource(strings = {"hashed", "keys", "tokens"})
  void aMergeHoldsExactlyTheKeysOfBothHalvesAndIsNewerThanEither(String kind) {
    long seed = kind.hashCode();
    Random random = new Random(seed);
    Numbering first = switch (kind) {
      case "keys" -> Numbering.of(keyRanges(random, 3), 1);
      case "tokens" -> Numbering.of(tokenRing(random, 3), 1);
      default -> new Numbering.Hashed(3, 3);
    };
    Numbering halves = first instanceof Numbering.Hashed ? first.split(1, null)
        : first.split(1, first.midpoint(1).orElseThrow());
    Numbering merged = halves.merge(4, 1);
    assertThat(merged).as("seed %d", seed).isEqualTo(halves.merge(1, 1));
    assertThat(merged.modulus()).isEqualTo(3);
    assertThat(merged.generation()).isEqualTo(1);
    assertThat(merged.withGeneration(0)).isEqualTo(first);
    assertThat(merged.newerThan(halves)).isTrue();
    assertThat(merged.newerThan(first)).isTrue();
    assertThat(halves.newerThan(merged)).isFalse();
    assertThat(merged.split(1, first instanceof Numbering.Hashed ? null
        : first.midpoint(1).orElseThrow()).newerThan(merged)).isTrue();
    for (int i = 0; i < 2_000; i++) {
      Bytes key = key(random);
      assertThat(merged.holds(1, key)).as("seed %d key %s", seed, key)
          .isEqualTo(halves.holds(1, key) || halves.holds(4, key));
    }
  }

  @Test
  void aMergeOfAFirstTablePartitionOrAtAnOlderGenerationIsRefused() {
    Numbering first = new Numbering.Hashed(2, 2);
    assertThatThrownBy(() -> first.merge(0, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("first table's 2");
    Numbering merged = first.split(0, null).merge(0, 3);
    assertThatThrownBy(() -> merged.split(0, null).merge(0, 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must pass");
    assertThatThrownBy(() -> new Numbering.Hashed(2, 2, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(merged.describe(0)).endsWith("(generation 3)");
    assertThat(first.describe(0)).doesNotContain("generation");
  }
}
