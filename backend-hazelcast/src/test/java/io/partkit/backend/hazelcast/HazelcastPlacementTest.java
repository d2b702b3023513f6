package io.partkit.backend.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.Hashing;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.internal.util.HashUtil;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link HazelcastPlacement} against Hazelcast 5.7's own serializer and hash, no member needed. */
class HazelcastPlacementTest {

  private static InternalSerializationService serialization;

  @BeforeAll
  static void startSerialization() {
    serialization = new DefaultSerializationServiceBuilder().build();
  }

  @AfterAll
  static void stopSerialization() {
    serialization.dispose();
  }

  @Test
  void goldenPartitionsFromTheDesignBrief() {
    // DESIGN.md: 271 partitions, "key" -> 80, "user-42" -> 11, Integer 1 -> 31, Long 1 -> 110
    HazelcastPlacement placement = HazelcastPlacement.defaults();
    assertThat(placement.partition("key")).isEqualTo(80);
    assertThat(placement.partition("user-42")).isEqualTo(11);
    assertThat(placement.partition(1)).isEqualTo(31);
    assertThat(placement.partition(1L)).isEqualTo(110);
  }

  static Stream<Arguments> seeds() {
    return Stream.of(Arguments.of(21L, 271), Arguments.of(22L, 271), Arguments.of(23L, 1024),
        Arguments.of(24L, 7), Arguments.of(25L, 1));
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void payloadHashAndPartitionMatchHazelcastsSerializer(long seed, int partitionCount) {
    Random random = new Random(seed);
    HazelcastPlacement placement = HazelcastPlacement.of(partitionCount);
    for (int i = 0; i < 2000; i++) {
      for (Object key : keys(random)) {
        Data data = serialization.toData(key);
        byte[] serialized = data.toByteArray();
        byte[] payload = Arrays.copyOfRange(serialized, 8, serialized.length);
        String what = String.format("seed %d, key %s (%s)", seed, describe(key),
            key.getClass().getSimpleName());
        assertThat(HazelcastPlacement.payload(key)).as(what).isEqualTo(payload);
        assertThat(HazelcastPlacement.hash(key)).as(what).isEqualTo(data.getPartitionHash());
        assertThat(placement.partition(key)).as(what)
            .isEqualTo(HashUtil.hashToIndex(data.getPartitionHash(), partitionCount));
      }
    }
  }

  @Test
  void murmurMatchesGuavaAndHazelcastOnEveryLengthAndTailByte() {
    Random random = new Random(31);
    for (int length = 0; length < 64; length++) {
      for (int round = 0; round < 50; round++) {
        byte[] bytes = new byte[length + 3];
        random.nextBytes(bytes);
        int seed = round == 0 ? HazelcastPlacement.SEED : random.nextInt();
        assertThat(Murmur3x86.hash32(bytes, 3, length, seed))
            .as("seed 31, length %d, round %d", length, round)
            .isEqualTo(Hashing.murmur3_32_fixed(seed).hashBytes(bytes, 3, length).asInt());
      }
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      assertThat(Murmur3x86.hash32(bytes, 0, length, HazelcastPlacement.SEED))
          .as("seed 31, length %d", length)
          .isEqualTo(HashUtil.MurmurHash3_x86_32(bytes, 0, length));
    }
  }

  @Test
  void partitionKeysLandInTheirPartitionAndAreSmallest() {
    for (int count : new int[] {1, 7, 271, 1024}) {
      HazelcastPlacement placement = HazelcastPlacement.of(count);
      for (int p = 0; p < count; p++) {
        Integer key = placement.partitionKeyFor(p);
        Data data = serialization.toData(key);
        assertThat(HashUtil.hashToIndex(data.getPartitionHash(), count))
            .as("count %d, partition %d, key %d", count, p, key).isEqualTo(p);
        for (int smaller = 0; smaller < key; smaller++) {
          assertThat(placement.partition(smaller)).as("count %d, partition %d", count, p)
              .isNotEqualTo(p);
        }
      }
    }
  }

  @Test
  void partkitStrategyTurnsEveryKeyIntoAPartitionKeyOfItsPartkitPartition() throws Exception {
    PartkitPartitioningStrategy strategy = PartkitPartitioningStrategy.defaults();
    Random random = new Random(41);
    for (int i = 0; i < 3000; i++) {
      for (Object key : keys(random)) {
        int partkit = strategy.partitionOf(key);
        Data data = serialization.toData(key, strategy);
        assertThat(HashUtil.hashToIndex(data.getPartitionHash(), 271))
            .as("seed 41, key %s", describe(key)).isEqualTo(partkit);
        assertThat(partkit).isEqualTo(strategy.scheme().partitionOf(
            key instanceof String s ? strategy.scheme().keyHash().hash(s)
                : key instanceof Integer n ? strategy.scheme().keyHash().hashLong(n)
                : key instanceof Long n ? strategy.scheme().keyHash().hashLong(n)
                : strategy.scheme().keyHash().hash((byte[]) key)));
      }
    }
    // Serializable: only the partition count travels
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(PartkitPartitioningStrategy.of(1024));
    }
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(bytes.toByteArray()))) {
      PartkitPartitioningStrategy copy = (PartkitPartitioningStrategy) in.readObject();
      assertThat(copy.partitionCount()).isEqualTo(1024);
      assertThat(copy.getPartitionKey("user-42"))
          .isEqualTo(PartkitPartitioningStrategy.of(1024).getPartitionKey("user-42"));
    }
  }

  @Test
  void unsupportedKeysAndCountsAreRejected() {
    assertThatThrownBy(() -> HazelcastPlacement.defaults().partition(3.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Double");
    assertThatThrownBy(() -> HazelcastPlacement.hash(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    assertThatThrownBy(() -> HazelcastPlacement.of(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..65536: 0");
    assertThatThrownBy(() -> HazelcastPlacement.defaults().partitionKeyFor(271))
        .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("0..270: 271");
    assertThatThrownBy(() -> PartkitPartitioningStrategy.defaults().getPartitionKey(List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("String, Long");
  }

  /** One key of each supported type, including edge values and non-ASCII text. */
  static List<Object> keys(Random random) {
    byte[] bytes = new byte[random.nextInt(40)];
    random.nextBytes(bytes);
    return List.of("user-" + random.nextInt(1_000_000), randomString(random), random.nextInt(),
        random.nextLong(), random.nextInt(2000) - 1000, (long) random.nextInt(2000) - 1000,
        bytes);
  }

  static String randomString(Random random) {
    int length = random.nextInt(30);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      int kind = random.nextInt(4);
      if (kind == 0) {
        sb.appendCodePoint(0x1F600 + random.nextInt(64)); // outside the BMP: 4 UTF-8 bytes
      } else if (kind == 1) {
        sb.append((char) (0x400 + random.nextInt(0x300)));
      } else {
        sb.append((char) ('a' + random.nextInt(26)));
      }
    }
    return sb.toString();
  }

  static String describe(Object key) {
    return key instanceof byte[] b ? Arrays.toString(b) : String.valueOf(key);
  }
}
