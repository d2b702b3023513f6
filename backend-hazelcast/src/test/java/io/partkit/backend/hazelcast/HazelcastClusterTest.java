package io.partkit.backend.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.PartitioningStrategyConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.partition.InternalPartition;
import com.hazelcast.internal.partition.PartitionReplica;
import com.hazelcast.map.IMap;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.stats.PlacementStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three real members in this JVM (zones a, a, b; zone-aware groups), shared by the tests: key ->
 * partition against the member's partition service, the partkit partitioning strategy on a real
 * map, zone-aware backups, and the assignment snapshot.
 */
class HazelcastClusterTest {

  private static final String MAP = "partkit-routed";
  private static final List<Member> MEMBERS = List.of(
      new Member(NodeId.of("hz-a1"), "", 1, "zone-a", "rack-1"),
      new Member(NodeId.of("hz-a2"), "", 1, "zone-a", "rack-2"),
      new Member(NodeId.of("hz-b1"), "", 2, "zone-b", "rack-1"));

  private static List<HazelcastInstance> members;

  @BeforeAll
  static void startCluster() {
    List<Integer> ports = TestMembers.freePorts(MEMBERS.size());
    String cluster = "partkit-hz-" + UUID.randomUUID();
    List<Config> configs = new ArrayList<>();
    for (int i = 0; i < MEMBERS.size(); i++) {
      Config config = TestMembers.config(cluster, ports.get(i), ports);
      HazelcastMembers.zoneAware(config, MEMBERS.get(i));
      config.getMapConfig(MAP).setBackupCount(1).setPartitioningStrategyConfig(
          new PartitioningStrategyConfig(PartkitPartitioningStrategy.defaults()));
      configs.add(config);
    }
    members = TestMembers.start(configs, MEMBERS.size());
  }

  @AfterAll
  static void stopCluster() {
    if (members != null) {
      TestMembers.shutdown(members);
    }
  }

  @Test
  void placementMatchesTheRealPartitionServiceOnGeneratedKeys() {
    HazelcastPlacement placement = HazelcastPlacement.defaults();
    Random random = new Random(51);
    HazelcastInstance hz = members.get(0);
    for (int i = 0; i < 1500; i++) {
      for (Object key : HazelcastPlacementTest.keys(random)) {
        assertThat(placement.partition(key))
            .as("seed 51, key %s (%s)", HazelcastPlacementTest.describe(key),
                key.getClass().getSimpleName())
            .isEqualTo(hz.getPartitionService().getPartition(key).getPartitionId());
      }
    }
    assertThat(hz.getPartitionService().getPartition("key").getPartitionId()).isEqualTo(80);
    assertThat(hz.getPartitionService().getPartition(1L).getPartitionId()).isEqualTo(110);
  }

