package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on the embedded store, and its file persistence. */
class EmbeddedMetadataStoreTest extends MetadataStoreContractKit {

  private final MetadataStore store = MetadataStores.embedded();

  @TempDir
  Path dir;

  @Override
  protected MetadataStore store() {
    return store;
  }

  @Override
  protected MetadataStore secondClient() {
    return store; // in-process: every client is the same object
  }

  @AfterEach
  void close() {
    store.close();
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

  @Test
  void aCorruptFileIsAClearError() throws Exception {
    Path file = dir.resolve("state.json");
    Files.writeString(file, "{\"table\": {\"format\": 1}}");
    assertThatThrownBy(() -> MetadataStores.embedded(file))
        .isInstanceOf(MetadataStoreException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("table: missing field 'scheme'");
  }

  @Test
  void aClosedStoreRefusesWork() {
    MetadataStore s = MetadataStores.embedded();
    s.close();
    assertThatThrownBy(s::read).isInstanceOf(IllegalStateException.class)
        .hasMessage("embedded store (in memory) is closed");
  }
}
