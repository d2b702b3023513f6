package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.bench.CrashedHistories;
import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The search's reductions for crashed operations (WglSearch's class comment, "Crashed
 * operations": interchangeable :info operations taken in invocation order, a guarded :info step
 * before a blind one with the same effect, the only :ok operation left at the head dominating the
 * :info runs before it, and :info runs only towards an :ok observer) against the brute force, on
 * small seeded histories of {@link CrashedHistories} with many crashed writes and cas (35% of
 * them, half taking effect later, while other operations run) over 2 or 3 values, so that equal
 * crashed operations are frequent; three in four have a read or cas result changed at random, so
 * that both verdicts occur. Checked with the models' reduction (unobserved :info writes) and
 * without it (so the :info operations it would drop stay in the search), and keyed in pairs on
 * two threads. Longer histories, out of the brute force's reach, are checked against the search
 * without the hooks these reductions are built on (Model.requiredState and Model.stateAfter).
 */
class CrashedOpsDifferentialTest {
  private static final int HISTORIES = 700;

  @ParameterizedTest(name = "c{0} values={1} init={2} {3} cas={4}")
  @CsvSource({
      "1, 2, nil, KNOSSOS, true", "1, 3, 1, STRICT, true", "2, 2, nil, STRICT, true",
      "2, 3, nil, KNOSSOS, true", "3, 2, 1, KNOSSOS, true", "3, 3, 0, STRICT, true",
      "2, 2, nil, STRICT, false", "3, 3, 1, KNOSSOS, false"})
  void agreesWithBruteForce(int concurrency, int values, String initText, NilReads nilReads,
      boolean cas) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    Model<?> model = setup.model();
    Model<?> unreduced = ForwardingModel.of(model, ForwardingModel.Keep.CUT,
        ForwardingModel.Keep.REQUIRED_STATE, ForwardingModel.Keep.STATE_AFTER);
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    int crashed = 0;
    long firstSeed = 0xC4A5L * concurrency + 31L * values + (cas ? 0 : 7);
    for (long seed = firstSeed; seed < firstSeed + HISTORIES; seed++) {
      History h = generate(seed, concurrency, values, cas, 6 + (int) (seed % 5));
      crashed += (int) h.ops().stream().filter(o -> o.type() == OpType.INFO).count();
      boolean expected = setup.linearizable(h);
      Verdict want = expected ? Verdict.VALID : Verdict.INVALID;
      for (long after : new long[] {0, 3, Linearizability.REDUCE_AFTER}) {
        Analysis a = Linearizability.check(model, h, sequential, after);
        assertThat(a.verdict()).as("seed %d, reduced after %d: %s", seed, after, h.ops())
            .isEqualTo(want);
        Analysis u = Linearizability.check(unreduced, h, sequential, after);
        assertThat(u.verdict()).as("seed %d, unreduced, cut after %d: %s", seed, after, h.ops())
            .isEqualTo(want);
        if (expected) {
          assertThat(Replay.replays(model, u.keys().get(0).linearization()))
              .as("seed %d: the linearization replays", seed).isTrue();
        } else {
          assertThat(u.failure().orElseThrow().evidence()).as("seed %d", seed).isNotNull();
        }
      }
      History h2 = generate(seed + HISTORIES, concurrency, values, cas, 6 + (int) (seed % 4));
      boolean expected2 = setup.linearizable(h2);
      Analysis keyed = Linearizability.check(unreduced, InfoWritesDifferentialTest.keyed(h, h2),
          CheckOptions.defaults().withParallelism(2).withStopOnFirstInvalid(false), 3);
      assertThat(keyed.verdict()).as("seeds %d and %d keyed", seed, seed + HISTORIES)
          .isEqualTo(expected && expected2 ? Verdict.VALID : Verdict.INVALID);
      if (expected) {
        valid++;
      } else {
        invalid++;
      }
    }
    assertThat(valid).as("valid").isGreaterThan(HISTORIES / 5);
    assertThat(invalid).as("invalid").isGreaterThan(HISTORIES / 8);
    assertThat(crashed).as("crashed operations").isGreaterThan(HISTORIES);
  }

  @ParameterizedTest(name = "c{0} values={1}")
  @CsvSource({"1, 2", "1, 3", "3, 3", "5, 5"})
  void agreesWithTheSearchWithoutItsHooksOnLongerHistories(int concurrency, int values) {
    Model<?> model = Models.casRegister(null);
    // the step, the reads and the cut, without the hooks the reductions are built on
    Model<?> plain = ForwardingModel.of(model, ForwardingModel.Keep.CUT);
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    long firstSeed = 0xBEEFL * concurrency + values;
    for (long seed = firstSeed; seed < firstSeed + 200; seed++) {
      History h = generate(seed, concurrency, values, true, 40);
      Analysis reference = Linearizability.check(plain, h, sequential, Long.MAX_VALUE);
      Analysis a = Linearizability.check(model, h, sequential, 0);
      assertThat(a.verdict()).as("seed %d: %s", seed, h.ops()).isEqualTo(reference.verdict());
      Analysis later = Linearizability.check(model, h, sequential, Linearizability.REDUCE_AFTER);
      assertThat(later.verdict()).as("seed %d: %s", seed, h.ops()).isEqualTo(reference.verdict());
      if (a.verdict() == Verdict.VALID) {
        valid++;
        assertThat(Replay.replays(model, later.keys().get(0).linearization()))
            .as("seed %d", seed).isTrue();
      } else {
        invalid++;
      }
    }
    assertThat(valid).as("valid").isGreaterThan(20);
    assertThat(invalid).as("invalid").isGreaterThan(10);
  }

  /**
   * A history of {@link CrashedHistories} with 35% of its writes and cas crashed, and with
   * probability three in four one :ok read's or cas' value replaced by a random one (up to three
   * in histories of more than 20 operations; each may or may not make it invalid: the brute
   * force decides). Without {@code cas}, cas become writes.
   */
  static History generate(long seed, int concurrency, int values, boolean cas, int ops) {
    History h = CrashedHistories.generate(seed, ops, concurrency, 0.35, values);
    Random rnd = new Random(seed * 31 + 7);
    List<Op> out = new ArrayList<>(h.ops().size());
    for (Op o : h.ops()) {
      if (!cas && o.f().equals("cas")) {
        Object v = o.value() instanceof List<?> l ? l.get(1) : o.value();
        o = new Op(o.index(), o.process(), o.type() == OpType.FAIL ? OpType.OK : o.type(),
            "write", v, o.key(), o.time(), o.line());
      }
      out.add(o);
    }
    for (int k = 0; k < (ops > 20 ? 3 : 1) && rnd.nextInt(4) > 0; k++) {
      List<Integer> results = new ArrayList<>();
      for (int i = 0; i < out.size(); i++) {
        Op o = out.get(i);
        if (o.type() == OpType.OK && !o.f().equals("write")) {
          results.add(i);
        }
      }
      if (!results.isEmpty()) {
        int i = results.get(rnd.nextInt(results.size()));
        Op o = out.get(i);
        long v = rnd.nextInt(values);
        out.set(i, o.withValue(o.f().equals("read") ? (Object) v
            : List.of(v, ((List<?>) o.value()).get(1))));
      }
    }
    return History.of(h.source(), out);
  }
}
