package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LogReachTest {

  static final List<Record> LOG = List.of(new Record.Born(7), new Record.Born(8));

  @Test
  void noReachRecordedStartsFromTheLogAsItAlwaysDid() {
    LogReach.Verdict v = LogReach.judge(null, new LogReach(2, 40), true);
    assertThat(v).isInstanceOf(LogReach.Unrecorded.class);
    assertThat(v.startFrom(LOG)).isEqualTo(LOG);
  }

  @Test
  void aLogThatHoldsAllItReachedOrMoreIsWhole() {
    assertThat(LogReach.judge(new LogReach(2, 40), new LogReach(2, 40), true))
        .isInstanceOf(LogReach.Whole.class);
    LogReach.Verdict longer = LogReach.judge(new LogReach(1, 20), new LogReach(2, 40), true);
    assertThat(longer).as("appended after the last mark").isInstanceOf(LogReach.Whole.class);
    assertThat(longer.startFrom(LOG)).isEqualTo(LOG);
  }

  @Test
  void aLogShortOfItsReachStartsFromNothingAndSaysWhatIsMissing() {
    LogReach.Verdict v = LogReach.judge(new LogReach(5, 100), new LogReach(2, 40), true);
    assertThat(v).isInstanceOf(LogReach.Shorter.class);
    assertThat(v.startFrom(LOG)).as("a lost disk").isEmpty();
    assertThat(((LogReach.Shorter) v).missing()).isEqualTo("the log holds 2 records (40 bytes)"
        + " but reached 5 (100 bytes) when last made durable: records 2..4 are missing");
    assertThat(LogReach.judge(new LogReach(3, 0), new LogReach(2, 0), true))
        .as("a log without bytes, counted in records").isInstanceOf(LogReach.Shorter.class);
  }

  @Test
  void anotherLogInItsPlaceIsShortThoughLonger() {
    LogReach.Verdict v = LogReach.judge(new LogReach(2, 40), new LogReach(9, 400), false);
    assertThat(v).isInstanceOf(LogReach.Shorter.class);
    assertThat(((LogReach.Shorter) v).missing()).contains("not the one its reach was recorded");
  }

  @Test
  void aReachIsNotNegative() {
    assertThatThrownBy(() -> new LogReach(-1, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1 records");
  }
}
