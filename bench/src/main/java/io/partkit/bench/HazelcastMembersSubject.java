package io.partkit.bench;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.partition.InternalPartition;
import com.hazelcast.internal.partition.InternalPartitionService;
import com.hazelcast.internal.partition.PartitionReplica;
import com.hazelcast.partition.PartitionService;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Hazelcast's partition -> member assignment as real embedded members compute it: members run in
 * this JVM (TCP-IP join on 127.0.0.1, multicast off, logging off), the harness starts and shuts
 * them down to follow each membership change, waits until the cluster is safe (migrations done)
 * and reads the partition table from the members. Only for clusters up to
 * {@code maxMembers} members (each member costs threads and tens of MB); larger sizes are
 * reported as not measured. Key -> partition and the client lookup are Hazelcast's own
 * ({@code PartitionService.getPartition(key).getOwner()}).
 */
final class HazelcastMembersSubject implements Subject {

  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(120);
  private static final java.util.concurrent.atomic.AtomicInteger STARTS =
      new java.util.concurrent.atomic.AtomicInteger();

  private final int partitions;
  private final int maxMembers;
  private final String clusterName;
  private final HazelcastSubject keys;
  private final TreeMap<NodeId, HazelcastInstance> running = new TreeMap<>();
  private final Map<NodeId, Integer> ports = new HashMap<>();

  HazelcastMembersSubject(int partitions, int maxMembers, long seed) {
    this.partitions = partitions;
    this.maxMembers = maxMembers;
    this.clusterName = "partkit-bench-" + ProcessHandle.current().pid() + "-" + seed;
    this.keys = new HazelcastSubject(partitions);
  }

  @Override
  public String name() {
    return "hazelcast-members";
  }

  @Override
  public String description() {
    return "Hazelcast 5.7 embedded members (in-JVM, TCP-IP on 127.0.0.1), " + partitions
        + " partitions, table read from the members; clusters of at most " + maxMembers
        + " members";
  }

  @Override
  public Optional<String> unsupported(int nodes, Weights weights, int replicas) {
    if (weights != Weights.EQUAL) {
      return Optional.of("Hazelcast has no member weights");
    }
    if (nodes > maxMembers) {
      return Optional.of("embedded members only up to " + maxMembers
          + " (--hazelcast-members); see 'hazelcast' for this size");
    }
    return Optional.empty();
  }

  @Override
  public boolean planningMeasurable() {
    return false;
  }

  @Override
  public boolean stateful() {
    return true;
  }

  @Override
  public synchronized Placement place(MembershipView view, int replicas,
      Optional<Placement> previous) {
    try {
      reconcile(view);
    } catch (RuntimeException e) {
      close(); // start the next combination from a clean slate
      throw e;
    }
    HazelcastInstance any = running.firstEntry().getValue();
    InternalPartitionService service =
        ((HazelcastInstanceProxy) any).getOriginal().node.getPartitionService();
    Map<Integer, Integer> indexByPort = new HashMap<>();
    for (int i = 0; i < view.size(); i++) {
      indexByPort.put(ports.get(view.member(i).id()), i);
    }
    int rf = Math.min(replicas, view.size());
    int[] table = new int[partitions * rf];
    for (int p = 0; p < partitions; p++) {
      InternalPartition partition = service.getPartition(p);
      for (int r = 0; r < rf; r++) {
        PartitionReplica replica = partition.getReplica(r);
        if (replica == null) {
          throw new IllegalStateException("replica " + r + " of partition " + p
              + " is unassigned with " + view.size() + " members");
        }
        table[p * rf + r] = indexByPort.get(replica.address().getPort());
      }
    }
    PartitionService clientView = any.getPartitionService();
    return new TablePlacement(view, partitions, rf, table, keys.keyPartitioner(),
        key -> clientView.getPartition(key).getOwner());
  }

  /** Starts and stops members until exactly the view's members run, then waits for safety. */
  private void reconcile(MembershipView view) {
    List<NodeId> toStop = new ArrayList<>();
    for (NodeId id : running.keySet()) {
      if (!view.contains(id)) {
        toStop.add(id);
      }
    }
    for (NodeId id : toStop) {
      running.remove(id).shutdown(); // graceful: what an operator's rolling leave does
    }
    List<NodeId> toStart = new ArrayList<>();
    for (NodeId id : view.ids()) {
      if (!running.containsKey(id)) {
        toStart.add(id);
      }
    }
    for (NodeId id : toStart) {
      ports.computeIfAbsent(id, i -> freePort());
    }
    if (running.isEmpty() && !toStart.isEmpty()) {
      NodeId first = toStart.remove(0); // the first member forms the cluster alone
      running.put(first, start(first, List.of()));
    }
    // the others join through the members already running, in parallel
    List<Integer> seeds = running.keySet().stream().map(ports::get).toList();
    List<CompletableFuture<Map.Entry<NodeId, HazelcastInstance>>> starting = new ArrayList<>();
    for (NodeId id : toStart) {
      int port = ports.get(id);
      starting.add(CompletableFuture.supplyAsync(() -> Map.entry(id, start(id, port, seeds))));
    }
    for (var f : starting) {
      var e = f.join();
      running.put(e.getKey(), e.getValue());
    }
    awaitSafe(view.size());
  }

  private HazelcastInstance start(NodeId id, List<Integer> seeds) {
    return start(id, ports.get(id), seeds);
  }

  private HazelcastInstance start(NodeId id, int port, List<Integer> seeds) {
    Config config = new Config();
    config.setClusterName(clusterName);
    config.setInstanceName(clusterName + "-" + id.value() + "-" + STARTS.incrementAndGet());
    config.setProperty("hazelcast.partition.count", Integer.toString(partitions));
    config.setProperty("hazelcast.logging.type", "none");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true);
    for (int seed : seeds) {
      join.getTcpIpConfig().addMember("127.0.0.1:" + seed);
    }
    join.getTcpIpConfig().addMember("127.0.0.1:" + port);
    return Hazelcast.newHazelcastInstance(config);
  }

  private void awaitSafe(int members) {
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    while (true) {
      boolean settled = true;
      for (HazelcastInstance hz : running.values()) {
        settled &= hz.getCluster().getMembers().size() == members
            && hz.getPartitionService().isClusterSafe();
      }
      if (settled) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Hazelcast cluster of " + members
            + " members not safe after " + SETTLE_TIMEOUT.toSeconds() + " s");
      }
      try {
        Thread.sleep(50); // polling a condition with a deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for Hazelcast", e);
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  @Override
  public synchronized void close() {
    running.values().forEach(HazelcastInstance::shutdown);
    running.clear();
  }
}
