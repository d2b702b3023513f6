package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.verification.history.History;
import io.partkit.verification.history.InvalidHistoryException;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Limits give UNKNOWN with a cause; bad histories are reported, not checked. */
class LimitsTest {

  /**
   * register 0 without the model's reduction (Model.droppable's default: nothing), its cut
   * (Model.ignoresState's default: false) or its required states, so that {@link #hard()} stays
   * hard: the
   * register model itself drops its unobserved :info writes, and takes an :info write only
   * directly before an operation that looks at the state (here none can follow one).
   */
  static final Model<Object> UNREDUCED = ForwardingModel.of(Models.register(0L));

  /**
   * 14 concurrent :info writes of distinct values, then a read of a value nobody wrote: invalid,
   * but only after trying every subset.
   */
  static History hard() {
    List<Op> ops = new ArrayList<>();
    for (int p = 0; p < 14; p++) {
      ops.add(Op.of(ops.size(), p, OpType.INVOKE, "write", (long) p));
    }
    for (int p = 0; p < 14; p++) {
      ops.add(Op.of(ops.size(), p, OpType.INFO, "write", null));
    }
    ops.add(Op.of(ops.size(), 100, OpType.INVOKE, "read", null));
    ops.add(Op.of(ops.size(), 100, OpType.OK, "read", 99L));
    return History.of("hard", ops);
  }

