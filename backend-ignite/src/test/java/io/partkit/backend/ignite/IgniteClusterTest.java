package io.partkit.backend.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.Ignition;
import org.apache.ignite.cache.CachePeekMode;
import org.apache.ignite.cache.affinity.Affinity;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.failure.StopNodeFailureHandler;
import org.apache.ignite.logger.NullLogger;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real Ignite nodes in this JVM (loopback discovery on free ports, small data regions,
 * {@link StopNodeFailureHandler}): a cache with {@link PartkitAffinityFunction} keeps every key
 * where the partkit strategy's table says, before and after a node joins. The join is inside the
 * one test so that the shared cluster's state never depends on test order.
 */
class IgniteClusterTest {

  private static final String CACHE = "partkit";
  private static final PartitionerConfig OPTIONS = PartitionerConfig.of("partitions", 64);
  private static final int BACKUPS = 1;

  private static final List<Ignite> nodes = new ArrayList<>();
  private static List<Integer> discoveryPorts;
  private static List<Integer> communicationPorts;

  @BeforeAll
  static void startTwoNodes() {
    System.setProperty("IGNITE_UPDATE_NOTIFIER", "false");
    List<Integer> ports = freePorts(6);
    discoveryPorts = ports.subList(0, 3);
    communicationPorts = ports.subList(3, 6);
    List<CompletableFuture<Ignite>> starting = List.of(
        CompletableFuture.supplyAsync(() -> Ignition.start(config(0, "zone-a"))),
        CompletableFuture.supplyAsync(() -> Ignition.start(config(1, "zone-b"))));
    starting.forEach(f -> nodes.add(f.join()));
    nodes.get(0).getOrCreateCache(new CacheConfiguration<Object, String>(CACHE)
        .setBackups(BACKUPS)
        .setAffinity(PartkitAffinityFunction.of("test-modulo", OPTIONS)));
  }

  @AfterAll
  static void stopNodes() {
    nodes.parallelStream().forEach(Ignite::close);
  }

  @Test
  void cachePlacesKeysWhereTheStrategySaysAndFollowsItAfterAJoin() {
    Ignite first = nodes.get(0);
    IgniteCache<Object, String> cache = first.cache(CACHE);
    Affinity<Object> affinity = first.affinity(CACHE);
    assertThat(affinity.partitions()).isEqualTo(64);

    Random random = new Random(71);
    List<Object> keys = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      keys.add("user-" + random.nextInt(1_000_000));
      keys.add(random.nextLong());
      keys.add(random.nextInt());
    }
    PartkitAffinityFunction function = PartkitAffinityFunction.of("test-modulo", OPTIONS);
    for (Object key : keys) {
      assertThat(affinity.partition(key)).as("seed 71, key %s", key)
          .isEqualTo(function.partition(key));
    }

    awaitPlacement(2);
    keys.forEach(k -> cache.put(k, "v-" + k));
    assertPrimariesHoldTheirKeys(keys, 2);

