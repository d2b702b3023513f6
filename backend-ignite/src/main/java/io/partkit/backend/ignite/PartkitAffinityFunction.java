package io.partkit.backend.ignite;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.ignite.cache.affinity.AffinityCentralizedFunction;
import org.apache.ignite.cache.affinity.AffinityFunction;
import org.apache.ignite.cache.affinity.AffinityFunctionContext;
import org.apache.ignite.cluster.ClusterNode;

/**
 * An Ignite {@link AffinityFunction} that runs a partkit strategy: Ignite's caches then place
 * partitions, primaries and backups exactly where the strategy's {@link PartitionAssignment}
 * says. A thin adapter, as the SPI was shaped for:
 * <ul>
 *   <li>{@link #partitions()}: the partition count of the strategy's
 *       {@link Partitioner#fixedScheme()}; a strategy without one (a token ring) is rejected
 *       when the function is created.
 *   <li>{@link #partition(Object)}: partkit's stable key hash, not Java's {@code hashCode()}:
 *       {@code String} as UTF-8, {@code Long} and {@code Integer} as the 8 big-endian bytes of
 *       the widened {@code long}, {@code byte[]} as is, through the strategy's
 *       {@link Partitioner#fixedScheme()}, known without assigning anything. Other key types
 *       are rejected: Ignite hands binary objects over with a hash code that is not a stable,
 *       documented format. Route such keys by an
 *       {@code @AffinityKeyMapped} field of a supported type (Ignite's affinity key mapper
 *       extracts it before calling this function).
 *   <li>{@link #assignPartitions}: a {@link MembershipView} of the topology by consistent id
 *       (its {@code String.valueOf}); weight, zone and rack from the node attributes
 *       {@value #WEIGHT_ATTRIBUTE}, {@value #ZONE_ATTRIBUTE}, {@value #RACK_ATTRIBUTE}
 *       ({@code IgniteConfiguration.setUserAttributes}); the previous assignment from the
 *       context; replicas {@code backups + 1}, at most the node count, passed to
 *       {@link Partitioner#place} per call (one strategy instance serves every backup count).
 *       Replica lists come back primary first; the epoch is not used (Ignite versions
 *       assignments by topology).
 * </ul>
 *
 * <p>Ignite requires an affinity function to be serializable, present on every node and
 * deterministic from its inputs. Only the strategy name, its options and the partition count
 * travel; each node finds the strategy through {@link Partitioners} (its jar must be on every
 * node's classpath) and creates it lazily. The partition count is checked again there: Ignite
 * refuses a node whose caches announce another count.
 *
 * <h2>History-dependent strategies ({@code fixed}): why {@link AffinityCentralizedFunction}</h2>
 * A minimal-move strategy's table is a function of the topology <em>and the previous table</em>,
 * so every node must be handed the same previous table. Read from Ignite 2.18's
 * {@code GridAffinityAssignmentCache.calculate} and {@code CacheAffinitySharedManager}:
 * <ul>
 *   <li>The previous assignment in the context is always the group's previous <em>ideal</em>
 *       assignment ({@code GridAffinityAssignmentCache.idealAssignment}), never the late-affinity
 *       table in force while rebalancing; the late-affinity switch ({@code x.1} after a join,
 *       {@code onChangeAffinityMessage}) installs that ideal table without calling this function.
 *       Nodes that went through the same exchanges hold the same ideal history, so they agree.
 *   <li>A node that <em>joins</em> has no history. For an ordinary function it computes its
 *       ideal table itself, with no previous assignment ({@code onLocalJoin}, {@code
 *       fetchAffinity}: "calculate ideal assignments"): for a history-dependent strategy that
 *       is the first-table layout, not the minimal-move table the others computed. At the
 *       switch the joiner then installs another table than the rest of the cluster and Ignite
 *       fails with "Unexpected rebalance on rebalanced cluster" ({@code GridDhtPreloader}).
 *   <li>For a function annotated {@link AffinityCentralizedFunction} ("requires previous
 *       affinity state in order to calculate new one", its Javadoc), the coordinator ships its
 *       ideal table to the joiner ({@code CacheGroupAffinityMessage}, {@code
 *       GridDhtAffinityAssignmentResponse.idealAffinityAssignment}); the joiner adopts it as its
 *       history and computes later tables from it like everyone else.
 * </ul>
 * So the class carries the annotation, and {@link #assignPartitions} keeps no node-local state:
 * its table is a pure function of what Ignite hands it (the topology and the previous ideal
 * table), which is what makes it equal on every node and on every call with those inputs. A
 * memo of "same members, same table" would not help: a joiner has no memo, and after a leave
 * and a re-join the same members rightly get another table.
 *
 * <p>Ignite also recalculates on some custom events (activation, a snapshot that reassigns,
 * resetting lost partitions, a baseline change) with the same members and the current ideal
 * table as previous. Nodes agree there too (all recalculate alike); to move nothing, the
 * strategy must keep a table that is already right: {@code assign(view, assign(view, x))} equal
 * to {@code assign(view, x)}. {@code fixed} does without zone labels (tested here); with uneven
 * zones it can move a few backups once more (a counterexample is in
 * {@code PartkitAffinityFunctionTest}). Stateless strategies ({@code rendezvous}) satisfy all of
 * this trivially; for them the annotation only makes a joiner fetch the table instead of
 * computing it.
 *
 * <pre>{@code
 * new CacheConfiguration<String, byte[]>("users").setBackups(1).setAffinity(
 *     PartkitAffinityFunction.of("fixed", PartitionerConfig.of("partitions", 1024)));
 * }</pre>
 */
