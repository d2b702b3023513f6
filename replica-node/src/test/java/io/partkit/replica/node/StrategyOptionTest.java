package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.TokenRanges;
import io.partkit.spi.hash.KeyHash;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The control's {@code --strategy} (a strategy of hash slots by name, or the control's own) and
 * its first table's options.
 */
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
        .hasMessageContaining("unknown --strategy nope; known: ")
        .hasMessageContaining("fixed").hasMessageContaining("rendezvous");
    assertThatThrownBy(() -> ReplicaNodeMain.placement("fixed", 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 7 replicas");
  }

  @Test
  void theFirstTableIsHashSlotsKeyRangesOrATokenRingAndABadOneIsNamed() {
    assertThat(ReplicaNodeMain.scheme(Map.of("--partitions", "4")))
        .isEqualTo(new HashSlots(4, KeyHash.MURMUR3_128));
    assertThat(ReplicaNodeMain.scheme(Map.of("--split-keys", "0a, 0b01")))
        .isEqualTo(KeyRanges.of(new byte[] {10}, new byte[] {11, 1}));
    assertThat(ReplicaNodeMain.scheme(Map.of("--tokens", "-5,7")))
        .isEqualTo(TokenRanges.of(-5, 7));
    assertThatThrownBy(() -> ReplicaNodeMain.scheme(Map.of("--split-keys", "0b,0a")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--split-keys 0b,0a:");
    assertThatThrownBy(() -> ReplicaNodeMain.scheme(Map.of("--split-keys", "zz")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--split-keys zz:");
    assertThatThrownBy(() -> ReplicaNodeMain.scheme(Map.of("--tokens", "7,-5")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly increasing");
    assertThatThrownBy(() -> ReplicaNodeMain.scheme(Map.of("--partitions", "x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--partitions x:");
  }
}
