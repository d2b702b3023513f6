package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.coordinator.VersionedValues.Versioned;
import io.partkit.spi.PartitionAssignment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The embedded store's file persistence. Its run of the store contract
 * ({@code MetadataStoreContractKit}, in coordinator-testkit, which depends on this module) is
 * {@code EmbeddedMetadataStoreContractTest} in coordinator-etcd.
 */
class EmbeddedMetadataStoreTest {

  @TempDir
  Path dir;

  /** A one-replica table on hash slots, one partition per owner (as the contract kit builds). */
  private static PartitionAssignment table(long epoch, String... owners) {
    List<List<NodeId>> rows = new ArrayList<>();
    for (String o : owners) {
      rows.add(List.of(NodeId.of(o)));
    }
    return PartitionAssignment.of("test-table", epoch, 1, HashSlots.of(owners.length), rows);
  }

  @Test
  void aRestartReloadsTableMigrationsAndMembers() {
    Path file = dir.resolve("sub/state.json");
    PendingMigration m = new PendingMigration(
        new Migration(0, NodeId.of("a"), NodeId.of("b"), 2), List.of(NodeId.of("b")));
    MetadataStore first = MetadataStores.embedded(file);
    first.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a", "b"));
    first.recordMigrations(1, List.of(m));
    first.putMember(Member.weighted("a", 3), Duration.ofSeconds(5));
    long version = first.members().version();
    first.close();
    assertThat(file).exists();
    assertThat(dir.resolve("sub/state.json.tmp")).doesNotExist();

    MetadataStore again = MetadataStores.embedded(file);
    assertThat(again.read().table()).contains(table(1, "a", "b"));
    assertThat(again.read().pending()).containsExactly(m);
    assertThat(again.members().members()).containsExactly(Member.weighted("a", 3));
    assertThat(again.members().version()).isEqualTo(version);
    assertThat(again.compareAndSetTable(1, table(2, "b", "b2"))).isTrue();
    again.close();
    assertThat(MetadataStores.embedded(file).read().epoch()).isEqualTo(2);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A format-2 file around {@code state}, with the checksum the store computes. */
  private static void writeStoreFile(Path file, String state) throws Exception {
    CRC32C crc = new CRC32C();
    crc.update(state.getBytes(StandardCharsets.UTF_8));
    Files.writeString(file, "{\"format\":2,\"crc32c\":" + crc.getValue() + ",\"state\":" + state
        + "}");
  }

  @Test
  void aValueSurvivesAReopenWithItsVersionAndVersionsKeepGrowing() {
    Path file = dir.resolve("state.json");
    VersionedValues first = (VersionedValues) MetadataStores.embedded(file);
    long v1 = first.compareAndSet("control", VersionedValues.ABSENT, utf8("one")).orElseThrow();
    long v2 = first.compareAndSet("control", v1, new byte[] {0, -1, 10, 13}).orElseThrow();
    long empty = first.compareAndSet("empty", VersionedValues.ABSENT, new byte[0]).orElseThrow();
    ((MetadataStore) first).compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a"));
    ((MetadataStore) first).close();

    MetadataStore reopened = MetadataStores.embedded(file);
    VersionedValues again = (VersionedValues) reopened;
    assertThat(again.get("control")).contains(new Versioned(new byte[] {0, -1, 10, 13}, v2));
    assertThat(again.get("empty")).contains(new Versioned(new byte[0], empty));
    assertThat(reopened.read().table()).contains(table(1, "a"));
    assertThat(again.compareAndSet("control", v1, utf8("stale"))).isEmpty();
    long v3 = again.compareAndSet("control", v2, utf8("three")).orElseThrow();
    assertThat(v3).as("above every version before the reopen").isGreaterThan(Math.max(v2, empty));
    long created = again.compareAndSet("new", VersionedValues.ABSENT, utf8("n")).orElseThrow();
    assertThat(created).isGreaterThan(v3);
    reopened.close();
    VersionedValues third = (VersionedValues) MetadataStores.embedded(file);
    assertThat(third.get("control")).contains(new Versioned(utf8("three"), v3));
    assertThat(third.get("new")).contains(new Versioned(utf8("n"), created));
  }

  @Test
  void aFileWrittenBeforeValuesOpensWithNoValues() throws Exception {
    Path file = dir.resolve("state.json");
    writeStoreFile(file, "{\"revision\":4,\"table\":null,\"pending\":[],\"memberVersion\":3,"
        + "\"members\":[]}");
    MetadataStore s = MetadataStores.embedded(file);
    VersionedValues v = (VersionedValues) s;
    assertThat(v.get("control")).isEmpty();
    long created = v.compareAndSet("control", VersionedValues.ABSENT, utf8("x")).orElseThrow();
    assertThat(created).as("above the file's revision").isGreaterThan(4);
    assertThat(s.members().version()).isEqualTo(3);
    s.close();
    assertThat(((VersionedValues) MetadataStores.embedded(file)).get("control"))
        .contains(new Versioned(utf8("x"), created));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
      "{\"c\":{\"version\":2,\"value\":\"!!\"}}|state.values.c.value: expected base64",
      "{\"c\":{\"version\":0,\"value\":\"\"}}|state.values.c.version: expected 1 to the"
          + " store's revision 4: 0",
      "{\"c\":{\"version\":5,\"value\":\"\"}}|state.values.c.version: expected 1 to the"
          + " store's revision 4: 5",
      "{\"c\":{\"value\":\"\"}}|state.values.c: missing field 'version'",
      "{\"a/b\":{\"version\":1,\"value\":\"\"}}|bad value name 'a/b'",
      "[]|state.values: expected an object",
  })
  void aFileWithABrokenValueIsAClearError(String values, String expected) throws Exception {
    Path file = dir.resolve("state.json");
    writeStoreFile(file, "{\"revision\":4,\"table\":null,\"pending\":[],\"memberVersion\":0,"
        + "\"members\":[],\"values\":" + values + "}");
    assertThatThrownBy(() -> MetadataStores.embedded(file))
        .isInstanceOf(MetadataStoreException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining(expected);
  }

  @Test
  void aWellFormedFileWithABrokenTableIsAClearError() throws Exception {
    Path file = dir.resolve("state.json");
    String state = "{\"revision\":1,\"table\":{\"format\":1},\"pending\":[],"
        + "\"memberVersion\":0,\"members\":[]}";
    CRC32C crc = new CRC32C();
    crc.update(state.getBytes(StandardCharsets.UTF_8));
    Files.writeString(file, "{\"format\":2,\"crc32c\":" + crc.getValue() + ",\"state\":" + state
        + "}");
    assertThatThrownBy(() -> MetadataStores.embedded(file))
        .isInstanceOf(MetadataStoreException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("table: missing field 'scheme'");
  }

  /** Files a store never writes: each must fail to load, naming the file and what is wrong. */
  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
      "''|expected a JSON object with format 2, crc32c and state; found nothing",
      "null|found null",
      "{}|found {}",
      "[]|found []",
      "{\"format\":1,\"revision\":3}|unsupported format 1",
      "{\"format\":2,\"crc32c\":1}|missing field 'state'",
  })
  void aFileTheStoreNeverWroteIsAnErrorNotAnEmptyStore(String content, String expected)
      throws Exception {
    Path file = dir.resolve("state.json");
    Files.writeString(file, content);
    assertThatThrownBy(() -> MetadataStores.embedded(file))
        .isInstanceOf(MetadataStoreException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining(expected);
    assertThat(Files.readString(file)).as("left as it was").isEqualTo(content);
  }

  @Test
  void aFlippedReplicaIndexFailsTheChecksum() throws Exception {
    Path file = dir.resolve("state.json");
    MetadataStore first = MetadataStores.embedded(file);
    first.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a", "b"));
    first.close();
    String written = Files.readString(file);
    // the table's placement refers to nodes by index: change one index, keep the JSON valid
    int at = written.indexOf("[0]");
    assertThat(at).as("a replica list [0] in %s", written).isPositive();
    Files.writeString(file, written.substring(0, at) + "[1]" + written.substring(at + 3));
    assertThatThrownBy(() -> MetadataStores.embedded(file))
        .isInstanceOf(MetadataStoreException.class)
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void aFailedWriteChangesNothingInMemory() throws Exception {
    Path file = dir.resolve("state.json");
    MetadataStore s = MetadataStores.embedded(file);
    try {
      s.compareAndSetTable(MetadataStore.NO_TABLE, table(1, "a", "b"));
      s.putMember(Member.of("a"), Duration.ofSeconds(5));
      long version = s.members().version();
      // a directory where the temporary file goes: every write fails (root ignores permissions)
      Path blocker = Files.createDirectory(dir.resolve("state.json.tmp"));
      assertThatThrownBy(() -> s.compareAndSetTable(1, table(2, "b", "b")))
          .isInstanceOf(MetadataStoreException.class).hasMessageContaining("nothing changed");
      assertThatThrownBy(() -> s.putMember(Member.of("c"), Duration.ofSeconds(5)))
          .isInstanceOf(MetadataStoreException.class);
      assertThatThrownBy(() -> s.removeMember(NodeId.of("a")))
          .isInstanceOf(MetadataStoreException.class);
      assertThat(s.read().epoch()).isEqualTo(1);
      assertThat(s.members().version()).isEqualTo(version);
      assertThat(s.members().members()).containsExactly(Member.of("a"));
      VersionedValues values = (VersionedValues) s;
      assertThatThrownBy(() -> values.compareAndSet("v", VersionedValues.ABSENT, utf8("x")))
          .isInstanceOf(MetadataStoreException.class).hasMessageContaining("nothing changed");
      assertThat(values.get("v")).isEmpty();
      Files.delete(blocker);
      assertThat(values.compareAndSet("v", VersionedValues.ABSENT, utf8("x"))).isPresent();
      assertThat(s.compareAndSetTable(1, table(2, "b", "b"))).isTrue();
    } finally {
      s.close();
    }
    assertThat(MetadataStores.embedded(file).read().epoch()).as("the file agrees").isEqualTo(2);
  }

  @Test
  void aClosedStoreRefusesWork() {
    MetadataStore s = MetadataStores.embedded();
    s.close();
    assertThatThrownBy(s::read).isInstanceOf(IllegalStateException.class)
        .hasMessage("embedded store (in memory) is closed");
  }
}
