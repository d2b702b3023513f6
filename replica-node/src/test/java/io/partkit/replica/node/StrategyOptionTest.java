package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The control's {@code --strategy}: a strategy of hash slots by name, or the control's own. */
class StrategyOptionTest {

  @Test
  void noStrategyIsTheControlsOwnPlacementAndANameFindsTheStrategy() {
    assertThat(ReplicaNodeMain.placement(null, 3)).isEmpty();
    assertThat(ReplicaNodeMain.placement("rendezvous", 3)).get().hasToString(
        "StrategyPlacement{rendezvous}");
    assertThat(ReplicaNodeMain.placement("fixed", 7)).isPresent();
  }

  @Test
  void anUnknownStrategyOrTooManyReplicasAreRefusedSayingWhatIsKnown() {
    assertThatThrownBy(() -> ReplicaNodeMain.placement("nope", 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown --strategy nope")
        .hasMessageContaining("fixed, rendezvous");
    assertThatThrownBy(() -> ReplicaNodeMain.placement("fixed", 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 7 replicas");
  }
}