    Ignite third = Ignition.start(config(2, "zone-a"));
    nodes.add(third);
    awaitPlacement(3);
    assertPrimariesHoldTheirKeys(keys, 3);
    for (Object key : keys) {
      assertThat(third.cache(CACHE).get(key)).as("seed 71, key %s after the join", key)
          .isEqualTo("v-" + key);
    }
  }

  /** The strategy's table for the current nodes, computed by partkit alone. */
  private static PartitionAssignment expected(int nodeCount) {
    List<Member> members = new ArrayList<>();
    for (Ignite ignite : nodes.subList(0, nodeCount)) {
      members.add(PartkitAffinityFunction.toMember(ignite.cluster().localNode()));
    }
    return new TestStrategies.Modulo().create(OPTIONS.with("replicas", BACKUPS + 1))
        .assign(MembershipView.of(0, members));
  }

  /**
   * Polls until every node's current owners of every partition are the strategy's: rebalancing
   * has ended and each node has switched to the new affinity (they switch one after another).
   */
  private static void awaitPlacement(int nodeCount) {
    PartitionAssignment expected = expected(nodeCount);
    awaitTrue(Duration.ofSeconds(60), () -> {
      for (Ignite node : nodes) {
        Affinity<Object> affinity = node.affinity(CACHE);
        for (int p = 0; p < 64; p++) {
          List<NodeId> actual = affinity.mapPartitionToPrimaryAndBackups(p).stream()
              .map(n -> NodeId.of(String.valueOf(n.consistentId()))).toList();
          if (!actual.equals(expected.replicas(p))) {
            return false;
          }
        }
      }
      return true;
    }, "every node's owners to match the strategy's table on " + nodeCount + " nodes");
  }

  private static void assertPrimariesHoldTheirKeys(List<Object> keys, int nodeCount) {
    PartitionAssignment expected = expected(nodeCount);
    PartkitAffinityFunction function = PartkitAffinityFunction.of("test-modulo", OPTIONS);
    for (Object key : keys) {
      NodeId primary = expected.primary(function.partition(key));
      ClusterNode mapped = nodes.get(0).affinity(CACHE).mapKeyToNode(key);
      assertThat(String.valueOf(mapped.consistentId())).as("seed 71, key %s", key)
          .isEqualTo(primary.value());
      Ignite owner = nodes.stream()
          .filter(n -> n.cluster().localNode().consistentId().equals(primary.value()))
          .findFirst().orElseThrow();
      assertThat(owner.cache(CACHE).localPeek(key, CachePeekMode.PRIMARY))
          .as("seed 71, key %s on its primary %s", key, primary).isEqualTo("v-" + key);
    }
  }

  private static IgniteConfiguration config(int index, String zone) {
    List<String> addresses = discoveryPorts.stream().map(p -> "127.0.0.1:" + p).toList();
    IgniteConfiguration config = new IgniteConfiguration()
        .setIgniteInstanceName("partkit-ignite-test-" + index + "-" + discoveryPorts.get(0))
        .setConsistentId("ignite-" + index)
        .setUserAttributes(Map.of(PartkitAffinityFunction.ZONE_ATTRIBUTE, zone))
        .setFailureHandler(new StopNodeFailureHandler())
        .setGridLogger(new NullLogger())
        .setMetricsLogFrequency(0)
        .setLocalHost("127.0.0.1")
        .setClientConnectorConfiguration(null)
        .setConnectorConfiguration(null)
        .setPublicThreadPoolSize(2)
        .setSystemThreadPoolSize(2)
        .setStripedPoolSize(2)
        .setQueryThreadPoolSize(1)
        .setServiceThreadPoolSize(1)
        .setDataStreamerThreadPoolSize(1)
        .setManagementThreadPoolSize(1)
        .setPeerClassLoadingThreadPoolSize(1)
        .setUtilityCachePoolSize(1)
        .setAsyncCallbackPoolSize(1)
        .setRebalanceThreadPoolSize(1)
        .setDataStorageConfiguration(new DataStorageConfiguration()
            .setDefaultDataRegionConfiguration(new DataRegionConfiguration()
                .setInitialSize(32L << 20).setMaxSize(64L << 20)));
    config.setDiscoverySpi(new TcpDiscoverySpi()
        .setLocalPort(discoveryPorts.get(index)).setLocalPortRange(0)
        .setIpFinder(new TcpDiscoveryVmIpFinder().setAddresses(addresses)));
    TcpCommunicationSpi communication = new TcpCommunicationSpi();
    communication.setLocalPort(communicationPorts.get(index));
    communication.setLocalPortRange(0);
    config.setCommunicationSpi(communication);
    return config;
  }

  private static List<Integer> freePorts(int n) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (ServerSocket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // a socket that never accepted: nothing to recover
        }
      }
    }
  }

  private static void awaitTrue(Duration timeout, BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(20); // polling interval of a condition with a deadline, not a wait for time
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }
}
