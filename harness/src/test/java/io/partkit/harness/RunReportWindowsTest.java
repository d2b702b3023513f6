package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The report shades faults, not attempts: a migration fault that caught nothing was shaded from
 * when it gave up until the next heal, as if it had been in force. And it marks the phases after
 * the faults, where the charts went blank for 26 s with nothing to say why.
 */
class RunReportWindowsTest {

  private static Op nemesis(long index, OpType type, String f, String value, long time) {
    return new Op(index, Recorder.NEMESIS, type, f, value, null, time, 0);
  }

  @Test
  void anAttemptThatInjectedNothingIsNotShaded() {
    List<Op> ops = List.of(
        nemesis(0, OpType.INVOKE, "start-migration", null, 1_000),
        nemesis(1, OpType.INFO, "start-migration", "nothing: no migration caught in flight", 2_000),
        nemesis(2, OpType.INVOKE, "start-kill", null, 3_000),
        nemesis(3, OpType.INFO, "start-kill", "kill n2", 4_000),
        nemesis(4, OpType.INVOKE, "stop-kill", "kill n2", 6_000),
        nemesis(5, OpType.INFO, "stop-kill", "healed: kill n2", 7_000));
    List<RunReport.Window> windows = RunReport.windows(ops, 10_000);
    assertThat(windows).containsExactly(new RunReport.Window(4_000, 7_000, "kill n2"));
  }

  @Test
  void thePhasesAfterTheFaultsAreMarked() {
    List<Op> ops = List.of(
        nemesis(0, OpType.INFO, "phase", "heal", 20_000),
        nemesis(1, OpType.INFO, "phase", "recover", 21_000),
        nemesis(2, OpType.INFO, "phase", "final reads", 47_000));
    assertThat(RunReport.phases(ops)).extracting(RunReport.Window::what)
        .containsExactly("phase: heal", "phase: recover", "phase: final reads");
    assertThat(RunReport.windows(ops, 50_000)).as("no fault shaded").isEmpty();
  }
}
