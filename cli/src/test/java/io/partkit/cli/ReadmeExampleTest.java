package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.spi.stats.Movement;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The README's first example, as written there, and the claims its comments make. */
class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAndDoesWhatItSays() {
    Partitioner strategy = Partitioners.load()
        .create("fixed", PartitionerConfig.of("partitions", 1024, "replicas", 3));
    MembershipView members = MembershipView.of(
        Member.located("node-a", "zone-1", "rack-1"),
        Member.located("node-b", "zone-2", "rack-1"),
        Member.located("node-c", "zone-3", "rack-1"));
    PartitionAssignment table = strategy.assign(members);
    NodeId owner = table.primaryOf("user-42");
    List<NodeId> replicas = table.replicas(table.partitionOf("user-42"));

    MembershipView grown = members.with(Member.located("node-d", "zone-1", "rack-2"));
    PartitionAssignment next = strategy.assign(grown, Optional.of(table));
    Movement moved = Movement.between(table, members, next, grown);
    String printed = String.format(java.util.Locale.ROOT,
        "moved %.3f of the keys; the least possible is %.3f%n",
        moved.primaryMovedShare(), moved.optimalShare());

    assertThat(replicas.get(0)).isEqualTo(owner);
    Set<String> zones = new HashSet<>();
    replicas.forEach(r -> zones.add(members.find(r).orElseThrow().zone()));
    assertThat(zones).hasSize(3);
    assertThat(moved.primaryMovedBetweenStayingShare()).isZero();
    assertThat(printed).isEqualTo("moved 0.250 of the keys; the least possible is 0.250%n"
        .formatted());
  }
}
