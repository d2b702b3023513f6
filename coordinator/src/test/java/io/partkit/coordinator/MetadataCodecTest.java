package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The persisted JSON format: golden strings, seeded round trips, and clear errors. */
class MetadataCodecTest {

  private static NodeId n(String id) {
    return NodeId.of(id);
  }

  @Test
  void hashSlotsTableHasTheDocumentedFormat() {
    PartitionAssignment t = PartitionAssignment.of("fixed", 7, 3, HashSlots.of(4),
        List.of(List.of(n("a"), n("b")), List.of(n("b"), n("c")), List.of(n("c"), n("a")),
            List.of(n("a"), n("c"))));
    String golden = "{\"format\":1,\"strategy\":\"fixed\",\"epoch\":7,\"membershipVersion\":3,"
        + "\"scheme\":{\"kind\":\"hash-slots\",\"count\":4,\"keyHash\":\"MURMUR3_128\"},"
        + "\"nodes\":[\"a\",\"b\",\"c\"],\"replicas\":[[0,1],[1,2],[2,0],[0,2]]}";
    assertThat(MetadataCodec.tableToJson(t)).isEqualTo(golden);
    assertThat(MetadataCodec.tableFromJson(golden)).isEqualTo(t);
  }

  @Test
  void tokenRangesTableWritesTokensAsStrings() {
    PartitionAssignment t = PartitionAssignment.of("tokenring", 2, 1,
        TokenRanges.of(Long.MIN_VALUE + 1, -4069959284402364209L, Long.MAX_VALUE),
        List.of(List.of(n("x")), List.of(n("y")), List.of(n("x"))));
    String json = MetadataCodec.tableToJson(t);
    assertThat(json).contains("\"kind\":\"token-ranges\"",
        "\"tokens\":[\"-9223372036854775807\",\"-4069959284402364209\",\"9223372036854775807\"]",
        "\"keyHash\":\"CASSANDRA_MURMUR3\"");
    PartitionAssignment back = MetadataCodec.tableFromBytes(MetadataCodec.tableToBytes(t));
    assertThat(back).isEqualTo(t);
    assertThat(back.scheme()).isEqualTo(t.scheme());
  }

