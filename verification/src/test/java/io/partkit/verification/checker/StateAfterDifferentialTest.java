package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.NilReads;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The search's move to the one state an operation leaves without the model's step
 * (Model.stateAfter: a register's write and cas, taken where the search knows the operation is
 * legal: it ignores the state, or the state passed its requiredState comparison) against the
 * brute force and against the same search with the model's step: the histories of
 * {@link RequiredStateDifferentialTest} (reads, writes, cas over 3 reused values, :info and
 * :fail completions, values turned by the seed into Longs, Integers or Strings of the same
 * number), with every combination of the abilities the move needs: all of them; without
 * stateAfter; with stateAfter but without requiredState (only writes move without the step);
 * with stateAfter but without ignoresState (only cas do). The cut of ignoresState is on from the
 * first step and after 3 steps, so that the walk, the head of the list and the test of an :info
 * step's observers all take the move. 0 disagreements; both verdicts frequent; a valid
 * history's linearization replays with the model's step. Seeds are printed on failure.
 */
class StateAfterDifferentialTest {
  private static final int HISTORIES = 1500;

  @ParameterizedTest(name = "cas={0} init={1} {2}")
  @CsvSource({
      "false, nil, KNOSSOS", "false, nil, STRICT", "false, 0, KNOSSOS", "false, 0, STRICT",
      "true, nil, KNOSSOS", "true, nil, STRICT", "true, 1, KNOSSOS", "true, 1, STRICT"})
  void agreesWithTheModelsStepAndTheBruteForce(boolean cas, String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    Object init = setup.init();
    Model<?> model = setup.model();
    Model<?> withoutStateAfter = ForwardingModel.of(model, ForwardingModel.Keep.CUT,
        ForwardingModel.Keep.REDUCTION, ForwardingModel.Keep.REQUIRED_STATE);
    Model<?> writesOnly = ForwardingModel.of(model, ForwardingModel.Keep.CUT,
        ForwardingModel.Keep.REDUCTION, ForwardingModel.Keep.STATE_AFTER);
    Model<?> casOnly = ForwardingModel.of(model, ForwardingModel.Keep.REDUCTION,
        ForwardingModel.Keep.REQUIRED_STATE, ForwardingModel.Keep.STATE_AFTER);
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    long firstSeed = 0x57A7EL + (cas ? 20_000 : 0) + (init == null ? 0 : 5_000)
        + (setup.wildcard() ? 0 : 10_000);
    for (long seed = firstSeed; seed < firstSeed + HISTORIES; seed++) {
      History h = RequiredStateDifferentialTest.mixTypes(
          InfoWritesDifferentialTest.generate(seed, cas, init, 12), seed);
      Verdict want =
          setup.linearizable(h) ? Verdict.VALID : Verdict.INVALID;
      Analysis a = Linearizability.check(model, h, sequential);
      assertThat(a.verdict()).as("seed %d: %s", seed, h.ops()).isEqualTo(want);
      for (long reduceAfter : new long[] {0, 3}) {
        assertThat(Linearizability.check(model, h, sequential, reduceAfter).verdict())
            .as("seed %d, cut and reduction after %d steps: %s", seed, reduceAfter, h.ops())
            .isEqualTo(want);
        assertThat(Linearizability.check(writesOnly, h, sequential, reduceAfter).verdict())
            .as("seed %d, without requiredState, after %d: %s", seed, reduceAfter, h.ops())
            .isEqualTo(want);
      }
      assertThat(Linearizability.check(withoutStateAfter, h, sequential).verdict())
          .as("seed %d without stateAfter: %s", seed, h.ops()).isEqualTo(want);
      assertThat(Linearizability.check(casOnly, h, sequential).verdict())
          .as("seed %d without ignoresState: %s", seed, h.ops()).isEqualTo(want);
      if (want == Verdict.VALID) {
        valid++;
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("seed %d replays", seed).isTrue();
      } else {
        invalid++;
      }
      // keyed: with the next seed's history, two threads sharing the keys in slices
      History h2 = RequiredStateDifferentialTest.mixTypes(
          InfoWritesDifferentialTest.generate(seed + HISTORIES, cas, init, 12), seed);
      History both = InfoWritesDifferentialTest.keyed(h, h2);
      CheckOptions two = CheckOptions.defaults().withParallelism(2).withStopOnFirstInvalid(false);
      assertThat(Linearizability.check(model, both, two, 3).verdict())
          .as("seeds %d and %d keyed", seed, seed + HISTORIES)
          .isEqualTo(Linearizability.check(withoutStateAfter, both, two, 3).verdict());
    }
    assertThat(valid).as("valid").isGreaterThan(HISTORIES / 10);
    assertThat(invalid).as("invalid").isGreaterThan(HISTORIES / 10);
  }
}
