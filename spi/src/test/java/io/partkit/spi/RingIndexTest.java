package io.partkit.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ring index against the definition (a binary search for the first token at or after the
 * hash, wrapping to partition 0), on seeded rings of every shape the index treats differently:
 * empty, one-token and crowded buckets, ties below the split bits, the ends of the line.
 */
class RingIndexTest {

  /** The definition: the first token >= hash, partition 0 past the last token. */
  static int reference(long[] tokens, long hash) {
    int i = Arrays.binarySearch(tokens, hash);
    int p = i >= 0 ? i : -i - 1;
    return p == tokens.length ? 0 : p;
  }

  static Stream<Arguments> rings() {
    List<Arguments> cases = new ArrayList<>();
    for (long seed : new long[] {1, 2, 3, 42, 31337}) {
      for (String shape : new String[] {"random", "even", "clustered", "ends", "dense"}) {
        for (int n : new int[] {1, 2, 3, 17, 1000, 16_000}) {
          cases.add(Arguments.of(seed, shape, n));
        }
      }
      cases.add(Arguments.of(seed, "random", 300_000)); // past 2^18 tokens: capped index
    }
    return cases.stream();
  }

  /** Sorted distinct tokens of a shape; may return fewer than n (duplicates dropped). */
  static long[] tokens(String shape, int n, SplittableRandom random) {
    LongStream s;
    switch (shape) {
      case "random":
        s = random.longs(n);
        break;
      case "even": // the allocator's shape: near-equal spacing, jittered
        long step = Long.divideUnsigned(-1L, n);
        s = LongStream.range(0, n).map(i -> Long.MIN_VALUE + i * step
            + random.nextLong(Math.max(1, step >>> 4)));
        break;
      case "clustered": // most tokens in a few buckets, so crowded buckets and long gallops
        long[] centres = random.longs(3).toArray();
        s = LongStream.range(0, n).map(i -> i % 5 == 0 ? random.nextLong()
            : centres[(int) (i % 3)] + random.nextLong(1L << 20));
        break;
      case "ends": // tokens at and next to both ends of the line
        s = LongStream.concat(LongStream.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE,
            Long.MAX_VALUE - 1), random.longs(Math.max(0, n - 4)));
        break;
      case "dense": // consecutive tokens: every bucket with a token is crowded
        long start = random.nextLong();
        s = LongStream.range(0, n).map(i -> start + i);
        break;
      default:
        throw new IllegalArgumentException(shape);
    }
    long[] tokens = s.sorted().distinct().toArray();
    return tokens.length == 0 ? new long[] {0} : tokens;
  }

  /** Hashes that exercise every path: tokens, their neighbours, ties, bucket edges, the ends. */
  static long[] probes(long[] tokens, int bits, SplittableRandom random) {
    LongStream.Builder b = LongStream.builder();
    for (long edge : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1,
        Long.MAX_VALUE}) {
      b.add(edge);
    }
    int picks = Math.min(tokens.length, 20_000);
    for (int i = 0; i < picks; i++) {
      long t = tokens[tokens.length <= 20_000 ? i : random.nextInt(tokens.length)];
      b.add(t).add(t - 1).add(t + 1);
      // same bucket and same 14 split bits, different below: the ambiguous tie
      b.add(t ^ (random.nextLong() >>> (bits + 14)));
      // the first and last hash of the token's bucket
      long u = t ^ Long.MIN_VALUE;
      long bucketLow = (u >>> (64 - bits)) << (64 - bits);
      b.add(bucketLow ^ Long.MIN_VALUE).add((bucketLow | (-1L >>> bits)) ^ Long.MIN_VALUE);
    }
    for (int i = 0; i < 50_000; i++) {
      b.add(random.nextLong());
    }
    return b.build().toArray();
  }

  @ParameterizedTest(name = "seed {0}, {1}, {2} tokens")
  @MethodSource("rings")
  void indexAnswersLikeABinarySearch(long seed, String shape, int n) {
    SplittableRandom random = new SplittableRandom(seed * 31 + n);
    long[] tokens = tokens(shape, n, random);
    TokenRanges ring = TokenRanges.of(tokens);
    int bits = ring.index().bits();
    for (long hash : probes(tokens, bits, random)) {
      assertThat(ring.partitionOf(hash))
          .as("seed %d, %s ring of %d tokens, hash %d", seed, shape, tokens.length, hash)
          .isEqualTo(reference(tokens, hash));
    }
  }

  @ParameterizedTest(name = "seed {0}, {1}, {2} tokens")
  @MethodSource("rings")
  void valueIndexAnswersTheValueOfTheReferencePartition(long seed, String shape, int n) {
    SplittableRandom random = new SplittableRandom(seed * 131 + n);
    long[] tokens = tokens(shape, n, random);
    int[] values = random.ints(tokens.length, 0, 1000).toArray();
    RingIndex index = new RingIndex(tokens, values);
    for (long hash : probes(tokens, index.bits(), random)) {
      assertThat(index.valueOf(hash))
          .as("seed %d, %s ring of %d tokens, hash %d", seed, shape, tokens.length, hash)
          .isEqualTo(values[reference(tokens, hash)]);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void assignmentPrimariesFollowTheReferencePartition(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] tokens = tokens("random", 16_000, random);
    List<List<NodeId>> replicas = new ArrayList<>();
    for (int i = 0; i < tokens.length; i++) {
      replicas.add(List.of(NodeId.of("n" + random.nextInt(1000))));
    }
    PartitionAssignment a = PartitionAssignment.of("t", 1, 0, TokenRanges.of(tokens), replicas);
    PartitionAssignment restamped = a.withEpoch(2); // shares a's index
    for (long hash : probes(tokens, 16, random)) {
      NodeId expected = replicas.get(reference(tokens, hash)).get(0);
      assertThat(a.primaryOfHash(hash)).as("seed %d, hash %d", seed, hash).isEqualTo(expected);
      assertThat(restamped.primaryOfHash(hash)).as("seed %d, hash %d", seed, hash)
          .isEqualTo(expected);
    }
  }

  static LongStream seeds() {
    return LongStream.of(5, 6, 7);
  }

  @Test
  void gallopingFindsTheFirstTokenAtOrAfterFromAnyEarlierStart() {
    long[] tokens = LongStream.range(0, 100).map(i -> i * 10).toArray();
    for (int start = 0; start < 100; start++) {
      for (long hash = start * 10L - 5; hash < 1_010; hash += 3) {
        int expected = Arrays.binarySearch(tokens, hash);
        expected = expected >= 0 ? expected : -expected - 1;
        assertThat(RingIndex.firstAtOrAfter(tokens, hash, start))
            .as("start %d, hash %d", start, hash).isEqualTo(expected);
      }
    }
  }

  @Test
  void fourToEightBucketsPerTokenUpToTheCap() {
    assertThat(RingIndex.bitsFor(1)).isEqualTo(2);
    assertThat(1 << RingIndex.bitsFor(16_000)).isEqualTo(1 << 16); // 512 KiB of entries
    assertThat(1 << RingIndex.bitsFor(16_384)).isEqualTo(1 << 16);
    assertThat(1 << RingIndex.bitsFor(16_385)).isEqualTo(1 << 17);
    assertThat(RingIndex.bitsFor(256_000)).isEqualTo(RingIndex.MAX_BITS); // 8 MiB
    assertThat(RingIndex.bitsFor(1 << 24)).isEqualTo(RingIndex.MAX_BITS);
  }

  @Test
  void randomRingsLeaveFewCrowdedBuckets() {
    // Four buckets per token: a Poisson(1/4) bucket holds two or more tokens with probability
    // 1 - e^(-1/4) (1 + 1/4) = 2.6%; these few buckets are the only ones a lookup searches.
    long[] tokens = new SplittableRandom(8).longs(16_000).sorted().distinct().toArray();
    RingIndex index = new RingIndex(tokens, null);
    double crowded = (double) index.crowdedBuckets() / index.bucketCount();
    assertThat(crowded).isBetween(0.015, 0.035);
  }
}