  @Test
  void keyRangesTableWritesSplitKeysAsHex() {
    PartitionAssignment t = PartitionAssignment.of("range", 4, 2,
        KeyRanges.of(new byte[] {'g'}, new byte[] {'t', 0, (byte) 0xff}),
        List.of(List.of(n("x")), List.of(n("y")), List.of(n("x"))));
    String json = MetadataCodec.tableToJson(t);
    assertThat(json).contains("\"scheme\":{\"kind\":\"key-ranges\",\"splits\":[\"67\","
        + "\"7400ff\"],\"keyHash\":\"ORDERED_PREFIX\"}");
    assertThat(MetadataCodec.tableFromJson(json)).isEqualTo(t);
    assertThatThrownBy(() -> MetadataCodec.tableFromJson(json.replace("7400ff", "7g")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("table.scheme.splits[1]: expected a key as an even number");
    assertThatThrownBy(() -> MetadataCodec.tableFromJson(json.replace("7400ff", "60")))
        .hasMessageContaining("table.scheme.splits: key ranges: split keys must be strictly");
    assertThatThrownBy(() -> MetadataCodec.tableFromJson(json.replace("ORDERED_PREFIX",
        "MURMUR3_128"))).hasMessageContaining("key ranges route by ORDERED_PREFIX");
  }

  static Stream<Long> seeds() {
    return LongStream.range(1, 41).boxed();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void randomTablesRoundTrip(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int nodes = 1 + r.nextInt(12);
    List<NodeId> ids = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      ids.add(n("node-" + r.nextInt(1000) + "-" + i));
    }
    int rf = 1 + r.nextInt(nodes);
    int partitions = 1 + r.nextInt(300);
    PartitionScheme scheme;
    if (r.nextBoolean()) {
      scheme = new HashSlots(partitions, r.nextBoolean() ? KeyHash.MURMUR3_128
          : KeyHash.CASSANDRA_MURMUR3);
    } else {
      TreeSet<Long> tokens = new TreeSet<>();
      while (tokens.size() < partitions) {
        tokens.add(r.nextLong());
      }
      scheme = TokenRanges.of(tokens.stream().mapToLong(Long::longValue).toArray());
    }
    List<List<NodeId>> rows = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      List<NodeId> shuffled = new ArrayList<>(ids);
      Collections.shuffle(shuffled, new java.util.Random(r.nextLong()));
      rows.add(shuffled.subList(0, rf));
    }
    PartitionAssignment t = PartitionAssignment.of("s" + seed, r.nextLong(0, Long.MAX_VALUE),
        r.nextLong(0, Long.MAX_VALUE), scheme, rows);
    String json = MetadataCodec.tableToJson(t);
    PartitionAssignment back = MetadataCodec.tableFromJson(json);
    assertThat(back).as("seed %d", seed).isEqualTo(t);
    assertThat(back.scheme()).as("seed %d", seed).isEqualTo(t.scheme());
    assertThat(MetadataCodec.tableToJson(back)).as("seed %d: stable", seed).isEqualTo(json);
  }

  @Test
  void migrationsAndMembersRoundTrip() {
    List<PendingMigration> list = List.of(
        new PendingMigration(new Migration(5, n("a"), n("b"), 8), List.of(n("b"), n("c"))),
        new PendingMigration(new Migration(9, n("c"), n("a"), 8), List.of(n("a"))));
    String json = MetadataCodec.migrationsToJson(list);
    assertThat(json).startsWith("[{\"partition\":5,\"source\":\"a\",\"target\":\"b\","
        + "\"targetEpoch\":8,\"targetReplicas\":[\"b\",\"c\"]}");
    assertThat(MetadataCodec.migrationsFromJson(json)).isEqualTo(list);
    List<PendingMigration> whole = List.of(new PendingMigration(
        new Migration(5, List.of(n("a"), n("b")), List.of(n("a"), n("c")), 8),
        List.of(n("a"), n("c"))));
    String wholeJson = MetadataCodec.migrationsToJson(whole);
    assertThat(wholeJson).endsWith("\"targetReplicas\":[\"a\",\"c\"],"
        + "\"sourceReplicas\":[\"a\",\"b\"]}]");
    assertThat(MetadataCodec.migrationsFromJson(wholeJson)).isEqualTo(whole);
    Member m = new Member(n("a"), "127.0.0.1:7001", 3, "z1", "r2");
    assertThat(MetadataCodec.memberToJson(m))
        .isEqualTo("{\"id\":\"a\",\"address\":\"127.0.0.1:7001\",\"weight\":3,"
            + "\"zone\":\"z1\",\"rack\":\"r2\"}");
    assertThat(MetadataCodec.memberFromJson(MetadataCodec.memberToJson(m))).isEqualTo(m);
  }

  @Test
  void malformedInputNamesTheProblem() {
    assertThatThrownBy(() -> MetadataCodec.tableFromJson("{"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("table: malformed JSON");
    assertThatThrownBy(() -> MetadataCodec.tableFromJson("{\"format\":2}"))
        .hasMessage("table: unsupported format 2, this version reads format 1");
    String good = "{\"format\":1,\"strategy\":\"fixed\",\"epoch\":1,\"membershipVersion\":0,"
        + "\"scheme\":{\"kind\":\"hash-slots\",\"count\":1,\"keyHash\":\"MURMUR3_128\"},"
        + "\"nodes\":[\"a\"],\"replicas\":[[0]]}";
    assertThat(MetadataCodec.tableFromJson(good).primary(0)).isEqualTo(n("a"));
    assertThatThrownBy(() -> MetadataCodec.tableFromJson(good.replace("[[0]]", "[[3]]")))
        .hasMessage("table.replicas[0]: node index must be in 0..0: 3");
    assertThatThrownBy(() -> MetadataCodec.tableFromJson(good.replace("MURMUR3_128", "MD5")))
        .hasMessageStartingWith("table.scheme.keyHash: unknown key hash 'MD5'");
    assertThatThrownBy(() -> MetadataCodec.tableFromJson(good.replace("hash-slots", "ring")))
        .hasMessage(
            "table.scheme.kind: expected hash-slots, token-ranges or key-ranges: 'ring'");
    assertThatThrownBy(
            () -> MetadataCodec.tableFromJson(good.replace("\"epoch\":1", "\"epoch\":\"1\"")))
        .hasMessage("table.epoch: expected an integer: \"1\"");
    assertThatThrownBy(() -> MetadataCodec.migrationsFromJson("{}"))
        .hasMessageStartingWith("migrations: expected a JSON array");
  }
}
