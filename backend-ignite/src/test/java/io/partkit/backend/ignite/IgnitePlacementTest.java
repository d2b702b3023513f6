package io.partkit.backend.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.ignite.cache.affinity.rendezvous.RendezvousAffinityFunction;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.internal.processors.affinity.AffinityTopologyVersion;
import org.apache.ignite.internal.processors.affinity.GridAffinityFunctionContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link IgnitePlacement} against Ignite 2.18's own {@link RendezvousAffinityFunction}. */
class IgnitePlacementTest {

  @Test
  void goldenPartitionsFromTheDesignBrief() {
    // DESIGN.md: 1024 partitions, "key" -> 606, "user-42" -> 250, Integer 12345 -> 57
    assertThat(IgnitePlacement.partition("key", 1024)).isEqualTo(606);
    assertThat(IgnitePlacement.partition("user-42", 1024)).isEqualTo(250);
    assertThat(IgnitePlacement.partition(12345, 1024)).isEqualTo(57);
    RendezvousAffinityFunction ignite = new RendezvousAffinityFunction(false, 1024);
    assertThat(ignite.partition("key")).isEqualTo(606);
    assertThat(ignite.partition("user-42")).isEqualTo(250);
    assertThat(ignite.partition(12345)).isEqualTo(57);
  }

  static Stream<Arguments> keySeeds() {
    // power-of-two counts take Ignite's mask branch, the others its abs(h % parts) branch
    return Stream.of(Arguments.of(11L, 1024), Arguments.of(12L, 128), Arguments.of(13L, 1000),
        Arguments.of(14L, 271), Arguments.of(15L, 65000), Arguments.of(16L, 1));
  }

  @ParameterizedTest
  @MethodSource("keySeeds")
  void keyToPartitionMatchesIgniteOnGeneratedKeys(long seed, int partitions) {
    RendezvousAffinityFunction ignite = new RendezvousAffinityFunction(false, partitions);
    Random random = new Random(seed);
    for (int i = 0; i < 3000; i++) {
      List<Object> keys = List.of("k" + random.nextLong(), randomString(random),
          random.nextInt(), random.nextLong(), Integer.MIN_VALUE + random.nextInt(3),
          Long.MIN_VALUE + random.nextInt(3));
      for (Object key : keys) {
        assertThat(IgnitePlacement.partition(key, partitions))
            .as("seed %d, partitions %d, key %s (%s)", seed, partitions, key,
                key.getClass().getSimpleName())
            .isEqualTo(ignite.partition(key));
      }
    }
  }

  static Stream<Arguments> topologies() {
    // seed, nodes, backups, excludeNeighbors, partitions
    return Stream.of(
        Arguments.of(101L, 1, 0, false, 1024),
        Arguments.of(102L, 2, 1, false, 1024),
        Arguments.of(103L, 3, 1, false, 1024),
        Arguments.of(104L, 5, 2, false, 1000),
        Arguments.of(105L, 7, 0, false, 271),
        Arguments.of(106L, 16, 3, false, 512),
        Arguments.of(107L, 40, 1, false, 1024),
        Arguments.of(108L, 4, 9, false, 64),
        Arguments.of(109L, 6, 2, true, 1024),
        Arguments.of(110L, 9, 1, true, 300),
        Arguments.of(111L, 5, 3, true, 128));
  }

  @ParameterizedTest
  @MethodSource("topologies")
  void assignmentMatchesIgniteOnGeneratedTopologies(long seed, int n, int backups,
      boolean excludeNeighbors, int partitions) {
    Random random = new Random(seed);
    List<ClusterNode> nodes = new ArrayList<>();
    List<Member> members = new ArrayList<>();
    int hostCount = Math.max(1, n / 2); // with neighbors, about two nodes per host
    for (int i = 0; i < n; i++) {
      String id = "node-" + Long.toHexString(random.nextLong());
      String host = "10.0.0." + random.nextInt(hostCount);
      Map<String, Object> attributes = new HashMap<>();
      attributes.put(TestNodes.ATTR_MACS, "mac-of-" + host);
      nodes.add(TestNodes.node(id, random, attributes));
      members.add(new Member(NodeId.of(id), host + ":" + (47500 + i), 1, "", ""));
    }
    RendezvousAffinityFunction ignite = new RendezvousAffinityFunction(excludeNeighbors,
        partitions);
    List<List<ClusterNode>> expected = ignite.assignPartitions(new GridAffinityFunctionContextImpl(
        nodes, null, null, new AffinityTopologyVersion(1), backups));

    IgnitePlacement placement = IgnitePlacement.of(partitions, backups)
        .withExcludeNeighbors(excludeNeighbors);
    MembershipView view = MembershipView.of(0, members);
    PartitionAssignment assignment = placement.assignment(view);
    for (int p = 0; p < partitions; p++) {
      List<String> want = expected.get(p).stream().map(c -> (String) c.consistentId()).toList();
      List<String> got = assignment.replicas(p).stream().map(NodeId::value).toList();
      assertThat(got).as("seed %d, partition %d", seed, p).isEqualTo(want);
      assertThat(placement.replicas(p, view)).as("seed %d, partition %d", seed, p)
          .isEqualTo(assignment.replicas(p));
    }
  }

  @Test
  void knownPrimaryDoesNotDependOnListingOrder() {
    IgnitePlacement placement = IgnitePlacement.of(1024, 1);
    MembershipView a = MembershipView.of(Member.of("a"), Member.of("b"), Member.of("c"));
    MembershipView b = MembershipView.of(Member.of("c"), Member.of("a"), Member.of("b"));
    assertThat(placement.assignment(a).samePlacementAs(placement.assignment(b))).isTrue();
  }

  @Test
  void ties_betweenEqualHashCodes_areBrokenByNodeId() {
    // "Aa" and "BB" have the same String.hashCode(), hence the same score for every partition
    assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
    IgnitePlacement placement = IgnitePlacement.of(16, 1);
    MembershipView view = MembershipView.of(Member.of("BB"), Member.of("Aa"));
    for (int p = 0; p < 16; p++) {
      assertThat(placement.replicas(p, view)).as("partition %d", p)
          .containsExactly(NodeId.of("Aa"), NodeId.of("BB"));
    }
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> IgnitePlacement.of(0, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("partitions must be in 1..65000: 0");
    assertThatThrownBy(() -> IgnitePlacement.of(1024, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("backups must be in 0..255: -1");
    assertThatThrownBy(() -> IgnitePlacement.partition(null, 16))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    assertThatThrownBy(() -> IgnitePlacement.of(16, 0).replicas(16, MembershipView.of(
        Member.of("a")))).isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("0..15: 16");
  }

  @Test
  void scoresAreDistinctAcrossPartitionsForOneNode() {
    // the mix is a bijection: 1024 partitions of one node never collide
    long distinct = LongStream.range(0, 1024)
        .map(p -> IgnitePlacement.score("node-1", (int) p)).distinct().count();
    assertThat(distinct).isEqualTo(1024);
  }

  private static String randomString(Random random) {
    int length = random.nextInt(24);
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append((char) (random.nextBoolean() ? 'a' + random.nextInt(26) : random.nextInt(0x3000)));
    }
    return sb.toString();
  }
}
