package io.partkit.harness.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Availability counts every failure against the system; answered counts a failure the recorder
 * noted as a mismatch (a cas that found another value) as an answer, and nothing else. The
 * waits count every outcome, the latency ok operations only.
 */
class RunStatsTest {

  private final List<Op> ops = new ArrayList<>();

  private Op op(long process, OpType type, String f, Object value) {
    Op op = new Op(ops.size(), process, type, f, value, 7L, ops.size() * 1_000_000L, 0);
    ops.add(op);
    return op;
  }

  /** One operation: its invocation and its completion, which it returns. */
  private Op done(long process, OpType type, String f, Object value) {
    op(process, OpType.INVOKE, f, value);
    return op(process, type, f, value);
  }

  @Test
  void aMismatchIsAnsweredButNotAvailableAnUnavailableFailureIsNeither() {
    done(0, OpType.OK, "write", 1L);
    done(0, OpType.OK, "read", 1L);
    Op mismatch = done(0, OpType.FAIL, "cas", List.of(2L, 3L));
    done(0, OpType.FAIL, "cas", List.of(1L, 3L)); // refused: the node was unreachable
    done(0, OpType.FAIL, "read", null);
    done(1, OpType.INFO, "write", 4L); // unknown: neither ok nor answered
    Op ok = ops.get(1);

    RunStats s = RunStats.of(ops, Set.of(mismatch.index(), ok.index(), 999L));

    assertThat(s.total(OpType.FAIL)).isEqualTo(3);
    assertThat(s.availability()).isCloseTo(2.0 / 6, within(1e-9));
    assertThat(s.mismatches()).as("an index that is no failure is not a mismatch").isEqualTo(1);
    assertThat(s.answered()).isCloseTo(3.0 / 6, within(1e-9));
  }

  @Test
  void withNoMismatchNotedAnsweredIsTheAvailability() {
    done(0, OpType.OK, "write", 1L);
    done(0, OpType.FAIL, "cas", List.of(2L, 3L));
    done(0, OpType.INFO, "write", 2L);

    RunStats s = RunStats.of(ops);

    assertThat(s.mismatches()).isZero();
    assertThat(s.answered()).isEqualTo(s.availability()).isCloseTo(1.0 / 3, within(1e-9));
  }

  @Test
  void anEmptyHistoryHasNothingAnswered() {
    RunStats s = RunStats.of(List.of(), Set.of());

    assertThat(s.availability()).isZero();
    assertThat(s.answered()).isZero();
  }

  @Test
  void waitsCountEveryOutcomeWhereTheLatencyCountsOkOnly() {
    timed(0, OpType.OK, 0, 500); // 0.5 s
    timed(1, OpType.INFO, 100, 2_600); // the client gave up after 2.5 s
    timed(2, OpType.FAIL, 200, 1_700); // refused after 1.5 s
    timed(3, OpType.OK, 300, 1_300); // exactly 1 s: not over it

    RunStats s = RunStats.of(ops);

    assertThat(s.latencyMillis()[3]).as("the ok latency's max").isEqualTo(1_000.0);
    assertThat(s.waits().longestMillis()).isEqualTo(2_500.0);
    assertThat(s.waits().over1s()).isEqualTo(2);
    assertThat(s.waits().over2s()).isEqualTo(1);
  }

  /** An operation invoked at {@code fromMillis} and completed at {@code toMillis}. */
  private void timed(long process, OpType type, long fromMillis, long toMillis) {
    ops.add(new Op(ops.size(), process, OpType.INVOKE, "write", 1L, 7L, fromMillis * 1_000_000L,
        0));
    ops.add(new Op(ops.size(), process, type, "write", 1L, 7L, toMillis * 1_000_000L, 0));
  }
}
