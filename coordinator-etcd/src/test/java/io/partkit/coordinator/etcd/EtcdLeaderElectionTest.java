package io.partkit.coordinator.etcd;

import static io.partkit.coordinator.etcd.EtcdLeadershipRecoveryTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.partkit.coordinator.Leadership;
import io.partkit.coordinator.MetadataStore;
import io.partkit.test.support.EtcdMember;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leader election on its own ({@link EtcdLeaderElection}), one real etcd member: winning a
 * free election, standing by, handing over on close without waiting for the lease TTL, and
 * recovering on a fresh lease when its lease disappears behind its back. The faults of etcd
 * itself (restart, freeze) are {@code EtcdLeadershipRecoveryTest}; leadership under a
 * coordinator is {@code EtcdLeaderLossTest}.
 */
class EtcdLeaderElectionTest {

  @RegisterExtension static final EtcdMember etcd = new EtcdMember();

  private static MetadataStore store(String prefix, Duration leaderTtl) {
    return EtcdMetadataStores.builder().endpoints(etcd.endpoints()).prefix(prefix)
        .connectTimeout(Duration.ofSeconds(30)).leaderTtl(leaderTtl)
        .requestTimeout(Duration.ofSeconds(20)).build();
  }

  @Test
  void aFreeElectionIsWonBeforeCampaignReturnsAndASecondCandidateStandsBy() {
    try (MetadataStore a = store("/election-free", Duration.ofSeconds(10));
        MetadataStore b = store("/election-free", Duration.ofSeconds(10))) {
      List<String> events = new CopyOnWriteArrayList<>();
      Leadership first = a.campaign("c1", () -> events.add("c1 elected"), () -> { });
      assertThat(first.isLeader()).as("no waiting on a free election").isTrue();
      Leadership second = b.campaign("c2", () -> events.add("c2 elected"), () -> { });
      assertThat(second.isLeader()).isFalse();
      assertThat(b.leader()).contains("c1");
      assertThat(second.candidate()).isEqualTo("c2");
      second.close();
      first.close();
    }
  }

  @Test
  void closingTheLeaderHandsOverWithoutWaitingForItsLeaseToExpire() throws Exception {
    // a TTL far above the deadline below: only the revoke on close can free the key in time
    Duration ttl = Duration.ofSeconds(60);
    try (MetadataStore a = store("/election-handover", ttl);
        MetadataStore b = store("/election-handover", ttl)) {
      Leadership first = a.campaign("c1", () -> { }, () -> { });
      List<String> events = new CopyOnWriteArrayList<>();
      Leadership second = b.campaign("c2", () -> events.add("elected"), () -> events.add("lost"));
      long closed = System.nanoTime();
      first.close();
      first.close(); // idempotent
      assertThat(first.isLeader()).isFalse();
      awaitTrue("c2 leads after c1 closed", second::isLeader);
      assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(ttl.dividedBy(2));
      // onElected runs on the events thread, after isLeader turned true
      awaitTrue("c2 was told once; events " + events, () -> events.equals(List.of("elected")));
      assertThat(b.leader()).contains("c2");
      second.close();
      assertThat(b.leader()).as("closing revokes the lease, which deletes the key").isEmpty();
    }
  }

  @Test
  void aLeaderWhoseLeaseIsRevokedStepsDownAndLeadsAgainOnAFreshLease() throws Exception {
    try (MetadataStore store = store("/election-revoked", Duration.ofSeconds(3));
        Client other = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new))
            .build()) {
      List<String> events = new CopyOnWriteArrayList<>();
      EtcdLeaderElection leader = (EtcdLeaderElection) store.campaign("c1",
          () -> events.add("elected"), () -> events.add("lost"));
      long before = leader.lease();

      // another client revokes the lease: the key goes with it, the keep-alive reports TTL 0
      other.getLeaseClient().revoke(before).get(10, TimeUnit.SECONDS);

      awaitTrue("c1 stepped down and leads again; events " + events,
          () -> events.equals(List.of("elected", "lost", "elected")));
      assertThat(leader.isLeader()).isTrue();
      assertThat(leader.lease()).as("a new lease: the old one is gone").isNotEqualTo(before);
      assertThat(store.leader()).contains("c1");
      leader.close();
    }
  }
}
