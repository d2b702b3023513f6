package io.partkit.kvstore.migration;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.PendingMigration;
import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.StoreWiring;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A migration whose target cannot be reached is rolled back: the source serves again. */
class RollbackTest {

  @TempDir Path dir;

  @Test
  void anUnreachableTargetRollsTheMigrationBack() throws Exception {
    try (MetadataStore store = MetadataStores.embedded();
        KvNode source = KvNode.start(NodeId.of("src"), dir.resolve("src"), 0)) {
      KvNode target = KvNode.start(NodeId.of("dst"), dir.resolve("dst"), 0);
      store.putMember(Member.of("src").withAddress(source.hostAndPort()), Duration.ofHours(1));
      store.putMember(Member.of("dst").withAddress(target.hostAndPort()), Duration.ofHours(1));
      PartitionAssignment first = PartitionAssignment.of("test", 1, 0, HashSlots.of(1),
          List.of(List.of(source.id())));
      store.compareAndSetTable(MetadataStore.NO_TABLE, first);
      target.close(); // down for the whole migration
      try (KvMigrationExecutor executor = StoreWiring.executor(store)
          .stepTimeout(Duration.ofMillis(500)).build();
          KvNodeClient client = KvNodeClient.connect(source.hostAndPort(),
              Duration.ofSeconds(10))) {
        executor.assignInitial(first);
        assertThat(client.put(0, 1, "k".getBytes(UTF_8), "v".getBytes(UTF_8)).isOk()).isTrue();
        Migration m = new Migration(0, source.id(), target.id(), 2);
        store.recordMigrations(1, List.of(new PendingMigration(m, List.of(target.id()))));
        ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class,
            () -> executor.migrate(m).toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertThat(failed.getCause()).isInstanceOf(MigrationRolledBackException.class);
        assertThat(((MigrationRolledBackException) failed.getCause()).migration()).isEqualTo(m);
        store.clearMigrations(1);
        assertThat(client.status(0).state()).as("the source owns the partition again")
            .isEqualTo(PartitionState.OWNED);
        KvReply after = client.put(0, 1, "k".getBytes(UTF_8), "w".getBytes(UTF_8));
        assertThat(after.status()).isEqualTo(Status.OK);
        assertThat(client.get(0, 1, "k".getBytes(UTF_8)).value()).isEqualTo("w".getBytes(UTF_8));
      }
    }
  }
}
