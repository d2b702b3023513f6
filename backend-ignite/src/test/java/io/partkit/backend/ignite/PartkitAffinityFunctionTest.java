package io.partkit.backend.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.spi.UnknownStrategyException;
import io.partkit.spi.hash.KeyHash;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.ignite.cache.affinity.AffinityCentralizedFunction;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.internal.processors.affinity.AffinityTopologyVersion;
import org.apache.ignite.internal.processors.affinity.GridAffinityFunctionContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PartkitAffinityFunction} called the way Ignite calls it, without a cluster. The
 * test-only strategies ({@link TestStrategies}) pin the adapter's mechanics (attributes, replica
 * count, hand-over of the previous table); the real {@code fixed} strategy pins what a
 * history-dependent strategy needs from Ignite's calls.
 */
class PartkitAffinityFunctionTest {

  private static final PartitionerConfig PARTS_64 = PartitionerConfig.of("partitions", 64);

  @Test
  void partitionIsPartkitsStableHashNotHashCode() {
    PartkitAffinityFunction f = PartkitAffinityFunction.of("test-modulo", PARTS_64);
    HashSlots slots = HashSlots.of(64);
    Random random = new Random(61);
    for (int i = 0; i < 3000; i++) {
      String s = "user-" + random.nextInt();
      long l = random.nextLong();
      int n = random.nextInt();
      byte[] b = new byte[random.nextInt(20)];
      random.nextBytes(b);
      assertThat(f.partition(s)).as("seed 61, %s", s)
          .isEqualTo(slots.partitionOf(KeyHash.MURMUR3_128.hash(s)));
      assertThat(f.partition(l)).as("seed 61, %s", l)
          .isEqualTo(slots.partitionOf(KeyHash.MURMUR3_128.hashLong(l)));
      assertThat(f.partition(n))
          .as("seed 61, int %s widens to long", n)
          .isEqualTo(f.partition((long) n));
      assertThat(f.partition(b))
          .as("seed 61")
          .isEqualTo(slots.partitionOf(KeyHash.MURMUR3_128.hash(b)));
    }
    assertThat(f.partitions()).isEqualTo(64);
  }

  @Test
  void assignPartitionsFollowsTheStrategyAndReadsNodeAttributes() {
    Random random = new Random(62);
    List<ClusterNode> nodes = List.of(
        TestNodes.node("c", random, Map.of(PartkitAffinityFunction.ZONE_ATTRIBUTE, "z2")),
        TestNodes.node("a", random, Map.of(PartkitAffinityFunction.WEIGHT_ATTRIBUTE, "3",
            PartkitAffinityFunction.RACK_ATTRIBUTE, "r1")),
        TestNodes.node("b", random, Map.of()));
    PartkitAffinityFunction f = PartkitAffinityFunction.of("test-modulo", PARTS_64);
    List<List<ClusterNode>> lists = f.assignPartitions(context(nodes, null, 1));
    // test-modulo over ids a, b, c: partition p -> [p % 3, (p + 1) % 3]
    List<String> ids = List.of("a", "b", "c");
    for (int p = 0; p < 64; p++) {
      assertThat(lists.get(p).stream().map(n -> (String) n.consistentId()).toList())
          .as("partition %d", p).containsExactly(ids.get(p % 3), ids.get((p + 1) % 3));
    }
    assertThat(PartkitAffinityFunction.toMember(nodes.get(1)))
        .isEqualTo(new Member(NodeId.of("a"), "", 3, "", "r1"));
    assertThat(PartkitAffinityFunction.toMember(nodes.get(0)).zone()).isEqualTo("z2");
    // backups beyond the node count: every node holds a copy
    assertThat(f.assignPartitions(context(nodes, null, Integer.MAX_VALUE)))
        .allSatisfy(l -> assertThat(l).hasSize(3));
  }

