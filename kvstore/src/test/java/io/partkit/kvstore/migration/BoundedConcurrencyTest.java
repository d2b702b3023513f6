package io.partkit.kvstore.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.PendingMigration;
import io.partkit.kvstore.StoreWiring;
import io.partkit.kvstore.node.KvNode;
import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** At most K migrations run their steps at once, however many the caller starts. */
class BoundedConcurrencyTest {

  @TempDir Path dir;

  @Test
  void atMostKMigrationsRunAtOnce() throws Exception {
    int k = 2;
    int partitions = 6;
    try (MetadataStore store = MetadataStores.embedded();
        KvNode a = KvNode.start(NodeId.of("a"), dir.resolve("a"), 0);
        KvNode b = KvNode.start(NodeId.of("b"), dir.resolve("b"), 0)) {
      store.putMember(Member.of("a").withAddress(a.hostAndPort()), Duration.ofHours(1));
      store.putMember(Member.of("b").withAddress(b.hostAndPort()), Duration.ofHours(1));
      List<List<NodeId>> all = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(List.of(a.id()));
      }
      PartitionAssignment first = PartitionAssignment.of("test", 1, 0,
          HashSlots.of(partitions), all);
      store.compareAndSetTable(MetadataStore.NO_TABLE, first);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger max = new AtomicInteger();
      AtomicInteger entered = new AtomicInteger();
      CountDownLatch release = new CountDownLatch(1);
      try (KvMigrationExecutor executor = StoreWiring.executor(store)
          .maxConcurrentMigrations(k).onStep((m, step) -> {
            if (step == MigrationStep.PLANNED) {
              entered.incrementAndGet();
              max.accumulateAndGet(running.incrementAndGet(), Math::max);
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            } else if (step == MigrationStep.COPIED || step == MigrationStep.ROLLED_BACK) {
              running.decrementAndGet();
            }
          }).build()) {
        executor.assignInitial(first);
        List<PendingMigration> wave = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
          wave.add(new PendingMigration(new Migration(p, a.id(), b.id(), 2), List.of(b.id())));
        }
        assertThat(store.recordMigrations(1, wave)).isTrue();
        List<CompletableFuture<Migration>> all6 = new ArrayList<>();
        for (PendingMigration pm : wave) {
          all6.add(executor.migrate(pm.migration()).toCompletableFuture());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (entered.get() < k && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(entered.get()).as("K migrations started").isEqualTo(k);
        release.countDown();
        CompletableFuture.allOf(all6.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(entered.get()).as("all migrations ran").isEqualTo(partitions);
        assertThat(max.get()).as("most migrations at once, K = %d", k).isEqualTo(k);
        assertThat(executor.maxConcurrentMigrations()).isEqualTo(k);
      }
    }
  }
}