  @Test
  void mapWithThePartkitStrategyStoresEveryKeyInItsPartkitPartition() {
    PartkitPartitioningStrategy strategy = PartkitPartitioningStrategy.defaults();
    IMap<Object, String> map = members.get(0).getMap(MAP);
    Random random = new Random(52);
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      keys.add("user-" + random.nextInt(1_000_000));
      keys.add(random.nextLong());
    }
    keys.forEach(k -> map.put(k, "v"));
    // owners are stable once no migration is pending; only then is localKeySet comparable
    TestMembers.awaitTrue(Duration.ofSeconds(30),
        () -> members.get(0).getPartitionService().isClusterSafe(), "cluster safe");
    // the owner of partkit's partition of each key holds it, by the member's own local key set
    Map<NodeId, Set<Object>> expected = new HashMap<>();
    for (Object key : keys) {
      int partition = strategy.partitionOf(key);
      com.hazelcast.cluster.Member owner = members.get(0).getPartitionService()
          .getPartitions().stream().filter(p -> p.getPartitionId() == partition).findFirst()
          .orElseThrow().getOwner();
      expected.computeIfAbsent(HazelcastMembers.toMember(owner).id(), x -> new HashSet<>())
          .add(key);
    }
    for (HazelcastInstance hz : members) {
      NodeId self = HazelcastMembers.toMember(hz.getCluster().getLocalMember()).id();
      Set<Object> local = new HashSet<>(hz.<Object, String>getMap(MAP).localKeySet());
      assertThat(local).as("seed 52, keys owned by %s", self)
          .isEqualTo(expected.getOrDefault(self, Set.of()));
    }
    assertThat(map.size()).isEqualTo(new HashSet<>(keys).size());
  }

  @Test
  void zoneAwareGroupsKeepPrimaryAndBackupInDifferentZones() {
    HazelcastInstance hz = members.get(0);
    members.get(0).getMap(MAP).put("warm-up", "v"); // partitions are assigned on first use
    TestMembers.awaitTrue(Duration.ofSeconds(30), () -> hz.getPartitionService().isClusterSafe(),
        "cluster safe");
    Map<UUID, String> zoneOf = new HashMap<>();
    hz.getCluster().getMembers().forEach(m -> zoneOf.put(m.getUuid(),
        HazelcastMembers.toMember(m).zone()));
    // Hazelcast's public API shows owners only: read the backup replica from its internals
    var partitionService = ((HazelcastInstanceProxy) hz).getOriginal().node.getPartitionService();
    for (int p = 0; p < partitionService.getPartitionCount(); p++) {
      InternalPartition partition = partitionService.getPartition(p);
      PartitionReplica primary = partition.getReplica(0);
      PartitionReplica backup = partition.getReplica(1);
      assertThat(primary).as("partition %d primary", p).isNotNull();
      assertThat(backup).as("partition %d backup", p).isNotNull();
      assertThat(zoneOf.get(backup.uuid())).as("partition %d: backup zone vs primary zone", p)
          .isNotEqualTo(zoneOf.get(primary.uuid()));
    }
  }

  @Test
  void snapshotExposesHazelcastsOwnersAsAPartkitAssignment() {
    HazelcastInstance hz = members.get(0);
    hz.getMap(MAP).put("warm-up", "v");
    PartitionAssignment assignment = TestMembers.awaitValue(Duration.ofSeconds(30),
        () -> HazelcastAssignments.snapshot(hz, 7).orElse(null), "every partition owned");
    assertThat(assignment.partitionCount()).isEqualTo(271);
    assertThat(assignment.epoch()).isEqualTo(7);
    assertThat(assignment.strategy()).isEqualTo(HazelcastAssignments.STRATEGY);
    assertThat(assignment.nodes()).containsExactlyInAnyOrder(NodeId.of("hz-a1"),
        NodeId.of("hz-a2"), NodeId.of("hz-b1"));
    hz.getPartitionService().getPartitions().forEach(p -> assertThat(assignment.primary(
        p.getPartitionId())).as("partition %d", p.getPartitionId())
        .isEqualTo(HazelcastMembers.toMember(p.getOwner()).id()));

    MembershipView view = HazelcastMembers.view(1, hz.getCluster().getMembers());
    assertThat(view.members()).containsExactlyInAnyOrderElementsOf(MEMBERS.stream()
        .map(m -> m.withAddress(view.find(m.id()).orElseThrow().address())).toList());
    // Hazelcast balances partitions across member groups (here zones), not members: zone-b's
    // single member owns about half of them. With its weight of 2 that happens to be balanced.
    PlacementStatistics weighted = PlacementStatistics.of(assignment, view);
    assertThat(weighted.loads()).filteredOn(l -> l.node().equals(NodeId.of("hz-b1")))
        .singleElement().satisfies(l -> assertThat(l.primaryPartitions()).isBetween(133, 138));
    assertThat(weighted.primaryPartitionsMaxOverAvg()).isLessThan(1.05);
    assertThat(PlacementStatistics.of(assignment).primaryPartitionsMaxOverAvg())
        .isGreaterThan(1.4);
  }
}
