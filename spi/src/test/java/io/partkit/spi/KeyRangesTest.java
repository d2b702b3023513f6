package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.hash.KeyHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyRangesTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Random split keys, 1..12 bytes, drawn from a small alphabet so that prefixes collide. */
  private static KeyRanges randomRanges(Random random, int count) {
    TreeSet<byte[]> set = new TreeSet<>(Arrays::compareUnsigned);
    while (set.size() < count) {
      set.add(randomKey(random, 1));
    }
    return KeyRanges.of(new ArrayList<>(set));
  }

  private static byte[] randomKey(Random random, int minLength) {
    byte[] k = new byte[minLength + random.nextInt(13 - minLength)];
    for (int i = 0; i < k.length; i++) {
      k[i] = (byte) (random.nextInt(4) * 0x55); // 0x00, 0x55, 0xaa, 0xff
    }
    return k;
  }

  /** The definition: the number of split keys at or below the key. */
  private static int bruteForce(KeyRanges r, byte[] key) {
    int p = 0;
    for (byte[] s : r.splits()) {
      if (Arrays.compareUnsigned(s, key) <= 0) {
        p++;
      }
    }
    return p;
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 2024})
  void keysRouteByTheirBytesAndTheLineAgreesAwayFromSplitPrefixes(long seed) {
    Random random = new Random(seed);
    KeyRanges r = randomRanges(random, 1 + random.nextInt(40));
    TreeSet<Long> splitPrefixes = new TreeSet<>();
    r.splits().forEach(s -> splitPrefixes.add(KeyHash.ORDERED_PREFIX.hash(s)));
    for (int i = 0; i < 5_000; i++) {
      byte[] key = randomKey(random, 0);
      int exact = bruteForce(r, key);
      assertThat(r.partitionOfKey(key)).as("seed %d, key %s", seed, KeyRanges.hex(key))
          .isEqualTo(exact);
      long projected = KeyHash.ORDERED_PREFIX.hash(key);
      if (!splitPrefixes.contains(projected)) {
        assertThat(r.partitionOf(projected)).as("seed %d, key %s", seed, KeyRanges.hex(key))
            .isEqualTo(exact);
      }
      long asLong = random.nextLong();
      byte[] longBytes = ByteBuffer.allocate(8).putLong(asLong).array();
      assertThat(r.partitionOfLongKey(asLong)).as("seed %d, long %d", seed, asLong)
          .isEqualTo(bruteForce(r, longBytes));
    }
    SchemesTest.assertRangesTileTheLine(r);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 2024})
  void theProjectionPreservesByteOrder(long seed) {
    Random random = new Random(seed);
    for (int i = 0; i < 10_000; i++) {
      byte[] a = randomKey(random, 0);
      byte[] c = randomKey(random, 0);
      if (Arrays.compareUnsigned(a, c) < 0) {
        assertThat(KeyHash.ORDERED_PREFIX.hash(a)).as("seed %d: %s < %s", seed,
            KeyRanges.hex(a), KeyRanges.hex(c)).isLessThanOrEqualTo(KeyHash.ORDERED_PREFIX.hash(c));
      }
    }
    assertThat(KeyHash.ORDERED_PREFIX.hash(new byte[0])).isEqualTo(Long.MIN_VALUE);
    assertThat(KeyHash.ORDERED_PREFIX.hash(new byte[] {(byte) 0x80})).isZero();
    assertThat(KeyHash.ORDERED_PREFIX.hashLong(-1)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void assignmentsRouteBytesStringsAndLongsByTheKeyItself() {
    KeyRanges r = KeyRanges.of(b("g"), b("user-5"), b("user-50"));
    PartitionAssignment a = PartitionAssignment.of("t", 1, 1, r, List.of(
        List.of(NodeId.of("a")), List.of(NodeId.of("b")), List.of(NodeId.of("c")),
        List.of(NodeId.of("d"))));
    assertThat(a.partitionOf("apple")).isZero();
    assertThat(a.partitionOf("user-4")).isEqualTo(1);
    assertThat(a.partitionOf("user-5")).isEqualTo(2);
    assertThat(a.partitionOf("user-4999")).isEqualTo(1); // byte order, not numeric order
    assertThat(a.partitionOf("user-5!")).isEqualTo(2); // '!' sorts before '0'
    assertThat(a.partitionOf("user-500")).isEqualTo(3);
    assertThat(a.primaryOf("user-500")).isEqualTo(NodeId.of("d"));
    assertThat(a.primaryOf(b("user-5!"))).isEqualTo(NodeId.of("c"));
    assertThat(a.partitionOf(5L)).isZero(); // 00 00 .. 05 sorts before "g"
    assertThat(a.primaryOf(-1L)).isEqualTo(NodeId.of("d")); // ff .. ff sorts last
    assertThat(a.primaryOfHash(KeyHash.ORDERED_PREFIX.hash(b("h")))).isEqualTo(NodeId.of("b"));
  }

  @Test
  void badSplitKeysAreRejectedNamingTheIndex() {
    assertThatThrownBy(() -> KeyRanges.of(b("a"), new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("split key 1 is empty");
    assertThatThrownBy(() -> KeyRanges.of(b("b"), b("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("split 0 = 0x62 >= split 1 = 0x61");
    assertThatThrownBy(() -> KeyRanges.of(b("a"), b("a")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly increasing");
    // unsigned: 0x80 sorts after 0x7f
    assertThat(KeyRanges.of(new byte[] {0x7f}, new byte[] {(byte) 0x80}).partitionCount())
        .isEqualTo(3);
    assertThatThrownBy(() -> KeyRanges.even(0)).hasMessageContaining("partition count");
  }

  @Test
  void equalityIsByTheSplitKeysContents() {
    KeyRanges one = KeyRanges.of(b("m"), b("t"));
    KeyRanges two = KeyRanges.of(List.of(b("m"), b("t")));
    assertThat(one).isEqualTo(two).hasSameHashCodeAs(two);
    assertThat(one).isNotEqualTo(KeyRanges.of(b("m"), b("u")));
    assertThat(one).isNotEqualTo(HashSlots.of(3));
    byte[] given = b("q");
    KeyRanges copied = KeyRanges.of(given);
    given[0] = 'z';
    assertThat(copied.split(0)).isEqualTo(b("q"));
    copied.split(0)[0] = 'z';
    assertThat(copied.split(0)).isEqualTo(b("q"));
  }

  @ParameterizedTest(name = "{0} ranges")
  @ValueSource(ints = {1, 2, 3, 7, 64, 1000})
  void evenRangesHaveEqualSharesOfTheLine(int count) {
    KeyRanges r = KeyRanges.even(count);
    assertThat(r.partitionCount()).isEqualTo(count);
    for (int p = 0; p < count; p++) {
      assertThat(r.share(p)).as("partition %d", p).isCloseTo(1.0 / count, Offset.offset(1e-12));
    }
    SchemesTest.assertRangesTileTheLine(r);
  }

  @Test
  void splitKeysSharingEightBytesLeaveAnEmptyPartitionOnTheLine() {
    KeyRanges r = KeyRanges.of(b("prefix-1a"), b("prefix-1b"), b("q"));
    assertThat(r.share(1)).isZero();
    assertThat(r.partitionOfKey(b("prefix-1ab"))).isEqualTo(1);
    assertThat(r.partitionOf(KeyHash.ORDERED_PREFIX.hash(b("prefix-1ab")))).isEqualTo(2);
    SchemesTest.assertRangesTileTheLine(r);
  }

  @Test
  void splittingAndMergingRenumberTheLaterPartitions() {
    KeyRanges r = KeyRanges.of(b("m"));
    KeyRanges split = r.withSplit(1, b("t"));
    assertThat(split).isEqualTo(KeyRanges.of(b("m"), b("t")));
    assertThat(split.withSplit(0, b("c"))).isEqualTo(KeyRanges.of(b("c"), b("m"), b("t")));
    assertThat(split.withoutSplit(0)).isEqualTo(KeyRanges.of(b("t")));
    assertThat(split.lowerBound(1)).isEqualTo(b("m"));
    assertThat(split.upperBound(1)).isEqualTo(b("t"));
    assertThat(split.upperBound(2)).isNull();
    assertThatThrownBy(() -> r.withSplit(1, b("m")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot split partition 1 [0x6d, end) at 0x6d");
    assertThatThrownBy(() -> r.withSplit(0, b("z")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly inside");
    assertThatThrownBy(() -> r.withoutSplit(1)).isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("to merge");
    List<byte[]> many = new ArrayList<>(Collections.nCopies(0, new byte[0]));
    assertThat(KeyRanges.of(many).partitionCount()).isEqualTo(1);
  }
}
