package io.partkit.harness.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The placement prediction without Ignite: it replays the topology chain for a
 * history-dependent strategy, needs only the final topology for a stateless one, and the
 * comparison names the partitions that differ.
 */
class IgnitePlacementCheckTest {

  private static final List<IgnitePlacementCheck.Topology> CHAIN = List.of(
      new IgnitePlacementCheck.Topology(4, List.of("n1", "n2", "n3", "n4")),
      new IgnitePlacementCheck.Topology(5, List.of("n1", "n3", "n4")),
      new IgnitePlacementCheck.Topology(6, List.of("n1", "n2", "n3", "n4")));

  @Test
  void fixedIsPredictedFromTheWholeChain() {
    List<IgnitePlacementCheck.Topology> leave = CHAIN.subList(0, 2);
    Partitioner fixed = Partitioners.load().create("fixed",
        PartitionerConfig.of("partitions", 64, "replicas", 2));
    PartitionAssignment four = fixed.assign(view(CHAIN.get(0)));
    PartitionAssignment expected = fixed.assign(view(CHAIN.get(1)), Optional.of(four));
    PartitionAssignment replayed = IgnitePlacementCheck.predict("fixed", 64, 1, leave);
    assertThat(replayed.samePlacementAs(expected)).as("the leave built on the 4-node table")
        .isTrue();
    assertThat(replayed.samePlacementAs(fixed.assign(view(CHAIN.get(1)))))
        .as("not the 3-node table from scratch").isFalse();
    assertThat(IgnitePlacementCheck.compare(replayed, owners(replayed))).isEmpty();
  }

  @Test
  void rendezvousNeedsOnlyTheFinalTopology() {
    PartitionAssignment replayed = IgnitePlacementCheck.predict("rendezvous", 64, 1, CHAIN);
    PartitionAssignment last = IgnitePlacementCheck.predict("rendezvous", 64, 1,
        CHAIN.subList(2, 3));
    assertThat(replayed.samePlacementAs(last)).isTrue();
  }

  @Test
  void aDifferentOwnerIsNamed() {
    PartitionAssignment predicted = IgnitePlacementCheck.predict("rendezvous", 64, 1, CHAIN);
    List<List<String>> ignite = new ArrayList<>(owners(predicted));
    List<String> swapped = new ArrayList<>(ignite.get(7));
    Collections.reverse(swapped);
    ignite.set(7, swapped);
    assertThat(IgnitePlacementCheck.compare(predicted, ignite))
        .containsExactly("partition 7: Ignite " + swapped + ", partkit "
            + owners(predicted).get(7));
    assertThat(IgnitePlacementCheck.compare(predicted, ignite.subList(0, 10)))
        .singleElement().asString().contains("10 partitions");
  }

  private static MembershipView view(IgnitePlacementCheck.Topology t) {
    return MembershipView.of(t.version(), t.servers().stream().map(Member::of).toList());
  }

  private static List<List<String>> owners(PartitionAssignment table) {
    List<List<String>> owners = new ArrayList<>();
    for (int p = 0; p < table.partitionCount(); p++) {
      owners.add(table.replicas(p).stream().map(NodeId::value).toList());
    }
    return owners;
  }
}
