package io.partkit.backend.ignite;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.failure.StopNodeFailureHandler;
import org.apache.ignite.logger.NullLogger;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

/**
 * A small Ignite cluster in this JVM: node {@code i} has consistent id {@code ignite-i}, a zone
 * label, a 64 MB data region, small thread pools, no client/REST connectors and
 * {@link StopNodeFailureHandler}.
 *
 * <h2>Ports</h2>
 * Each cluster owns a block of {@value #RANGE} discovery and {@value #RANGE} communication ports
 * on loopback, and each node lets Ignite bind the first free port of each range itself
 * ({@code setLocalPort(base).setLocalPortRange(RANGE)}; the IP finder lists the discovery
 * range). Picking single free ports up front and binding them later (the former
 * {@code freePorts}) raced: those were ephemeral ports, which the kernel hands to any outgoing
 * connection in between, and a node whose one port was taken failed with "Failed to start
 * manager: GridDiscoveryManager". Now:
 * <ul>
 *   <li>blocks lie in {@value #FIRST_PORT}..{@value #END_PORT}, below Linux's ephemeral range
 *       (32768..60999 by default), so no outgoing connection is given one of them;
 *   <li>a port taken anyway is skipped by Ignite, which tries the next one of its range;
 *   <li>concurrent test JVMs (other worktrees' builds) start from different blocks, derived from
 *       the process id, and each skips blocks in which some port is bound, so two clusters do not
 *       share a discovery range (a node would join the other JVM's cluster).
 * </ul>
 * No retries and no sleeps.
 */
final class TestCluster implements AutoCloseable {

  /** Ports per range; a cluster has at most this many nodes. */
  static final int RANGE = 10;
  static final int FIRST_PORT = 12_000;
  static final int END_PORT = 32_000;
  private static final int BLOCKS = (END_PORT - FIRST_PORT) / (2 * RANGE);
  /** Clusters one JVM starts at most before blocks are reused; spaces JVMs' starting blocks. */
  private static final int CLUSTERS_PER_JVM = 4;
  private static final AtomicInteger started = new AtomicInteger();

  private final int discoveryBase;
  private final int communicationBase;
  private final Ignite[] nodes = new Ignite[RANGE];

  private TestCluster(int discoveryBase) {
    this.discoveryBase = discoveryBase;
    this.communicationBase = discoveryBase + RANGE;
  }

  /** A cluster with its own port block and no node yet. */
  static TestCluster create() {
    System.setProperty("IGNITE_UPDATE_NOTIFIER", "false");
    long pid = ProcessHandle.current().pid();
    int first = Math.floorMod(pid * CLUSTERS_PER_JVM + started.getAndIncrement(), BLOCKS);
    for (int i = 0; i < BLOCKS; i++) {
      int base = FIRST_PORT + Math.floorMod(first + i, BLOCKS) * 2 * RANGE;
      if (allFree(base, 2 * RANGE)) {
        return new TestCluster(base);
      }
    }
    throw new IllegalStateException("no block of " + 2 * RANGE + " free loopback ports in "
        + FIRST_PORT + ".." + END_PORT);
  }

  /**
   * Starts the nodes with these indexes in parallel (a thread each: the common pool has one
   * thread on a two-core machine), each with its zone label.
   */
  List<Ignite> start(Map<Integer, String> zoneByIndex) {
    List<CompletableFuture<Ignite>> starting = new ArrayList<>();
    zoneByIndex.forEach((index, zone) -> starting.add(CompletableFuture.supplyAsync(() -> {
      Ignite node = Ignition.start(config(index, zone));
      nodes[index] = node;
      return node;
    }, task -> new Thread(task, "start-ignite-" + index).start())));
    return starting.stream().map(CompletableFuture::join).toList();
  }

  /** The running node with this index. */
  Ignite node(int index) {
    Ignite node = nodes[index];
    if (node == null) {
      throw new IllegalStateException("node " + index + " is not running");
    }
    return node;
  }

  /** The running nodes, by index. */
  List<Ignite> nodes() {
    return Arrays.stream(nodes).filter(Objects::nonNull).toList();
  }

  /** Stops the node with this index (a leave). */
  void stop(int index) {
    node(index).close();
    nodes[index] = null;
  }

  @Override
  public void close() {
    IntStream.range(0, RANGE).parallel().filter(i -> nodes[i] != null).forEach(this::stop);
  }

  private IgniteConfiguration config(int index, String zone) {
    IgniteConfiguration config = new IgniteConfiguration()
        .setIgniteInstanceName("partkit-ignite-test-" + discoveryBase + "-" + index)
        .setConsistentId("ignite-" + index)
        // Ignite's work directory (marshaller mappings, a README) defaults to ./ignite
        .setWorkDirectory(Path.of("target", "ignite-work").toAbsolutePath().toString())
        .setUserAttributes(Map.of(PartkitAffinityFunction.ZONE_ATTRIBUTE, zone))
        .setFailureHandler(new StopNodeFailureHandler())
        // to see Ignite's log: new org.apache.ignite.logger.java.JavaLogger()
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
        .setLocalPort(discoveryBase).setLocalPortRange(RANGE)
        .setIpFinder(new TcpDiscoveryVmIpFinder().setAddresses(List.of(
            "127.0.0.1:" + discoveryBase + ".." + (discoveryBase + RANGE - 1)))));
    TcpCommunicationSpi communication = new TcpCommunicationSpi();
    communication.setLocalPort(communicationBase);
    communication.setLocalPortRange(RANGE);
    config.setCommunicationSpi(communication);
    return config;
  }

  /** Whether every port of {@code base..base+count-1} can be bound on loopback right now. */
  private static boolean allFree(int base, int count) {
    for (int port = base; port < base + count; port++) {
      try {
        // a probe only: Ignite binds the ports itself, with its range fallback
        new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }
}
