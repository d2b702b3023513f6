package io.partkit.coordinator.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.coordinator.testkit.CoordinatorSettings;
import io.partkit.spi.Member;
import io.partkit.spi.PartitionAssignment;
import io.partkit.test.support.EtcdCluster;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import io.partkit.test.support.RequiresEtcd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Leadership across transient etcd faults on one real etcd member: a leader whose lease
 * keep-alive breaks steps down and leads again, instead of leaving the cluster without a leader.
 *
 * <p>Two faults, each provoking one way the keep-alive ends. A restart (SIGKILL, then start on
 * the same data) breaks the stream at once while etcd keeps the lease: the leader must lead again
 * on its surviving lease, and a standby must not take over. A freeze (SIGSTOP) longer than the
 * lease TTL makes jetcd end the stream for lack of answers: the leader must step down while etcd
 * is frozen (it cannot know whether its lease still exists) and lead again after SIGCONT.
 */
@ExtendWith(RequiresEtcd.class)
class EtcdLeadershipRecoveryTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private static MetadataStore store(EtcdCluster etcd, String prefix, Duration leaderTtl) {
    return EtcdMetadataStores.builder().endpoints(etcd.allEndpoints()).prefix(prefix)
        .connectTimeout(Duration.ofSeconds(30)).leaderTtl(leaderTtl)
        .requestTimeout(Duration.ofSeconds(20)).build();
  }

  @Test
  void aLeaderWhoseKeepAliveBreaksStepsDownAndLeadsAgainOnItsSurvivingLease() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        // a TTL well above the recovery time: this test is about the lease that survives
        MetadataStore leaderStore = store(etcd, "/recover-restart", Duration.ofSeconds(5));
        MetadataStore standbyStore = store(etcd, "/recover-restart", Duration.ofSeconds(5))) {
      List<String> events = new CopyOnWriteArrayList<>();
      Leadership leader = leaderStore.campaign("c1", () -> events.add("elected"),
          () -> events.add("lost"));
      awaitTrue("c1 leads", leader::isLeader);
      Leadership standby = standbyStore.campaign("c2", () -> events.add("c2 elected"),
          () -> events.add("c2 lost"));
      assertThat(standby.isLeader()).isFalse();

      etcd.restart(etcd.allEndpoints().get(0)); // the keep-alive stream breaks; the lease stays

      awaitTrue("c1 stepped down and leads again; events " + events,
          () -> events.equals(List.of("elected", "lost", "elected")));
      assertThat(leader.isLeader()).isTrue();
      assertThat(standby.isLeader()).as("the standby never took over").isFalse();
      assertThat(leaderStore.leader()).contains("c1");
      standby.close();
      leader.close();
    }
  }

  @Test
  void aLeaderStepsDownWhileEtcdIsFrozenAndLeadsAgainAfterwards() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        MetadataStore store = store(etcd, "/recover-pause", Duration.ofSeconds(2))) {
      List<String> events = new CopyOnWriteArrayList<>();
      Leadership leader = store.campaign("c1", () -> events.add("elected"),
          () -> events.add("lost"));
      awaitTrue("c1 leads", leader::isLeader);
      String member = etcd.allEndpoints().get(0);

      etcd.pause(member);
      try {
        // no answer within the 2 s TTL: jetcd ends the keep-alive, the leader must stop acting
        awaitTrue("c1 stepped down while etcd was frozen; events " + events,
            () -> events.contains("lost"));
        assertThat(leader.isLeader()).isFalse();
      } finally {
        etcd.resume(member);
      }

      awaitTrue("c1 leads again; events " + events,
          () -> events.equals(List.of("elected", "lost", "elected")));
      assertThat(leader.isLeader()).isTrue();
      assertThat(store.leader()).contains("c1");
      leader.close();
    }
  }

  @Test
  void aCoordinatorLeadsAgainAfterAnEtcdRestartAndRebalances() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        MetadataStore leaderStore = store(etcd, "/recover-coordinator", Duration.ofSeconds(5));
        MetadataStore standbyStore = store(etcd, "/recover-coordinator", Duration.ofSeconds(5))) {
      ManualClock clock = new ManualClock();
      RecordingMigrationExecutor executor = new RecordingMigrationExecutor();
      try (ClusterCoordinator c1 = KitCoordinators.build(leaderStore,
              CoordinatorSettings.defaults(clock).named("c1").executor(executor, 2));
          ClusterCoordinator c2 = KitCoordinators.build(standbyStore,
              CoordinatorSettings.defaults(clock).named("c2").executor(executor, 2))) {
        for (String id : List.of("a", "b", "c")) {
          c1.join(Member.of(id));
        }
        c1.rebalance();
        long before = c1.table().orElseThrow().epoch();

        etcd.restart(etcd.allEndpoints().get(0));

        awaitTrue("c1 leads again", c1::isLeader);
        assertThat(c2.isLeader()).isFalse();
        c1.join(Member.of("d"));
        RebalancePlan plan = c1.rebalance();
        assertThat(plan.migrations()).isNotEmpty();
        PartitionAssignment t = c1.table().orElseThrow();
        assertThat(t.epoch()).isGreaterThan(before);
        assertThat(t.samePlacementAs(plan.proposed())).isTrue();
        assertThat(t.nodes()).hasSize(4);
        assertThat(leaderStore.read().pending()).isEmpty();
      }
    }
  }

  static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + DEADLINE + ": " + what);
      }
      Thread.sleep(10); // polling interval
    }
  }
}