  @Test
  void timeLimitGivesUnknownWithItsCause() {
    AtomicLong now = new AtomicLong();
    // an injected clock that jumps a second on every reading: the limit passes at the first poll
    CheckOptions options = CheckOptions.defaults().withTimeLimit(Duration.ofMillis(10))
        .withNanoClock(() -> now.getAndAdd(1_000_000_000L));
    Analysis a = Linearizability.check(UNREDUCED, hard(), options);
    assertThat(a.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(a.cause()).startsWith("time limit reached after 1024 steps");
  }

  @Test
  void memoryGuardGivesUnknownWithItsCause() {
    MemoryGuard full = new MemoryGuard(0.9) {
      @Override
      boolean exhausted() {
        return true;
      }
    };
    ProgressTicker ticker =
        new ProgressTicker(CheckOptions.defaults(), 0, new AtomicInteger(), 1, new AtomicLong());
    SearchLimits limits = new SearchLimits(
        Long.MAX_VALUE, System::nanoTime, new AtomicBoolean(), full, new AtomicLong(), ticker);
    KeyResult r = new WglSearch<>(UNREDUCED, Paired.of(hard().ops())).run(null, 15, limits);
    assertThat(r.verdict()).isEqualTo(Verdict.UNKNOWN);
    assertThat(r.cause()).startsWith("memory guard: heap nearly full");
    assertThat(r.steps()).isEqualTo(65536);
  }

  @Test
  void withoutLimitsTheHardHistoryIsInvalidWithEvidence() {
    Analysis a = Linearizability.check(UNREDUCED, hard());
    assertThat(a.verdict()).isEqualTo(Verdict.INVALID);
    Evidence e = a.failure().orElseThrow().evidence();
    assertThat(e.op().f()).isEqualTo("read");
    assertThat(e.op().value()).isEqualTo(99L);
    assertThat(e.message()).matches("read 99 but the register holds \\d+");
    // the deepest configurations took every :info write; none of them wrote 99
    assertThat(e.longestPrefixes()).isNotEmpty().allSatisfy(p -> {
      assertThat(p.ops()).hasSize(14).allSatisfy(o -> assertThat(o.type()).isEqualTo(OpType.INFO));
      assertThat(p.state()).isNotEqualTo(99L);
    });
  }

  @Test
  void progressIsReportedForLongChecks() {
    AtomicLong now = new AtomicLong();
    List<Long> reported = new ArrayList<>();
    CheckOptions options = CheckOptions.defaults().withNanoClock(() -> now.addAndGet(100_000_000L))
        .withProgress((done, total, steps, elapsed) -> reported.add(steps));
    Linearizability.check(UNREDUCED, hard(), options);
    assertThat(reported).isNotEmpty().allSatisfy(s -> assertThat(s).isPositive());
  }

  @Test
  void firstInvalidKeyCancelsTheOthers() {
    List<Op> ops = new ArrayList<>(hard().ops().stream().map(o -> withKey(o, "slow")).toList());
    ops.add(0, new Op(1000, 200L, OpType.INVOKE, "read", null, "fast", -1, 0));
    ops.add(1, new Op(1001, 200L, OpType.OK, "read", 5L, "fast", -1, 0));
    Analysis a = Linearizability.check(UNREDUCED, History.of("keys", ops),
        CheckOptions.defaults().withParallelism(1));
    assertThat(a.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(a.failure().orElseThrow().key()).isEqualTo("fast");
    assertThat(a.keys()).extracting(KeyResult::key, KeyResult::verdict)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("fast", Verdict.INVALID),
            org.assertj.core.groups.Tuple.tuple("slow", Verdict.UNKNOWN));
  }

  @Test
  void theRegisterDropsTheUnobservedInfoWritesOfTheHardHistory() {
    // none of the 14 :info writes is observed (the read returns 99): all are left out, the
    // search has one operation, and the evidence omits the dropped writes (reduced before the
    // search: the search's own cut decides it before the checker's gate would open)
    Analysis a = Linearizability.check(Models.register(0L), hard(), CheckOptions.defaults(), 0);
    assertThat(a.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(a.keys().get(0).steps()).isLessThan(10);
    assertThat(a.keys().get(0).operations()).isEqualTo(15);
    Evidence e = a.failure().orElseThrow().evidence();
    assertThat(e.message()).isEqualTo("read 99 but the register holds 0");
    assertThat(e.longestPrefixes()).allSatisfy(p -> assertThat(p.ops()).isEmpty());
  }

  @Test
  void theRegisterTakesAnInfoWriteOnlyBeforeAnOperationThatLooksAtTheState() {
    // the cut alone, from the first step: each :info write is tried once, and fails at once, as
    // only the read of 99 looks at the state; without the cut, every subset of the 14 writes
    Model<Object> cutOnly = InfoStepsDifferentialTest.cutOnly(Models.register(0L));
    Analysis a = Linearizability.check(cutOnly, hard(), CheckOptions.defaults(), 0);
    assertThat(a.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(a.keys().get(0).steps()).isLessThan(15 * 16);
    assertThat(a.failure().orElseThrow().evidence().message())
        .matches("read 99 but the register holds \\d+");
  }

  private static Op withKey(Op o, Object key) {
    return new Op(o.index(), o.process(), o.type(), o.f(), o.value(), key, o.time(), o.line());
  }

  @Test
  void malformedHistoriesAreReportedNotChecked() {
    History h = History.of("bad", List.of(Op.of(0, 0, OpType.OK, "read", 1L)));
    assertThatThrownBy(() -> Linearizability.check(Models.register(0L), h))
        .isInstanceOf(InvalidHistoryException.class)
        .hasMessageContaining(
            "bad: invalid history: index 0: process 0 has :ok :read without an open invocation");
  }

  @Test
  void failedOperationsDidNotHappenAndNemesisIsIgnored() {
    History h = History.of("f", List.of(
        Op.of(0, 0, OpType.INVOKE, "write", 1L),
        Op.of(1, 0, OpType.FAIL, "write", 1L),
        new Op(2, "nemesis", OpType.INFO, "partition", null, null, -1, 0),
        Op.of(3, 1, OpType.INVOKE, "read", null),
        Op.of(4, 1, OpType.OK, "read", 0L)));
    assertThat(Linearizability.check(Models.register(0L), h).verdict()).isEqualTo(Verdict.VALID);
  }

  @Test
  void aTimeLimitTooLongForNanosecondsMeansNoLimit() {
    // Knossos' tests pass {:time-limit 999999999999999} (ms): Duration.toNanos overflows a long
    for (Duration limit : List.of(Duration.ofMillis(999_999_999_999_999L),
        Duration.ofMillis(Long.MAX_VALUE), Duration.ofSeconds(Long.MAX_VALUE))) {
      Analysis a = Linearizability.check(Models.register(0L), History.of("long", List.of(
          Op.of(0, 0, OpType.INVOKE, "write", 1L), Op.of(1, 0, OpType.OK, "write", 1L))),
          CheckOptions.defaults().withTimeLimit(limit));
      assertThat(a.verdict()).as("%s", limit).isEqualTo(Verdict.VALID);
    }
    // saturated, also where the start itself is near the end of the clock's range
    assertThat(Linearizability.deadline(Long.MAX_VALUE - 5, Duration.ofNanos(10)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(Linearizability.deadline(100, Duration.ofNanos(10))).isEqualTo(110);
    assertThat(Linearizability.deadline(100, Duration.ZERO)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anInfoCompletionOfAnotherFunctionLeavesItsInvocationPending() {
    // Knossos' generated histories complete a crashed operation as (info p :crash nil)
    List<Op> crashed = List.of(
        Op.of(0, 0, OpType.INVOKE, "write", 1L), Op.of(1, 0, OpType.INFO, "crash", null));
    assertThat(History.of("crash", crashed).validate()).isEmpty();
    assertThat(Linearizability.check(Models.casRegister(0L), History.of("crash", crashed))
        .verdict()).isEqualTo(Verdict.VALID);
    for (long read : new long[] {0L, 1L, 2L}) {
      List<Op> ops = new ArrayList<>(crashed);
      ops.add(Op.of(2, 1, OpType.INVOKE, "read", null));
      ops.add(Op.of(3, 1, OpType.OK, "read", read));
      // the crashed write of 1 may have happened, or not; nothing wrote 2
      Verdict expected = read == 2L ? Verdict.INVALID : Verdict.VALID;
      assertThat(Linearizability.check(Models.casRegister(0L), History.of("crash", ops))
          .verdict()).as("read %d", read).isEqualTo(expected);
      // the same with a key: the key split pairs it the same way
      assertThat(Linearizability.check(Models.casRegister(0L),
          History.of("keyed", ops.stream().map(o -> withKey(o, 7L)).toList())).verdict())
          .as("keyed, read %d", read).isEqualTo(expected);
    }
    // an :ok of another function is still bad input
    History okOfAnother = History.of("ok", List.of(
        Op.of(0, 0, OpType.INVOKE, "write", 1L), Op.of(1, 0, OpType.OK, "read", 1L)));
    assertThat(okOfAnother.validate()).singleElement().asString()
        .contains("completes :read but its open invocation");
  }
}
