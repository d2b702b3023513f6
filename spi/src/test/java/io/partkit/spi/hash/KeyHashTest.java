package io.partkit.spi.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KeyHashTest {

  static LongStream seeds() {
    return LongStream.of(1, 7, 99, 31337);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void murmur3EqualsGuavasOnRandomKeysOfEveryLength(long seed) {
    Random random = new Random(seed);
    for (int length = 0; length <= 80; length++) {
      for (int i = 0; i < 25; i++) {
        byte[] key = new byte[length];
        random.nextBytes(key);
        long expected = Hashing.murmur3_128().hashBytes(key).asLong();
        assertThat(KeyHash.MURMUR3_128.hash(key)).as("seed %d, length %d", seed, length)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void hashingASliceEqualsHashingACopy() {
    Random random = new Random(3);
    byte[] buffer = new byte[100];
    random.nextBytes(buffer);
    for (int off = 0; off < 20; off++) {
      for (int len = 0; len < 60; len++) {
        byte[] copy = java.util.Arrays.copyOfRange(buffer, off, off + len);
        for (KeyHash h : KeyHash.values()) {
          assertThat(h.hash(buffer, off, len)).as("%s off %d len %d", h, off, len)
              .isEqualTo(h.hash(copy));
        }
      }
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void longKeysHashLikeTheirBigEndianBytes(long seed) {
    Random random = new Random(seed);
    for (int i = 0; i < 5_000; i++) {
      long v = i < 256 ? (long) i - 128 : random.nextLong();
      byte[] bytes = ByteBuffer.allocate(8).putLong(v).array();
      for (KeyHash h : KeyHash.values()) {
        assertThat(h.hashLong(v)).as("seed %d, %s of %d", seed, h, v).isEqualTo(h.hash(bytes));
      }
    }
  }

  @Test
  void stringKeysHashTheirUtf8Bytes() {
    for (String s : new String[] {"", "key", "user-42", "grüße", "日本語", "\uD83D\uDE00"}) {
      for (KeyHash h : KeyHash.values()) {
        assertThat(h.hash(s)).isEqualTo(h.hash(s.getBytes(StandardCharsets.UTF_8)));
      }
    }
  }

  @Test
  void boxedKeysHashLikeTheirEncodings() {
    for (KeyHash h : KeyHash.values()) {
      assertThat(h.hashObject("user-42")).isEqualTo(h.hash("user-42"));
      assertThat(h.hashObject(7)).isEqualTo(h.hashLong(7)).isEqualTo(h.hashObject(7L));
      assertThat(h.hashObject(new byte[] {1, 2})).isEqualTo(h.hash(new byte[] {1, 2}));
      assertThatThrownBy(() -> h.hashObject(1.5))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("got java.lang.Double");
    }
  }

  @Test
  void cassandraTokenOfTheIntOneIsTheKnownValue() {
    byte[] one = ByteBuffer.allocate(4).putInt(1).array();
    assertThat(KeyHash.CASSANDRA_MURMUR3.hash(one)).isEqualTo(-4069959284402364209L);
  }

  @Test
  void cassandraEmptyKeyIsTheMinimumToken() {
    assertThat(KeyHash.CASSANDRA_MURMUR3.hash(new byte[0])).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void cassandraAgreesWithCanonicalUnlessATailByteIsHigh() {
    Random random = new Random(5);
    int differing = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] key = new byte[1 + random.nextInt(40)];
      random.nextBytes(key);
      boolean highTail = false;
      for (int j = key.length - key.length % 16; j < key.length; j++) {
        highTail |= key[j] < 0;
      }
      long canonical = KeyHash.MURMUR3_128.hash(key);
      long cassandra = KeyHash.CASSANDRA_MURMUR3.hash(key);
      if (!highTail) {
        assertThat(cassandra).as("key %s", java.util.HexFormat.of().formatHex(key))
            .isEqualTo(canonical == Long.MIN_VALUE ? Long.MAX_VALUE : canonical);
      } else if (cassandra != canonical) {
        differing++;
      }
    }
    // The quirk is real: keys with a high tail byte almost always hash differently.
    assertThat(differing).isGreaterThan(10_000);
  }

  @Test
  void rangesOutsideTheArrayAreRejected() {
    assertThatThrownBy(() -> KeyHash.MURMUR3_128.hash(new byte[4], 2, 3))
        .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("length 4");
    assertThatThrownBy(() -> KeyHash.CASSANDRA_MURMUR3.hash(new byte[4], -1, 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
