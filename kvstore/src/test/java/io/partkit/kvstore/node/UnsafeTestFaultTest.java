package io.partkit.kvstore.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnsafeTestFaultTest {

  @Test
  void everyFaultParsesFromItsCommandLineName() {
    for (UnsafeTestFault f : UnsafeTestFault.values()) {
      assertThat(UnsafeTestFault.parse(f.cliName())).isEqualTo(f);
    }
    assertThat(UnsafeTestFault.ACK_BEFORE_LOG.cliName()).isEqualTo("ack-before-log");
  }

  @Test
  void anUnknownNameListsTheKnownOnes() {
    assertThatThrownBy(() -> UnsafeTestFault.parse("lose-everything"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown test fault 'lose-everything'")
        .hasMessageContaining("serve-while-fenced");
  }
}
