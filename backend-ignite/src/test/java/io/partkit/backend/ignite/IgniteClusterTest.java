package io.partkit.backend.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.IgniteIllegalStateException;
import org.apache.ignite.cache.CachePeekMode;
import org.apache.ignite.cache.affinity.Affinity;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real Ignite nodes in this JVM ({@link TestCluster}), one cluster per strategy: a cache with
 * {@link PartkitAffinityFunction} keeps every key where the real partkit strategy's table says,
 * on two nodes, after a third joins, and after the coordinator leaves.
 *
 * <p>The expected tables replay the cache's history through the strategy, as Ignite does: the
 * cache is created on two nodes (no previous table), the join builds on the two-node table, the
 * leave on the three-node one. For {@code fixed} (history-dependent) the three-node table is not
 * the one computed from scratch, so a node that lost the history (the joiner, before the
 * adapter was a {@code @AffinityCentralizedFunction}) would show here, as a wrong table or a
 * node stopped on Ignite's "Unexpected rebalance on rebalanced cluster" assertion. Leaving with
 * the coordinator ({@code ignite-0}) makes the joiner compute the next table from the history it
 * was handed.
 */
class IgniteClusterTest {

  private static final String CACHE = "partkit";
  private static final int PARTITIONS = 64;
  private static final PartitionerConfig OPTIONS = PartitionerConfig.of("partitions", PARTITIONS);
  private static final int BACKUPS = 1;
  private static final long SEED = 71;
  private static final Duration SETTLE = Duration.ofSeconds(60);

  @ParameterizedTest(name = "{0}")
  @CsvSource({"fixed, true", "rendezvous, false"})
  void cacheFollowsTheStrategyThroughAJoinAndALeave(String strategy, boolean historyDependent) {
    Partitioner partitioner = Partitioners.load()
        .create(strategy, OPTIONS.with("replicas", BACKUPS + 1));
    PartkitAffinityFunction function = PartkitAffinityFunction.of(strategy, OPTIONS);
    List<Object> keys = keys();
    try (TestCluster cluster = TestCluster.create()) {
      cluster.start(Map.of(0, "zone-a", 1, "zone-b"));
      cluster.node(0).getOrCreateCache(new CacheConfiguration<Object, String>(CACHE)
          .setBackups(BACKUPS).setAffinity(function));
      Affinity<Object> affinity = cluster.node(0).affinity(CACHE);
      assertThat(affinity.partitions()).isEqualTo(PARTITIONS);
      for (Object key : keys) {
        assertThat(affinity.partition(key)).as("seed %d, key %s", SEED, key)
            .isEqualTo(function.partition(key));
      }

      PartitionAssignment two = partitioner.assign(view(cluster), Optional.empty());
      awaitPlacement(cluster, two, "2 nodes");
      IgniteCache<Object, String> cache = cluster.node(0).cache(CACHE);
      keys.forEach(k -> cache.put(k, "v-" + k));
      assertKeysOnTheirPrimaries(cluster, keys, function, two, "2 nodes");

      cluster.start(Map.of(2, "zone-a"));
      MembershipView threeNodes = view(cluster);
      PartitionAssignment three = partitioner.assign(threeNodes, Optional.of(two));
      assertThat(three.samePlacementAs(partitioner.assign(threeNodes)))
          .as("%s: the 3-node table depends on the history", strategy)
          .isEqualTo(!historyDependent);
      awaitPlacement(cluster, three, "the join of ignite-2");
      assertKeysOnTheirPrimaries(cluster, keys, function, three, "the join of ignite-2");
      assertEveryKeyReadable(cluster.node(2), keys, "the join of ignite-2");

      cluster.stop(0);
      PartitionAssignment afterLeave = partitioner.assign(view(cluster), Optional.of(three));
      awaitPlacement(cluster, afterLeave, "the leave of ignite-0");
      assertKeysOnTheirPrimaries(cluster, keys, function, afterLeave, "the leave of ignite-0");
      assertEveryKeyReadable(cluster.node(2), keys, "the leave of ignite-0");
    }
  }

