package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ControlCommandTest {

  @Test
  void readsSplitAndSplitAll() {
    assertThat(ControlCommand.parse("split 3")).contains(new ControlCommand.Split(3));
    assertThat(ControlCommand.parse("  split   17 ")).contains(new ControlCommand.Split(17));
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
        "split-all 3", "split 99999999999", "leave", "leave -2", "join x", "join 1 2", "forget",
        "forget n1"}) {
      assertThatThrownBy(() -> ControlCommand.parse(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad.trim() + "'")
          .hasMessageContaining("expected 'split <partition>', 'split-all', 'leave <node>',"
              + " 'join <node>' or 'forget <node>'");
    }
  }
}
