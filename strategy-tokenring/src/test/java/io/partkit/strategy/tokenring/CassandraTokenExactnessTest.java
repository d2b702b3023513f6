package io.partkit.strategy.tokenring;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.hash.KeyHash;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KeyHash#CASSANDRA_MURMUR3} against the real thing: Cassandra's
 * {@code Murmur3Partitioner.getToken} from {@code cassandra-all} (test scope), on the published
 * golden value and on seeded keys of every length 0..64, with bytes over the whole 0x00..0xff
 * range (the sign-extension quirk is in tail bytes >= 0x80).
 */
class CassandraTokenExactnessTest {

  private static long cassandraToken(byte[] key, int offset, int length) {
    // a buffer whose position is not 0 exercises Cassandra's offset arithmetic too
    ByteBuffer buffer = ByteBuffer.wrap(key, offset, length).slice();
    return Murmur3Partitioner.instance.getToken(buffer).token;
  }

  private static long cassandraToken(byte[] key) {
    return cassandraToken(key, 0, key.length);
  }

  static LongStream seeds() {
    return LongStream.of(1, 7, 42, 2024);
  }

  @Test
  void goldenValueOfTheBigEndianIntOne() {
    byte[] one = ByteBuffer.allocate(4).putInt(1).array();
    assertThat(cassandraToken(one)).isEqualTo(-4069959284402364209L);
    assertThat(KeyHash.CASSANDRA_MURMUR3.hash(one)).isEqualTo(-4069959284402364209L);
  }

  @Test
  void emptyKeyIsTheMinimumTokenInBoth() {
    assertThat(cassandraToken(new byte[0])).isEqualTo(Long.MIN_VALUE);
    assertThat(KeyHash.CASSANDRA_MURMUR3.hash(new byte[0])).isEqualTo(Long.MIN_VALUE);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyLengthUpToSixtyFourMatchesCassandra(long seed) {
    Random random = new Random(seed);
    int checked = 0;
    int differingFromCanonical = 0;
    for (int length = 0; length <= 64; length++) {
      for (int i = 0; i < 40; i++) {
        byte[] key = new byte[length];
        random.nextBytes(key);
        if (i % 4 == 0) {
          // all high bytes: the sign-extension path in every tail position
          for (int b = 0; b < length; b++) {
            key[b] |= (byte) 0x80;
          }
        }
        long expected = cassandraToken(key);
        assertThat(KeyHash.CASSANDRA_MURMUR3.hash(key))
            .as("seed %d, length %d, key #%d", seed, length, i).isEqualTo(expected);
        if (expected != KeyHash.MURMUR3_128.hash(key)) {
          differingFromCanonical++;
        }
        checked++;
      }
    }
    assertThat(checked).isEqualTo(65 * 40);
    // the quirk is real: many of these keys hash differently from canonical Murmur3
    assertThat(differingFromCanonical).as("seed %d", seed).isGreaterThan(checked / 4);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void keysInsideLargerArraysMatchCassandra(long seed) {
    Random random = new Random(seed);
    for (int i = 0; i < 1_000; i++) {
      byte[] array = new byte[80];
      random.nextBytes(array);
      int offset = random.nextInt(16);
      int length = random.nextInt(65);
      assertThat(KeyHash.CASSANDRA_MURMUR3.hash(array, offset, length))
          .as("seed %d, offset %d, length %d", seed, offset, length)
          .isEqualTo(cassandraToken(array, offset, length));
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void longKeysMatchCassandraOnTheirBigEndianBytes(long seed) {
    Random random = new Random(seed);
    long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x80, 0xff, 0x8080808080808080L};
    for (long key : edges) {
      assertThat(KeyHash.CASSANDRA_MURMUR3.hashLong(key)).as("edge %d", key)
          .isEqualTo(cassandraToken(ByteBuffer.allocate(8).putLong(key).array()));
    }
    for (int i = 0; i < 2_000; i++) {
      long key = random.nextLong();
      assertThat(KeyHash.CASSANDRA_MURMUR3.hashLong(key)).as("seed %d, key %d", seed, key)
          .isEqualTo(cassandraToken(ByteBuffer.allocate(8).putLong(key).array()));
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void stringKeysMatchCassandraOnTheirUtf8Bytes(long seed) {
    Random random = new Random(seed);
    for (int i = 0; i < 1_000; i++) {
      StringBuilder sb = new StringBuilder();
      int length = random.nextInt(30);
      for (int c = 0; c < length; c++) {
        // ASCII, Latin-1 and CJK: one-, two- and three-byte UTF-8 sequences
        int kind = random.nextInt(3);
        sb.append((char) (kind == 0 ? 32 + random.nextInt(95)
            : kind == 1 ? 0xa0 + random.nextInt(0x60) : 0x4e00 + random.nextInt(0x5000)));
      }
      String key = sb.toString();
      assertThat(KeyHash.CASSANDRA_MURMUR3.hash(key)).as("seed %d, key '%s'", seed, key)
          .isEqualTo(cassandraToken(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }
}