  /** 1,500 seeded String, Long and Integer keys. */
  private static List<Object> keys() {
    Random random = new Random(SEED);
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      keys.add("user-" + random.nextInt(1_000_000));
      keys.add(random.nextLong());
      keys.add(random.nextInt());
    }
    return keys;
  }

  /** The running nodes as partkit members, the way the adapter sees them. */
  private static MembershipView view(TestCluster cluster) {
    List<Member> members = new ArrayList<>();
    for (Ignite node : cluster.nodes()) {
      members.add(PartkitAffinityFunction.toMember(node.cluster().localNode()));
    }
    return MembershipView.of(0, members);
  }

  /**
   * Polls until every node's current owners of every partition are the expected table's:
   * rebalancing has ended and each node has switched to the new affinity (late affinity
   * assignment switches only once the new owners hold the data).
   */
  private static void awaitPlacement(TestCluster cluster, PartitionAssignment expected,
      String after) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    String mismatch;
    while ((mismatch = firstMismatch(cluster, expected)) != null) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + SETTLE + " waiting for every node's owners"
            + " to match the strategy's table after " + after + "; still " + mismatch);
      }
      try {
        Thread.sleep(20); // polling interval of a condition with a deadline, not a wait for time
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for the table after " + after, e);
      }
    }
  }

  /** The first partition some node maps elsewhere than {@code expected}, or null. */
  private static String firstMismatch(TestCluster cluster, PartitionAssignment expected) {
    for (Ignite node : cluster.nodes()) {
      try {
        Affinity<Object> affinity = node.affinity(CACHE);
        for (int p = 0; p < PARTITIONS; p++) {
          List<NodeId> actual = ids(affinity.mapPartitionToPrimaryAndBackups(p));
          if (!actual.equals(expected.replicas(p))) {
            return "partition " + p + " on " + name(node) + ": " + actual + ", expected "
                + expected.replicas(p);
          }
        }
      } catch (IgniteIllegalStateException e) {
        throw new AssertionError("node " + node.name() + " stopped itself while waiting for the "
            + "table (StopNodeFailureHandler; enable Ignite's log in TestCluster to see why)", e);
      }
    }
    return null;
  }

  private static void assertKeysOnTheirPrimaries(TestCluster cluster, List<Object> keys,
      PartkitAffinityFunction function, PartitionAssignment expected, String after) {
    for (Ignite node : cluster.nodes()) {
      Affinity<Object> affinity = node.affinity(CACHE);
      for (Object key : keys) {
        NodeId primary = expected.primary(function.partition(key));
        ClusterNode mapped = affinity.mapKeyToNode(key);
        assertThat(String.valueOf(mapped.consistentId()))
            .as("seed %d, key %s after %s, mapped on %s", SEED, key, after, name(node))
            .isEqualTo(primary.value());
      }
    }
    for (Object key : keys) {
      NodeId primary = expected.primary(function.partition(key));
      Ignite owner = cluster.nodes().stream().filter(n -> name(n).equals(primary.value()))
          .findFirst().orElseThrow();
      assertThat(owner.cache(CACHE).localPeek(key, CachePeekMode.PRIMARY))
          .as("seed %d, key %s on its primary %s after %s", SEED, key, primary, after)
          .isEqualTo("v-" + key);
    }
  }

  private static void assertEveryKeyReadable(Ignite node, List<Object> keys, String after) {
    IgniteCache<Object, String> cache = node.cache(CACHE);
    for (Object key : keys) {
      assertThat(cache.get(key)).as("seed %d, key %s read on %s after %s", SEED, key,
          name(node), after).isEqualTo("v-" + key);
    }
  }

  private static List<NodeId> ids(Collection<ClusterNode> nodes) {
    return nodes.stream().map(n -> NodeId.of(String.valueOf(n.consistentId()))).toList();
  }

  private static String name(Ignite node) {
    return String.valueOf(node.cluster().localNode().consistentId());
  }
}