  @Test
  void previousAssignmentReachesTheStrategy() {
    Random random = new Random(63);
    List<ClusterNode> two = List.of(TestNodes.node("a", random, Map.of()),
        TestNodes.node("b", random, Map.of()));
    List<ClusterNode> three = new ArrayList<>(two);
    three.add(TestNodes.node("c", random, Map.of()));
    PartkitAffinityFunction f = PartkitAffinityFunction.of("test-sticky", PARTS_64);
    List<List<ClusterNode>> before = f.assignPartitions(context(two, null, 1));
    // sticky keeps the two-node table when told about it ...
    assertThat(ids(f.assignPartitions(context(three, before, 1)))).isEqualTo(ids(before));
    // ... also on a fresh copy (another node) that did not compute it itself
    PartkitAffinityFunction copy = roundTrip(f);
    assertThat(ids(copy.assignPartitions(context(three, before, 1)))).isEqualTo(ids(before));
    // ... and spreads over three nodes without one
    assertThat(ids(copy.assignPartitions(context(three, null, 1))).stream().flatMap(List::stream)
        .distinct()).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void isACentralizedFunctionSoAJoiningNodeIsHandedTheHistory() {
    // Without it a joining node computes its table with no previous one (see the class comment
    // of PartkitAffinityFunction); IgniteClusterTest shows the effect on a real cluster.
    assertThat(PartkitAffinityFunction.class.isAnnotationPresent(AffinityCentralizedFunction.class))
        .isTrue();
  }

  /** Seeds 1..12 draw zone labels, 101..112 the same draws without labels. */
  static LongStream seeds() {
    return LongStream.concat(LongStream.rangeClosed(1, 12), LongStream.rangeClosed(101, 112));
  }

  /**
   * A seeded sequence of joins and leaves (1..6 nodes, 0..3 backups) through the function the way
   * Ignite calls it, with the previous ideal table as previous: every table is the {@code fixed}
   * strategy's own replay of the history, and a fresh copy (another node, or one that just
   * joined and was handed the previous ideal table) computes the same. That is what keeps the
   * nodes of a cluster in agreement.
   *
   * <p>Also, with and without zone labels: recalculating with the same members and the current
   * table as previous (Ignite does so on some custom events, e.g. activation, baseline changes,
   * lost-partition resets) returns the same table, so nothing moves when nothing changed. (Seed 4
   * step 3, members n0, n2, n5 in z3 and n1, n4 in z2, 3 replicas, used to move the last backup
   * of partitions 4, 28 and 54; {@code fixed} now keeps its own tables, see
   * docs/strategy-fixed.md.)
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void fixedFollowsTheHistoryIgniteHandsOver(long seed) {
    Random random = new Random(seed);
    int backups = random.nextInt(4);
    PartkitAffinityFunction f = PartkitAffinityFunction.of("fixed", PARTS_64);
    List<ClusterNode> pool = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      String drawn = List.of("", "z1", "z2", "z3").get(random.nextInt(4));
      String zone = seed > 100 ? "" : drawn;
      pool.add(TestNodes.node("n" + i, random,
          zone.isEmpty() ? Map.of() : Map.of(PartkitAffinityFunction.ZONE_ATTRIBUTE, zone)));
    }
    List<ClusterNode> live = new ArrayList<>(pool.subList(0, 1 + random.nextInt(3)));
    List<List<ClusterNode>> ignitePrevious = null;
    Optional<PartitionAssignment> strategyPrevious = Optional.empty();
    for (int step = 0; step < 8; step++) {
      List<List<ClusterNode>> table = f.assignPartitions(context(live, ignitePrevious, backups));

      List<Member> members = live.stream().map(PartkitAffinityFunction::toMember).toList();
      int replicas = Math.min(backups + 1, live.size());
      Partitioner fixed = Partitioners.load()
          .create("fixed", PARTS_64.with("replicas", replicas));
      PartitionAssignment expected = fixed.assign(MembershipView.of(step, members),
          strategyPrevious);
      assertThat(ids(table)).as("seed %d, step %d, members %s", seed, step, members)
          .isEqualTo(expected.replicaTable().stream()
              .map(l -> l.stream().map(NodeId::value).toList()).toList());
      assertThat(ids(roundTrip(f).assignPartitions(context(live, ignitePrevious, backups))))
          .as("seed %d, step %d: another node's copy", seed, step).isEqualTo(ids(table));
      assertThat(ids(f.assignPartitions(context(live, table, backups))))
          .as("seed %d, step %d: members %s, current table as previous", seed, step, members)
          .isEqualTo(ids(table));

      ignitePrevious = table;
      strategyPrevious = Optional.of(expected);
      List<ClusterNode> absent = new ArrayList<>(pool);
      absent.removeAll(live);
      boolean join = live.size() == 1 || (!absent.isEmpty() && random.nextBoolean());
      if (join) {
        live.add(absent.get(random.nextInt(absent.size())));
      } else {
        live.remove(random.nextInt(live.size()));
      }
    }
  }

  @Test
  void survivesJavaSerialization() {
    PartkitAffinityFunction f = PartkitAffinityFunction.of("test-modulo", PARTS_64);
    PartkitAffinityFunction copy = roundTrip(f);
    assertThat(copy).isEqualTo(f);
    assertThat(copy.partitions()).isEqualTo(64);
    assertThat(copy.partition("user-42")).isEqualTo(f.partition("user-42"));
    assertThat(copy.options()).isEqualTo(PARTS_64);
  }

  @Test
  void rejectsWhatItCannotRunClearly() {
    assertThatThrownBy(() -> PartkitAffinityFunction.of("test-ring", PARTS_64))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("strategy 'test-ring' has no fixed partition count");
    assertThatThrownBy(() -> PartkitAffinityFunction.of("no-such", PARTS_64))
        .isInstanceOf(UnknownStrategyException.class).hasMessageContaining("test-modulo");
    assertThatThrownBy(
            () -> PartkitAffinityFunction.of("test-modulo", PARTS_64.with("replicas", 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backups + 1");
    PartkitAffinityFunction f = PartkitAffinityFunction.of("test-modulo", PARTS_64);
    assertThatThrownBy(() -> f.partition(new java.util.Date(0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.util.Date");
    assertThatThrownBy(() -> f.partition(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
  }

  @Test
  void partkitAssignmentOfTheSameViewMatchesTheFunction() {
    // what the cluster test relies on: the function's table is the strategy's table for the view
    Random random = new Random(64);
    List<ClusterNode> nodes = TestNodes.randomNodes(5, random);
    PartkitAffinityFunction f = PartkitAffinityFunction.of("test-modulo", PARTS_64);
    List<List<ClusterNode>> lists = f.assignPartitions(context(nodes, null, 2));
    List<Member> members = nodes.stream().map(PartkitAffinityFunction::toMember).toList();
    PartitionAssignment expected = new TestStrategies.Modulo()
        .create(PARTS_64.with("replicas", 3)).assign(MembershipView.of(0, members));
    for (int p = 0; p < 64; p++) {
      assertThat(lists.get(p).stream().map(n -> NodeId.of((String) n.consistentId())).toList())
          .as("seed 64, partition %d", p).isEqualTo(expected.replicas(p));
    }
  }

  static GridAffinityFunctionContextImpl context(List<ClusterNode> nodes,
      List<List<ClusterNode>> previous, int backups) {
    return new GridAffinityFunctionContextImpl(nodes, previous, null,
        new AffinityTopologyVersion(nodes.size()), backups);
  }

  private static List<List<String>> ids(List<List<ClusterNode>> lists) {
    return lists.stream().map(l -> l.stream().map(n -> (String) n.consistentId()).toList())
        .toList();
  }

  private static PartkitAffinityFunction roundTrip(PartkitAffinityFunction f) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(f);
      }
      try (ObjectInputStream in = new ObjectInputStream(
          new ByteArrayInputStream(bytes.toByteArray()))) {
        return (PartkitAffinityFunction) in.readObject();
      }
    } catch (java.io.IOException | ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }
}
