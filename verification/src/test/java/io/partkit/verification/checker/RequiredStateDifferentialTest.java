package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.NilReads;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The search's test of a read or a cas against the state without the model's step
 * (Model.requiredState, compared as a long when the value is a Long) against the same search
 * asking the model's step, and against the brute force: the histories of
 * {@link InfoWritesDifferentialTest} (reads, writes, cas over 3 reused values, :info and :fail
 * completions), with each value of each operation turned, by the seed, into a Long, an Integer
 * or a String of the same number, so that reads and cas are compared with states of the same and
 * of other types (a Long equals only a Long). 0 disagreements; both verdicts frequent. Seeds are
 * printed on failure.
 */
class RequiredStateDifferentialTest {
  private static final int HISTORIES = 1500;

  @ParameterizedTest(name = "{0} init={1} {2}")
  @CsvSource({
      "false, nil, KNOSSOS", "false, nil, STRICT", "false, 0, KNOSSOS", "false, 0, STRICT",
      "true, nil, KNOSSOS", "true, nil, STRICT", "true, 1, KNOSSOS", "true, 1, STRICT"})
  void agreesWithTheModelsStepAndTheBruteForce(boolean cas, String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    Object init = setup.init();
    Model<?> model = setup.model();
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    long firstSeed = 0x2EAD0L + (cas ? 20_000 : 0) + (init == null ? 0 : 5_000)
        + (setup.wildcard() ? 0 : 10_000);
    for (long seed = firstSeed; seed < firstSeed + HISTORIES; seed++) {
      History h = mixTypes(InfoWritesDifferentialTest.generate(seed, cas, init, 12), seed);
      Verdict want =
          setup.linearizable(h) ? Verdict.VALID : Verdict.INVALID;
      Verdict got = Linearizability.check(model, h, sequential).verdict();
      assertThat(got).as("seed %d: %s", seed, h.ops()).isEqualTo(want);
      Verdict stepOnly =
          Linearizability.check(withoutRequiredState(model), h, sequential).verdict();
      assertThat(stepOnly).as("seed %d without requiredState: %s", seed, h.ops()).isEqualTo(want);
      if (want == Verdict.VALID) {
        valid++;
      } else {
        invalid++;
      }
      // keyed: with the next seed's history, two threads sharing the keys in slices
      History h2 =
          mixTypes(InfoWritesDifferentialTest.generate(seed + HISTORIES, cas, init, 12), seed);
      History both = InfoWritesDifferentialTest.keyed(h, h2);
      CheckOptions two = CheckOptions.defaults().withParallelism(2).withStopOnFirstInvalid(false);
      assertThat(Linearizability.check(model, both, two).verdict())
          .as("seeds %d and %d keyed", seed, seed + HISTORIES)
          .isEqualTo(Linearizability.check(withoutRequiredState(model), both, two).verdict());
    }
    assertThat(valid).as("valid").isGreaterThan(HISTORIES / 10);
    assertThat(invalid).as("invalid").isGreaterThan(HISTORIES / 10);
  }

  /**
   * The history with each Long value (a cas's old and new values each) made, at random, a Long,
   * an Integer or a String of the same number; nil stays nil. Most seeds keep most values Long.
   */
  static History mixTypes(History h, long seed) {
    Random rnd = new Random(seed * 31 + 7);
    int otherTypes = rnd.nextInt(3); // 0: all Long; else a fraction of the values change type
    List<Op> ops = new ArrayList<>();
    for (Op o : h.ops()) {
      Object v = o.value();
      if (v instanceof List<?> pair) {
        v = List.of(mix(pair.get(0), rnd, otherTypes), mix(pair.get(1), rnd, otherTypes));
      } else {
        v = mix(v, rnd, otherTypes);
      }
      ops.add(o.withValue(v));
    }
    return History.of(h.source(), ops);
  }

  private static Object mix(Object v, Random rnd, int otherTypes) {
    if (!(v instanceof Long) || otherTypes == 0 || rnd.nextInt(4) >= otherTypes) {
      return v;
    }
    long n = (Long) v;
    return rnd.nextBoolean() ? (Object) (int) n : "v" + n;
  }

  /**
   * The model with everything but requiredState and stateAfter (so the search asks the model's
   * step).
   */
  static <S> Model<S> withoutRequiredState(Model<S> m) {
    return ForwardingModel.of(m, ForwardingModel.Keep.CUT, ForwardingModel.Keep.REDUCTION);
  }
}
