package io.partkit.bench;

import io.partkit.spi.MembershipView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.ignite.cache.CacheMetrics;
import org.apache.ignite.cache.affinity.AffinityFunctionContext;
import org.apache.ignite.cache.affinity.rendezvous.RendezvousAffinityFunction;
import org.apache.ignite.cluster.ClusterMetrics;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.events.DiscoveryEvent;
import org.apache.ignite.internal.ClusterMetricsSnapshot;
import org.apache.ignite.internal.processors.affinity.AffinityTopologyVersion;
import org.apache.ignite.lang.IgniteProductVersion;
import org.apache.ignite.spi.discovery.DiscoveryMetricsProvider;
import org.apache.ignite.spi.discovery.tcp.internal.TcpDiscoveryNode;

/**
 * Ignite 2.x's default placement, the real {@code RendezvousAffinityFunction} from ignite-core,
 * driven without starting a node: {@code assignPartitions} gets an {@link AffinityFunctionContext}
 * over real {@link TcpDiscoveryNode}s (the class Ignite's discovery builds for every member) whose
 * {@code consistentId} is the member's id, in join order, as a topology snapshot is. Key ->
 * partition is the function's own {@code partition(key)} on the boxed {@code Long} key.
 *
 * <p>It has no weights (every node gets the same expected share).
 */
final class IgniteSubject implements Subject {

  private static final IgniteProductVersion VERSION = IgniteProductVersion.fromString("2.18.0");

  private final int partitions;
  private final RendezvousAffinityFunction function;
  private final TablePlacement.KeyPartitioner keyPartitioner;

  IgniteSubject(int partitions) {
    this.partitions = partitions;
    this.function = new RendezvousAffinityFunction(false, partitions);
    RendezvousAffinityFunction f = function;
    this.keyPartitioner = new TablePlacement.KeyPartitioner(f::partition);
  }

  @Override
  public String name() {
    return "ignite-rendezvous";
  }

  @Override
  public String description() {
    return "Ignite 2.18 RendezvousAffinityFunction (ignite-core), " + partitions
        + " partitions, assignPartitions over TcpDiscoveryNode topology";
  }

  @Override
  public Optional<String> unsupported(int nodes, Weights weights, int replicas) {
    return weights == Weights.EQUAL ? Optional.empty()
        : Optional.of("RendezvousAffinityFunction has no node weights");
  }

  @Override
  public Placement place(MembershipView view, int replicas, Optional<Placement> previous) {
    List<ClusterNode> topology = new ArrayList<>(view.size());
    for (int i = 0; i < view.size(); i++) {
      String id = view.member(i).id().value();
      TcpDiscoveryNode node = new TcpDiscoveryNode(
          UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8)), List.of("127.0.0.1"),
          List.of("localhost"), 47500 + i, NoMetrics.INSTANCE, VERSION, id);
      node.order(i + 1L);
      topology.add(node);
    }
    List<List<ClusterNode>> assignment = function.assignPartitions(
        new Context(topology, replicas - 1, view.version() + 1));
    int rf = Math.min(replicas, view.size());
    int[] table = new int[partitions * rf];
    ClusterNode[] primaries = new ClusterNode[partitions];
    for (int p = 0; p < partitions; p++) {
      List<ClusterNode> owners = assignment.get(p);
      primaries[p] = owners.get(0);
      for (int r = 0; r < rf; r++) {
        table[p * rf + r] = (int) (owners.get(r).order() - 1);
      }
    }
    RendezvousAffinityFunction f = function;
    return new TablePlacement(view, partitions, rf, table, keyPartitioner,
        key -> primaries[f.partition(key)]);
  }

  /** The context Ignite's exchange builds, reduced to what the function reads. */
  private static final class Context implements AffinityFunctionContext {
    private final List<ClusterNode> topology;
    private final int backups;
    private final long version;

    Context(List<ClusterNode> topology, int backups, long version) {
      this.topology = Collections.unmodifiableList(topology);
      this.backups = backups;
      this.version = version;
    }

    @Override
    public List<ClusterNode> previousAssignment(int part) {
      return null; // the rendezvous function does not read it
    }

    @Override
    public int backups() {
      return backups;
    }

    @Override
    public List<ClusterNode> currentTopologySnapshot() {
      return topology;
    }

    @Override
    public AffinityTopologyVersion currentTopologyVersion() {
      return new AffinityTopologyVersion(version);
    }

    @Override
    public DiscoveryEvent discoveryEvent() {
      return null;
    }
  }

  /** Discovery metrics are not read by the affinity function. */
  private enum NoMetrics implements DiscoveryMetricsProvider {
    INSTANCE;

    @Override
    public ClusterMetrics metrics() {
      return new ClusterMetricsSnapshot();
    }

    @Override
    public Map<Integer, CacheMetrics> cacheMetrics() {
      return Map.of();
    }
  }
}
