package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ReplicaCoordinatorMain}'s members: node {@code i} is {@code node-i}, or the {@code i}-th
 * name of {@code --members}, which names every node once.
 */
class CoordinatorMembersTest {

  private static final List<InetSocketAddress> NODES = List.of(
      InetSocketAddress.createUnresolved("h0", 7000),
      InetSocketAddress.createUnresolved("h1", 7001),
      InetSocketAddress.createUnresolved("h2", 7002));

  @Test
  void withoutNamesNodeIIsNodeDashIAtItsAddress() {
    List<Member> members = ReplicaCoordinatorMain.members(NODES, null);
    assertThat(members).extracting(m -> m.id().value())
        .containsExactly("node-0", "node-1", "node-2");
    assertThat(members.get(1).address()).isEqualTo("h1:7001");
  }

  @Test
  void namesAreTheMembersIdsInTheNodesOrder() {
    assertThat(ReplicaCoordinatorMain.members(NODES, "n1,n2,n3"))
        .extracting(m -> m.id().value()).containsExactly("n1", "n2", "n3");
  }

  @Test
  void namesThatAreNotOneDistinctNameANodeAreRefused() {
    for (String names : List.of("n1,n2", "n1,n2,n3,n4", "n1,n1,n2", "n1,,n3")) {
      assertThatThrownBy(() -> ReplicaCoordinatorMain.members(NODES, names)).as(names)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--members")
          .hasMessageContaining("3 --nodes");
    }
  }
}
