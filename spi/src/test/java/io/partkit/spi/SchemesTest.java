package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SchemesTest {

  /** Ranges must tile the whole hash line in order, each reporting the partition it maps to. */
  static void assertRangesTileTheLine(PartitionScheme scheme) {
    List<long[]> ranges = new ArrayList<>();
    scheme.forEachRange((first, last, p) -> ranges.add(new long[] {first, last, p}));
    assertThat(ranges.get(0)[0]).isEqualTo(Long.MIN_VALUE);
    assertThat(ranges.get(ranges.size() - 1)[1]).isEqualTo(Long.MAX_VALUE);
    double total = 0;
    for (int i = 0; i < ranges.size(); i++) {
      long[] r = ranges.get(i);
      assertThat(r[0]).isLessThanOrEqualTo(r[1]);
      if (i > 0) {
        assertThat(r[0]).isEqualTo(ranges.get(i - 1)[1] + 1);
      }
      assertThat(scheme.partitionOf(r[0])).as("first of range %d", i).isEqualTo((int) r[2]);
      assertThat(scheme.partitionOf(r[1])).as("last of range %d", i).isEqualTo((int) r[2]);
    }
    for (int p = 0; p < scheme.partitionCount(); p++) {
      total += scheme.share(p);
    }
    assertThat(total).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
  }

  @ParameterizedTest(name = "{0} slots")
  @ValueSource(ints = {1, 2, 3, 7, 271, 1024, 4096})
  void hashSlotsTileTheLineEvenly(int count) {
    HashSlots slots = HashSlots.of(count);
    assertRangesTileTheLine(slots);
    for (int p = 0; p < count; p++) {
      assertThat(slots.share(p)).isCloseTo(1.0 / count,
          org.assertj.core.data.Offset.offset(1e-9));
    }
  }

  @Test
  void hashSlotsAreMonotoneAndInRange() {
    HashSlots slots = HashSlots.of(271);
    Random random = new Random(9);
    long[] hashes = random.longs(10_000).sorted().toArray();
    int previous = 0;
    for (long h : hashes) {
      int p = slots.partitionOf(h);
      assertThat(p).isBetween(previous, 270);
      previous = p;
    }
    assertThat(slots.partitionOf(Long.MIN_VALUE)).isZero();
    assertThat(slots.partitionOf(Long.MAX_VALUE)).isEqualTo(270);
  }

  @Test
  void hashSlotCountIsValidated() {
    assertThatThrownBy(() -> HashSlots.of(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition count must be in 1..").hasMessageContaining(": 0");
    assertThatThrownBy(() -> HashSlots.of(HashSlots.MAX_COUNT + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void tokenRangesFollowCassandrasConvention() {
    TokenRanges ring = TokenRanges.of(-100, 0, 100);
    assertThat(ring.partitionOf(Long.MIN_VALUE)).isZero();
    assertThat(ring.partitionOf(-100)).isZero(); // a token belongs to the range it ends
    assertThat(ring.partitionOf(-99)).isEqualTo(1);
    assertThat(ring.partitionOf(0)).isEqualTo(1);
    assertThat(ring.partitionOf(1)).isEqualTo(2);
    assertThat(ring.partitionOf(100)).isEqualTo(2);
    assertThat(ring.partitionOf(101)).isZero(); // wraps
    assertThat(ring.partitionOf(Long.MAX_VALUE)).isZero();
    assertThat(ring.share(1)).isEqualTo(100 / 0x1p64);
    assertThat(ring.keyHash()).isEqualTo(KeyHash.CASSANDRA_MURMUR3);
    assertRangesTileTheLine(ring);
  }

  @Test
  void randomRingsTileTheLine() {
    Random random = new Random(4);
    for (int n : new int[] {1, 2, 16, 1000}) {
      long[] tokens = random.longs(n).sorted().distinct().toArray();
      TokenRanges ring = TokenRanges.of(tokens);
      assertRangesTileTheLine(ring);
      for (int i = 0; i < 1000; i++) {
        long h = random.nextLong();
        int p = ring.partitionOf(h);
        int expected = 0;
        while (expected < tokens.length && tokens[expected] < h) {
          expected++;
        }
        assertThat(p).isEqualTo(expected == tokens.length ? 0 : expected);
      }
    }
    assertRangesTileTheLine(TokenRanges.of(Long.MIN_VALUE, Long.MAX_VALUE));
  }

  @Test
  void crowdedBucketsStillFindTheFirstTokenAtOrAfterTheHash() {
    // 1000 consecutive tokens share one index bucket; probes around and between them
    long[] tokens = java.util.stream.LongStream.range(0, 1000).map(i -> 5_000 + 3 * i).toArray();
    TokenRanges ring = TokenRanges.of(tokens);
    for (long h = 4_990; h < 8_010; h++) {
      int expected = h <= 5_000 ? 0 : (int) ((h - 5_000 + 2) / 3);
      assertThat(ring.partitionOf(h)).as("hash %d", h).isEqualTo(expected >= 1000 ? 0 : expected);
    }
    assertRangesTileTheLine(ring);
  }

  @Test
  void ringAssignmentsAnswerLikeTheirTableThroughTheBucketShortcut() {
    Random random = new Random(12);
    for (int n : new int[] {1, 3, 100, 5000}) {
      long[] tokens = random.longs(n).sorted().distinct().toArray();
      List<List<NodeId>> replicas = new ArrayList<>();
      for (int i = 0; i < tokens.length; i++) {
        replicas.add(List.of(NodeId.of("n" + random.nextInt(7))));
      }
      PartitionAssignment a = PartitionAssignment.of("t", 1, 0, TokenRanges.of(tokens), replicas);
      for (int i = 0; i < 20_000; i++) {
        long key = random.nextLong();
        long hash = i % 2 == 0 ? KeyHash.CASSANDRA_MURMUR3.hashLong(key)
            : tokens[random.nextInt(tokens.length)] + random.nextInt(3) - 1; // at boundaries
        assertThat(a.primaryOfHash(hash)).as("%d tokens, hash %d", tokens.length, hash)
            .isEqualTo(a.primary(a.partitionOfHash(hash)));
      }
      assertThat(a.primaryOf(42L)).isEqualTo(a.primary(a.partitionOf(42L)));
    }
  }

  @Test
  void tokensMustBeStrictlyIncreasing() {
    assertThatThrownBy(() -> TokenRanges.of(1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token[0]=1 >= token[1]=1");
    assertThatThrownBy(TokenRanges::of).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one token");
  }
}