@AffinityCentralizedFunction
public final class PartkitAffinityFunction implements AffinityFunction {

  private static final long serialVersionUID = 1L;

  /** Node attribute with the partkit weight (an integer 1..1000; 1 when absent). */
  public static final String WEIGHT_ATTRIBUTE = "partkit.weight";
  /** Node attribute with the zone label. */
  public static final String ZONE_ATTRIBUTE = "partkit.zone";
  /** Node attribute with the rack label. */
  public static final String RACK_ATTRIBUTE = "partkit.rack";

  private final String strategy;
  private final TreeMap<String, String> options;
  private final int partitions;

  /** Resolved on each node after deserialization. */
  private transient volatile Partitioner partitioner;
  private transient volatile PartitionScheme scheme;

  private PartkitAffinityFunction(String strategy, TreeMap<String, String> options,
      int partitions) {
    this.strategy = strategy;
    this.options = options;
    this.partitions = partitions;
  }

  /**
   * An affinity function running the named strategy with the given options ({@code replicas}
   * is set from the cache's backups and must not be given).
   *
   * @throws io.partkit.spi.UnknownStrategyException if no strategy has that name
   * @throws io.partkit.spi.InvalidConfigurationException if the strategy rejects the options
   * @throws IllegalArgumentException if the options set {@code replicas}, or the strategy has
   *     no fixed partition count
   */
  public static PartkitAffinityFunction of(String strategy, PartitionerConfig options) {
    requireNonNull(strategy, "strategy");
    requireNonNull(options, "options");
    if (options.get("replicas").isPresent()) {
      throw new IllegalArgumentException("replicas is set from the cache's backups (backups + 1); "
          + "remove it from the options: " + options);
    }
    Partitioner partitioner = Partitioners.load().create(strategy, options);
    Optional<PartitionScheme> scheme = partitioner.fixedScheme();
    if (scheme.isEmpty()) {
      throw new IllegalArgumentException("strategy '" + strategy + "' has no fixed partition "
          + "count, which Ignite's partitions() needs; choose one that has (fixed, rendezvous)");
    }
    return new PartkitAffinityFunction(strategy, new TreeMap<>(options.asMap()),
        scheme.get().partitionCount());
  }

  /** The strategy's name. */
  public String strategy() {
    return strategy;
  }

  /** The strategy's options ({@code replicas} excluded). */
  public PartitionerConfig options() {
    return PartitionerConfig.of(options);
  }

  @Override
  public void reset() {
    // no state to reset: the table is a function of the context only (see the class comment)
  }

  @Override
  public int partitions() {
    return partitions;
  }

  /**
   * partkit's partition of a key (see the class comment).
   *
   * @throws IllegalArgumentException if the key is null or of an unsupported type
   */
  @Override
  public int partition(Object key) {
    PartitionScheme s = scheme();
    return s.partitionOf(s.keyHash().hashObject(key));
  }

