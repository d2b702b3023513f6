package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A node's {@code --compact-bytes}: a positive number of bytes, or the default. */
class CompactBytesOptionTest {

  @Test
  void noValueIsTheDefaultAndANumberIsTaken() {
    assertThat(ReplicaNodeMain.compactBytes(null)).isEqualTo(Wal.COMPACT_BYTES)
        .isEqualTo(16L << 20);
    assertThat(ReplicaNodeMain.compactBytes(" 8192 ")).isEqualTo(8192);
  }

  @Test
  void aValueThatIsNoPositiveNumberIsRefusedSayingWhatIsExpected() {
    for (String bad : new String[] {"0", "-5", "16MiB", ""}) {
      assertThatThrownBy(() -> ReplicaNodeMain.compactBytes(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--compact-bytes needs a positive number of bytes")
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
