package io.partkit.harness.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Capability.Received;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A node's {@code REBALANCE} answer and the decision whether the rebalance is done, no Ignite. */
class IgniteRebalanceStateTest {

  private static final Set<String> THREE = Set.of("n1", "n2", "n3");

  private static IgniteRebalanceState settled() {
    return IgniteRebalanceState.parse("REBALANCE keys=10 bytes=2000 partitions=3 topology=7 "
        + "ready=7.1 left=0 moving=0 cluster-moving=0 group=true");
  }

  @Test
  void anAnswerIsParsed() {
    IgniteRebalanceState s = settled();
    assertThat(s.received()).isEqualTo(new Received(10, 2000, 3));
    assertThat(s.topology()).isEqualTo(7);
    assertThat(s.readyMajor()).isEqualTo(7);
    assertThat(s.cacheStarted()).isTrue();
  }

  @Test
  void aMalformedAnswerIsRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> IgniteRebalanceState.parse("REBALANCE keys=1 bytes=x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("REBALANCE keys=1");
    assertThatThrownBy(() -> IgniteRebalanceState.parse("REBALANCE keys=1 bytes=2"))
        .hasMessageContaining("no ready=");
    assertThatThrownBy(() -> IgniteRebalanceState.parse("TOPOLOGY 3 n1"))
        .hasMessageContaining("expected REBALANCE");
  }

  @Test
  void doneOnlyWhenEveryExpectedNodeSeesTheExpectedServersAndNothingMoves() {
    Map<String, Set<String>> views = Map.of("n1", THREE, "n2", THREE, "n3", THREE);
    Map<String, IgniteRebalanceState> states = Map.of("n1", settled(), "n2", settled(),
        "n3", settled());
    assertThat(IgniteRebalanceState.stillGoing(THREE, views, states)).isEmpty();

    // a crashed node that Ignite's failure detector has not removed yet
    Set<String> two = Set.of("n1", "n2");
    assertThat(IgniteRebalanceState.stillGoing(two, views, states)).get().asString()
        .contains("n1 sees [n1, n2, n3]");

    IgniteRebalanceState moving = IgniteRebalanceState.parse("REBALANCE keys=0 bytes=0 "
        + "partitions=0 topology=8 ready=8.0 left=5 moving=5 cluster-moving=5 group=true");
    assertThat(IgniteRebalanceState.stillGoing(THREE, views, Map.of("n1", settled(),
        "n2", moving, "n3", settled()))).get().asString().contains("n2 rebalances");

    IgniteRebalanceState exchanging = IgniteRebalanceState.parse("REBALANCE keys=0 bytes=0 "
        + "partitions=0 topology=9 ready=8.1 left=0 moving=0 cluster-moving=0 group=true");
    assertThat(IgniteRebalanceState.stillGoing(THREE, views, Map.of("n1", settled(),
        "n2", settled(), "n3", exchanging))).get().asString().contains("n3 exchanges");

    assertThat(IgniteRebalanceState.stillGoing(THREE, Map.of("n1", THREE, "n2", THREE),
        states)).get().asString().isEqualTo("n3 does not answer");
  }
}
