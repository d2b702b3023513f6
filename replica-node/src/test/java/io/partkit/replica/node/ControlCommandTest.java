package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Bytes;
import org.junit.jupiter.api.Test;

class ControlCommandTest {

  @Test
  void readsSplitAndSplitAll() {
    assertThat(ControlCommand.parse("split 3")).contains(new ControlCommand.Split(3, null));
    assertThat(ControlCommand.parse("  split   17 ")).contains(new ControlCommand.Split(17, null));
    assertThat(ControlCommand.parse("split 3 at 0a0B")).contains(new ControlCommand.Split(3,
        Bytes.of(new byte[] {10, 11})));
    assertThat(ControlCommand.parse("split-all")).contains(new ControlCommand.SplitAll());
    assertThat(ControlCommand.parse("leave 2")).contains(new ControlCommand.Leave(2));
    assertThat(ControlCommand.parse(" join  0")).contains(new ControlCommand.Join(0));
    assertThat(ControlCommand.parse("forget 4")).contains(new ControlCommand.Forget(4));
    assertThat(ControlCommand.parse("")).isEmpty();
    assertThat(ControlCommand.parse("   ")).isEmpty();
  }

  @Test
  void badInputNamesTheLineAndWhatWasExpected() {
    for (String bad : new String[] {"split", "split x", "split -1", "split 1 2", "merge 1",
        "split-all 3", "split 99999999999", "split 3 at", "split 3 at xy", "split 3 to 0a",
        "leave", "leave -2", "join x", "join 1 2", "forget", "forget n1"}) {
      assertThatThrownBy(() -> ControlCommand.parse(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad.trim() + "'")
          .hasMessageContaining("expected 'split <partition>', 'split <partition> at <hex key>',"
              + " 'split-all', 'leave <node>', 'join <node>' or 'forget <node>'");
    }
  }
}
