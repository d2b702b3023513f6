package io.partkit.harness.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Capability.Received;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReceivedTest {

  @Test
  void anEventMovedWhatTheNodesRunningAfterItReceivedDuringIt() {
    Map<String, Received> before = Map.of("n1", new Received(100, 10_000, 2),
        "n2", new Received(50, 5_000, 1), "n3", new Received(70, 7_000, 1));
    // n3 died (gone), n6 joined (counts from zero), n2 restarted (its counters began again)
    Map<String, Received> after = Map.of("n1", new Received(130, 13_000, 3),
        "n2", new Received(10, 1_000, 1), "n6", new Received(400, 40_000, 8));
    assertThat(Received.since(before, after))
        .isEqualTo(new Received(30 + 10 + 400, 3_000 + 1_000 + 40_000, 1 + 1 + 8));
  }

  @Test
  void nothingRunningAfterIsNothingReceived() {
    assertThat(Received.since(Map.of("n1", new Received(5, 5, 1)), Map.of()))
        .isEqualTo(Received.NONE);
  }

  @Test
  void aNegativeCounterIsRefusedNamingIt() {
    assertThatThrownBy(() -> new Received(1, -2, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-2 bytes");
  }
}
