package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The core's key numbering against partkit's hash slots, which it must match. */
class PartitioningTest {

  private static Bytes key(Random random) {
    if (random.nextBoolean()) {
      return Bytes.ofLong(random.nextLong());
    }
    byte[] b = new byte[random.nextInt(40)];
    random.nextBytes(b);
    return Bytes.of(b);
  }

  private static int partition(int base, long modulus, Bytes key) {
    int[] holders = IntStream.range(0, (int) modulus)
        .filter(id -> new Numbering.Hashed(base, modulus).holds(id, key)).toArray();
    assertThat(holders).as("partitions at modulus %d holding %s", modulus, key).hasSize(1);
    return holders[0];
  }

  /** A first table numbers every key as the fixed strategy's HashSlots of its size. */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 7, 16, 271, 1024})
  void aFirstTableIsTheHashSlotsOfItsSize(int base) {
    long seed = 11L * base;
    Random random = new Random(seed);
    HashSlots slots = HashSlots.of(base);
    for (int i = 0; i < 2_000; i++) {
      Bytes key = key(random);
      assertThat(partition(base, base, key)).as("seed %d, key %s", seed, key)
          .isEqualTo(slots.partitionOfKey(key.toArray()));
    }
  }

  /**
   * Splitting partition {@code p} at modulus {@code m} gives each of its keys to {@code p} or to
   * {@code p + m}, never elsewhere, and the two halves are the lower and upper half of {@code p}'s
   * range of the hash line: with a base of a power of two they are slots of a HashSlots twice as
   * large.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 3, 4, 12})
  void aSplitCutsAPartitionsRangeInHalves(int base) {
    long seed = 97L * base;
    Random random = new Random(seed);
    for (int i = 0; i < 2_000; i++) {
      Bytes key = key(random);
      int before = partition(base, base, key);
      for (long m = base; m <= 8L * base; m *= 2) {
        int after = partition(base, 2 * m, key);
        assertThat(after == before || after == before + m).as("seed %d, key %s, modulus %d",
            seed, key, m).isTrue();
        before = after;
      }
      if (Integer.bitCount(base) == 1) {
        // at modulus 16 * base a power-of-two base is HashSlots(16 * base) with the bits below
        // the slot read in reverse
        int fine = HashSlots.of(16 * base).partitionOfKey(key.toArray());
        int slot = fine / 16;
        int below = Integer.reverse(fine % 16) >>> 28;
        assertThat(partition(base, 16L * base, key)).as("seed %d, key %s", seed, key)
            .isEqualTo(slot + base * below);
      }
    }
  }

  @Test
  void anEightByteKeyIsTheLongItHolds() {
    Random random = new Random(5);
    for (int i = 0; i < 1_000; i++) {
      long k = random.nextLong();
      byte[] bytes = Bytes.ofLong(k).toArray();
      assertThat(Partitioning.hash(Bytes.of(bytes))).isEqualTo(Partitioning.hash(Bytes.ofLong(k)))
          .isEqualTo(io.partkit.spi.hash.KeyHash.MURMUR3_128.hash(bytes));
    }
  }

  @Test
  void aModulusThatIsNotTheBaseDoubledIsRefused() {
    assertThat(Numbering.NONE.holds(5, Bytes.ofLong(1))).isTrue();
    assertThatThrownBy(() -> new Numbering.Hashed(3, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("modulus of 8 is not a table of base 3");
    assertThatThrownBy(() -> new Numbering.Hashed(0, 8))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
