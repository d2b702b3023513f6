package io.partkit.coordinator.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.coordinator.VersionedValues;
import io.partkit.coordinator.VersionedValues.Versioned;
import io.partkit.coordinator.testkit.CoordinatorSettings;
import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.PartitionAssignment;
import io.partkit.test.support.EtcdCluster;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import io.partkit.test.support.RequiresEtcd;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Faults on a real 3-member etcd cluster: the raft leader is killed with SIGKILL in the middle of
 * a rebalance (after the migrations were recorded, before the table is committed) or of a run of
 * versioned-value writes, and a coordinator's session ends while a migration is in flight.
 */
@ExtendWith(RequiresEtcd.class)
class EtcdLeaderLossTest {

  /** Waits for conditions: generous, since CI machines may be busy (load averages of 30 seen). */
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  // Neither test waits for a lease to expire, so the TTL only has to outlast a busy machine's
  // scheduling hiccups (at 2 s a starved keep-alive cost the leader its lease under load); the
  // connect timeout likewise (the default 5 s failed "cannot reach etcd" on a loaded machine).
  private static MetadataStore store(EtcdCluster etcd, String prefix) {
    return EtcdMetadataStores.builder().endpoints(etcd.allEndpoints()).prefix(prefix)
        .connectTimeout(DEADLINE).leaderTtl(Duration.ofSeconds(5))
        .requestTimeout(Duration.ofSeconds(20)).build();
  }

