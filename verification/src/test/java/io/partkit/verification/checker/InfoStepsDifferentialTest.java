package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The register models' cut (Model.ignoresState: WglSearch takes an :info step that changes the
 * state only directly before an operation that looks at the state) against the brute force, with
 * the models' other reduction (unobserved :info writes, Model.droppable) off so that the cut is
 * tested alone, on from the first step and turned on after 3 steps (the checker turns it on
 * with the reduction, after Linearizability.REDUCE_AFTER steps): the histories of
 * {@link InfoWritesDifferentialTest} (about 35% :info completions, never-completed operations,
 * 3 reused values, so that most :info writes are observed), 0 disagreements under both readings
 * of nil, both verdicts frequent, and the cut must really save steps in many of them. Longer
 * histories, out of the brute force's reach, are checked against the same search without the cut.
 */
class InfoStepsDifferentialTest {
  private static final int HISTORIES = 1500;

  @ParameterizedTest(name = "{0} cas={1} init={2} {3}")
  @CsvSource({
      "register, false, nil, KNOSSOS", "register, false, nil, STRICT",
      "register, false, 0, KNOSSOS", "register, false, 0, STRICT",
      "cas-register, true, nil, KNOSSOS", "cas-register, true, nil, STRICT",
      "cas-register, true, 1, KNOSSOS", "cas-register, true, 1, STRICT"})
  void agreesWithBruteForce(String name, boolean cas, String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    Object init = setup.init();
    Model<?> model = setup.model();
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    int cut = 0;
    long firstSeed = 0x5EEDL * (cas ? 3 : 1) + (init == null ? 0 : 7) + (setup.wildcard() ? 0 : 11);
    for (long seed = firstSeed; seed < firstSeed + HISTORIES; seed++) {
      History h = InfoWritesDifferentialTest.generate(seed, cas, init);
      boolean expected = setup.linearizable(h);
      Verdict want = expected ? Verdict.VALID : Verdict.INVALID;
      // the cut from the first step, and turned on after 3 steps
      Analysis a = Linearizability.check(cutOnly(model), h, sequential, 0);
      assertThat(a.verdict()).as("%s seed %d: %s", name, seed, h.ops()).isEqualTo(want);
      Analysis later = Linearizability.check(cutOnly(model), h, sequential, 3);
      assertThat(later.verdict()).as("%s seed %d, cut after 3 steps: %s", name, seed, h.ops())
          .isEqualTo(want);
      if (expected) {
        valid++;
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("%s seed %d", name, seed).isTrue();
      } else {
        invalid++;
        assertThat(a.failure().orElseThrow().evidence()).as("%s seed %d", name, seed).isNotNull();
      }
      Analysis without = Linearizability.check(withoutCut(model), h, sequential, Long.MAX_VALUE);
      assertThat(without.verdict()).as("%s seed %d without the cut", name, seed).isEqualTo(want);
      if (!a.keys().isEmpty() && a.keys().get(0).steps() < without.keys().get(0).steps()) {
        cut++;
      }
      // keyed: this history under key "a" and the next seed's under key "b", two threads sharing
      // the keys in slices
      History h2 = InfoWritesDifferentialTest.generate(seed + HISTORIES, cas, init);
      boolean expected2 = setup.linearizable(h2);
      History both = InfoWritesDifferentialTest.keyed(h, h2);
      Analysis keyed = Linearizability.check(cutOnly(model), both,
          CheckOptions.defaults().withParallelism(2).withStopOnFirstInvalid(false), 3);
      assertThat(keyed.verdict()).as("%s seeds %d and %d keyed", name, seed, seed + HISTORIES)
          .isEqualTo(expected && expected2 ? Verdict.VALID : Verdict.INVALID);
    }
    assertThat(valid).as("valid").isGreaterThan(HISTORIES / 10);
    assertThat(invalid).as("invalid").isGreaterThan(HISTORIES / 20);
    // :info reads are no longer walked past (not linked into the search's list), which the cut
    // skipped in owed configurations: fewer histories show a saving (91 of 1,500 at the least)
    assertThat(cut).as("histories searched in fewer steps").isGreaterThan(HISTORIES / 20);
  }

  @ParameterizedTest(name = "cas={0} {1}")
  @CsvSource({"false, KNOSSOS", "false, STRICT", "true, KNOSSOS", "true, STRICT"})
  void agreesWithTheSearchWithoutTheCutOnLongerHistories(boolean cas, NilReads nilReads) {
    Model<?> model = cas ? Models.casRegister(null, nilReads) : Models.register(null, nilReads);
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    long firstSeed = 0xC0FFEEL + (cas ? 5000 : 0) + (nilReads == NilReads.STRICT ? 10_000 : 0);
    for (long seed = firstSeed; seed < firstSeed + 300; seed++) {
      History h = InfoWritesDifferentialTest.generate(seed, cas, null, 40);
      Analysis a = Linearizability.check(cutOnly(model), h, sequential, 0);
      Analysis without = Linearizability.check(withoutCut(model), h, sequential, Long.MAX_VALUE);
      assertThat(a.verdict()).as("seed %d: %s", seed, h.ops()).isEqualTo(without.verdict());
      assertThat(Linearizability.check(cutOnly(model), h, sequential, 5).verdict())
          .as("seed %d, cut after 5 steps: %s", seed, h.ops()).isEqualTo(without.verdict());
      if (a.verdict() == Verdict.VALID) {
        valid++;
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("seed %d", seed).isTrue();
      } else {
        invalid++;
      }
    }
    assertThat(valid).as("valid").isGreaterThan(30);
    assertThat(invalid).as("invalid").isGreaterThan(15);
  }

  /** The model with its step, reads and cut, without its reduction. */
  static <S> Model<S> cutOnly(Model<S> m) {
    return ForwardingModel.of(m, ForwardingModel.Keep.CUT);
  }

  /** The model with its step and reads, but neither its cut nor its reduction. */
  static <S> Model<S> withoutCut(Model<S> m) {
    return ForwardingModel.of(m);
  }
}