  @Override
  public List<List<ClusterNode>> assignPartitions(AffinityFunctionContext ctx) {
    List<ClusterNode> topology = ctx.currentTopologySnapshot();
    Map<NodeId, ClusterNode> byId = new HashMap<>();
    List<Member> members = new ArrayList<>(topology.size());
    for (ClusterNode node : topology) {
      Member member = toMember(node);
      byId.put(member.id(), node);
      members.add(member);
    }
    MembershipView view = MembershipView.of(
        Math.max(0, ctx.currentTopologyVersion().topologyVersion()), members);
    int backups = ctx.backups();
    int replicas = backups >= members.size() - 1 ? members.size() : backups + 1;

    PartitionAssignment next = partitioner().place(view, previous(ctx), replicas);
    if (next.partitionCount() != partitions) {
      throw new IllegalStateException("strategy '" + strategy + "' produced "
          + next.partitionCount() + " partitions, expected " + partitions);
    }
    List<List<ClusterNode>> result = new ArrayList<>(partitions);
    for (int part = 0; part < partitions; part++) {
      List<NodeId> ids = next.replicas(part);
      List<ClusterNode> nodes = new ArrayList<>(ids.size());
      for (NodeId id : ids) {
        nodes.add(requireNonNull(byId.get(id), () -> "strategy '" + strategy
            + "' placed a replica on " + id + ", which is not in the topology"));
      }
      result.add(nodes);
    }
    return result;
  }

  @Override
  public void removeNode(UUID nodeId) {
    // no per-node state (see the class comment)
  }

  /** A partkit member from an Ignite node: consistent id, address, weight and labels. */
  static Member toMember(ClusterNode node) {
    Object consistentId = requireNonNull(node.consistentId(), "consistentId");
    String address = node.addresses().isEmpty() ? "" : node.addresses().iterator().next();
    Object weight = node.attribute(WEIGHT_ATTRIBUTE);
    int w;
    try {
      w = weight == null ? 1 : Integer.parseInt(weight.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("node " + consistentId + " has a non-integer "
          + WEIGHT_ATTRIBUTE + ": '" + weight + "'", e);
    }
    return new Member(NodeId.of(String.valueOf(consistentId)), address, w,
        label(node.attribute(ZONE_ATTRIBUTE)), label(node.attribute(RACK_ATTRIBUTE)));
  }

  private static String label(Object value) {
    return value == null ? "" : value.toString();
  }

  /**
   * Ignite's previous ideal assignment as a partkit one, when there is a usable one: none for a
   * new cache, and none when some partition has no owner (baseline nodes offline).
   */
  private Optional<PartitionAssignment> previous(AffinityFunctionContext ctx) {
    List<List<NodeId>> lists = new ArrayList<>(partitions);
    int replicas = Integer.MAX_VALUE;
    for (int part = 0; part < partitions; part++) {
      List<ClusterNode> nodes = ctx.previousAssignment(part);
      if (nodes == null || nodes.isEmpty()) {
        return Optional.empty();
      }
      List<NodeId> ids = new ArrayList<>(nodes.size());
      for (ClusterNode node : nodes) {
        ids.add(NodeId.of(String.valueOf(node.consistentId())));
      }
      lists.add(ids);
      replicas = Math.min(replicas, ids.size());
    }
    // Ignite's lists can differ in length (fewer nodes than copies at the time): keep the
    // leading replicas, which are what a strategy builds on.
    List<List<NodeId>> trimmed = new ArrayList<>(partitions);
    for (List<NodeId> ids : lists) {
      trimmed.add(ids.subList(0, replicas));
    }
    return Optional.of(PartitionAssignment.of(strategy, 0, 0, scheme(), trimmed));
  }

  /** The strategy, created once per node (replicas are given per call, not configured). */
  private Partitioner partitioner() {
    Partitioner p = partitioner;
    if (p == null) {
      p = Partitioners.load(loader()).create(strategy, PartitionerConfig.of(options));
      int count = p.fixedPartitionCount().orElse(-1);
      if (count != partitions) {
        throw new IllegalStateException("strategy '" + strategy + "' with " + options
            + " has " + count + " partitions on this node, but the cache was created with "
            + partitions + " (is the same partkit version on every node?)");
      }
      partitioner = p;
    }
    return p;
  }

  /** The strategy's key -> partition scheme, which it has without assigning. */
  private PartitionScheme scheme() {
    PartitionScheme s = scheme;
    if (s == null) {
      s = partitioner().fixedScheme().orElseThrow(() -> new IllegalStateException("strategy '"
          + strategy + "' has no fixed scheme on this node (is the same partkit version on"
          + " every node?)"));
      scheme = s;
    }
    return s;
  }

  private static ClassLoader loader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : PartkitAffinityFunction.class.getClassLoader();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartkitAffinityFunction other && strategy.equals(other.strategy)
        && options.equals(other.options) && partitions == other.partitions;
  }

  @Override
  public int hashCode() {
    return (strategy.hashCode() * 31 + options.hashCode()) * 31 + partitions;
  }

  @Override
  public String toString() {
    return "PartkitAffinityFunction{strategy=" + strategy + ", options=" + options
        + ", partitions=" + partitions + "}";
  }
}
