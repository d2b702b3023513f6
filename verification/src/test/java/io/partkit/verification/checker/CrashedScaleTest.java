package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.bench.CrashedHistories;
import io.partkit.verification.history.History;
import io.partkit.verification.model.Models;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Longer crashed-operation histories are decided, and in few search steps: valid by
 * construction ({@link CrashedHistories}), so the verdict must be valid, and the steps (exact,
 * whatever the machine's load) at most a small multiple of the operations. Before the search's
 * rules for crashed operations the 1M-operation history of this shape at concurrency 1 ran out of
 * a 1 GB heap after 93M steps, and the 200k one here took 17M steps (148k now; the 20k ones at
 * concurrency 5 and 10: 123k and 134k before, 91k and 124k now). The time limit is only a guard
 * against a hang (generous, for busy machines); how long the checks take is measured by
 * CrashedTiming, not here.
 */
class CrashedScaleTest {

  @ParameterizedTest(name = "seed {0}: {1} ops, concurrency {2}, {3} crashed")
  @CsvSource({"11, 200000, 1, 0.002, 1", "12, 20000, 5, 0.01, 10", "13, 20000, 10, 0.01, 10"})
  void decidedValidInFewSteps(long seed, int ops, int concurrency, double crashRate,
      int stepsPerOp) {
    History h = CrashedHistories.generate(seed, ops, concurrency, crashRate, 5);
    Analysis a = Linearizability.check(Models.casRegister(null), h,
        CheckOptions.defaults().withTimeLimit(Duration.ofMinutes(5)));
    assertThat(a.verdict()).as("seed %d: %s", seed, a.cause()).isEqualTo(Verdict.VALID);
    assertThat(a.keys().get(0).steps()).as("seed %d: search steps", seed)
        .isLessThanOrEqualTo((long) stepsPerOp * ops);
  }
}
