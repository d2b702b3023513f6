package io.partkit.backend.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** Small, fast, loopback-only Hazelcast members for tests, started in parallel. */
final class TestMembers {

  private TestMembers() {}

  /** {@code n} free loopback ports (bound and released; the tests start right after). */
  static List<Integer> freePorts(int n) {
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
          // closing a listening socket that never accepted: nothing to recover
        }
      }
    }
  }

  /**
   * A member config: TCP-IP join over {@code allPorts} on 127.0.0.1, multicast and auto
   * detection off, logging off, no phone-home, no join delays.
   */
  static Config config(String clusterName, int port, List<Integer> allPorts) {
    Config config = new Config();
    config.setClusterName(clusterName);
    config.setInstanceName(clusterName + "-" + port);
    config.setProperty("hazelcast.logging.type", "none");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    config.setProperty("hazelcast.socket.bind.any", "false");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(port).setPortAutoIncrement(false);
    network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true);
    for (int p : allPorts) {
      join.getTcpIpConfig().addMember("127.0.0.1:" + p);
    }
    return config;
  }

  /** Starts one member per config, in parallel, and waits for the cluster to have them all. */
  static List<HazelcastInstance> start(List<Config> configs, int expectedClusterSize) {
    List<CompletableFuture<HazelcastInstance>> futures = configs.stream()
        .map(c -> CompletableFuture.supplyAsync(() -> Hazelcast.newHazelcastInstance(c)))
        .toList();
    List<HazelcastInstance> members = futures.stream().map(CompletableFuture::join).toList();
    awaitTrue(Duration.ofSeconds(60), () -> members.stream()
        .allMatch(m -> m.getCluster().getMembers().size() == expectedClusterSize),
        "cluster of " + expectedClusterSize);
    return members;
  }

  /** Polls {@code condition} until it holds or the deadline passes (then fails naming it). */
  static void awaitTrue(Duration timeout, BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(20); // polling interval of a condition with a deadline, not a wait for time
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  /** Polls until {@code f} returns a non-null value. */
  static <T> T awaitValue(Duration timeout, java.util.function.Supplier<T> f, String what) {
    Object[] box = new Object[1];
    awaitTrue(timeout, () -> (box[0] = f.get()) != null, what);
    @SuppressWarnings("unchecked")
    T value = (T) box[0];
    return value;
  }

  static void shutdown(List<HazelcastInstance> members) {
    members.parallelStream().forEach(HazelcastInstance::shutdown);
  }

  static <T> List<T> map(List<HazelcastInstance> members, Function<HazelcastInstance, T> f) {
    return members.stream().map(f).toList();
  }
}