  @Test
  void killingTheEtcdLeaderDuringARebalanceLosesNothingAndNeverRollsBack() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3)) {
      AtomicInteger calls = new AtomicInteger();
      AtomicReference<String> killed = new AtomicReference<>();
      int killAt = 20; // a migration call in the middle of the third rebalance
      MigrationExecutor killer = new MigrationExecutor() {
        @Override
        public CompletionStage<Migration> migrate(Migration m) {
          if (calls.incrementAndGet() == killAt) {
            killed.set(etcd.killLeader()); // the wave is recorded, its commit is still to come
          }
          return CompletableFuture.completedFuture(m);
        }

        @Override
        public CompletionStage<Void> activate(PartitionAssignment committed) {
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Migration> resume(Migration m, PartitionAssignment committed) {
          return CompletableFuture.completedFuture(m);
        }
      };
      List<Long> watched = new CopyOnWriteArrayList<>();
      List<Long> read = new ArrayList<>();
      try (MetadataStore watcherStore = store(etcd, "/leader-loss");
          MetadataStore coordinatorStore = store(etcd, "/leader-loss")) {
        watcherStore.watchTable(t -> watched.add(t.epoch())); // ends with its store
        try (ClusterCoordinator c = KitCoordinators.build(coordinatorStore,
            CoordinatorSettings.defaults(new ManualClock()).executor(killer, 4))) {
          List<RebalancePlan> plans = new ArrayList<>();
          for (String id : List.of("a", "b", "c", "d", "e", "f")) {
            c.join(Member.of(id));
            // after the kill the coordinator steps down until it has made sure of its lease
            // (its keep-alive may have run through the killed member); it must lead again
            EtcdLeadershipRecoveryTest.awaitTrue(
                "c1 leads before rebalancing for " + id, c::isLeader);
            plans.add(c.rebalance());
            PartitionAssignment t = c.table().orElseThrow();
            assertThat(t.samePlacementAs(plans.get(plans.size() - 1).proposed()))
                .as("after joining %s the committed table is the plan's", id).isTrue();
            read.add(t.epoch());
          }
          assertThat(killed.get()).as("the leader was killed mid-rebalance").isNotNull();
          assertThat(etcd.endpoints()).hasSize(2).doesNotContain(killed.get());
          long last = read.get(read.size() - 1);
          long deadline = System.nanoTime() + DEADLINE.toNanos();
          while ((watched.isEmpty() || watched.get(watched.size() - 1) < last)
              && System.nanoTime() < deadline) {
            Thread.sleep(10); // polling interval
          }
          assertThat(read).as("epochs read after each rebalance").isSortedAccordingTo(Long::compare)
              .doesNotHaveDuplicates();
          assertThat(watched).as("epochs seen by the watcher, across the leader's death")
              .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates().containsAll(read);
          assertThat(c.table().orElseThrow().nodes()).hasSize(6);
          assertThat(c.store().read().pending()).isEmpty();
        }
      }
    }
  }

  /**
   * One writer alone, so every compare-and-set from the version it last got must succeed: a write
   * whose outcome the kill left unknown and that were sent again blindly would find its own
   * version moved and report a lost race (an empty result), or be applied twice.
   */
  @Test
  void killingTheEtcdLeaderDuringValueWritesReportsEachWriteOnce() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        MetadataStore store = store(etcd, "/value-writes")) {
      VersionedValues values = (VersionedValues) store;
      CountDownLatch writing = new CountDownLatch(1);
      AtomicReference<String> killed = new AtomicReference<>();
      Thread killer = new Thread(() -> {
        try {
          writing.await();
          killed.set(etcd.killLeader());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "etcd-leader-killer");
      killer.start();
      long version = VersionedValues.ABSENT;
      List<Long> versions = new ArrayList<>();
      int writes = 300;
      for (int i = 1; i <= writes; i++) {
        byte[] value = ("write " + i).getBytes(StandardCharsets.UTF_8);
        long from = version;
        version = values.compareAndSet("counter", from, value).orElseThrow(() ->
            new AssertionError("write from version " + from + " reported lost by its only"
                + " writer"));
        versions.add(version);
        if (i == 20) {
          writing.countDown(); // the kill lands while the next writes are in flight
        }
      }
      killer.join(DEADLINE.toMillis());
      assertThat(killed.get()).as("the leader was killed during the writes").isNotNull();
      assertThat(versions).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
      assertThat(values.get("counter")).contains(new Versioned(
          ("write " + writes).getBytes(StandardCharsets.UTF_8), version));
    }
  }

  @Test
  void aStandbyTakesOverWhenTheLeadersSessionEndsAndResumesTheMigration() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      ManualClock clock = new ManualClock();
      RecordingMigrationExecutor stuck = new RecordingMigrationExecutor();
      RecordingMigrationExecutor fresh = new RecordingMigrationExecutor();
      MetadataStore leaderStore = store(etcd, "/takeover");
      ClusterCoordinator leader = KitCoordinators.build(leaderStore,
          CoordinatorSettings.defaults(clock).named("leader").executor(stuck, 2));
      try (MetadataStore standbyStore = store(etcd, "/takeover")) {
        for (String id : List.of("a", "b", "c")) {
          leader.join(Member.of(id));
        }
        leader.rebalance();
        ClusterCoordinator standby = KitCoordinators.build(standbyStore,
            CoordinatorSettings.defaults(clock).named("standby").executor(fresh, 2));
        assertThat(standby.isLeader()).isFalse();
        assertThat(leader.isLeader()).isTrue();
        leader.join(Member.of("d"));
        long before = leader.table().orElseThrow().epoch();
        stuck.holdMigrations();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
          Future<RebalancePlan> running = pool.submit(leader::rebalance);
          long deadline = System.nanoTime() + DEADLINE.toNanos();
          while (stuck.heldCount() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5); // polling interval
          }
          assertThat(stuck.heldCount()).isEqualTo(2);
          assertThat(standbyStore.read().pending()).hasSize(2);
          leaderStore.close(); // the leader's etcd session ends: its lease goes, the key goes
          deadline = System.nanoTime() + DEADLINE.toNanos();
          while (standbyStore.read().epoch() == before && System.nanoTime() < deadline) {
            Thread.sleep(10); // polling interval
          }
          assertThat(standby.isLeader()).isTrue();
          assertThat(fresh.resumed()).containsExactlyInAnyOrderElementsOf(stuck.migrated());
          PartitionAssignment t = standby.table().orElseThrow();
          assertThat(t.epoch()).isEqualTo(before + 1);
          for (Migration m : stuck.migrated()) {
            assertThat(t.primary(m.partition())).isEqualTo(m.target());
          }
          assertThat(standbyStore.read().pending()).isEmpty();
          leader.close();
          assertThat(running).failsWithin(DEADLINE);
          // the new leader finishes the rebalance the old one started
          RebalancePlan rest = standby.rebalance();
          assertThat(rest.migrations()).doesNotContainAnyElementsOf(stuck.migrated());
          assertThat(standby.plan().isNoOp()).isTrue();
        } finally {
          pool.shutdownNow();
          standby.close();
        }
      } finally {
        leader.close();
      }
    }
  }
}
