package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.NilReads;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link SequentialDecider} against the brute force on small seeded histories whose :ok
 * operations follow one another, with many crashed writes and cas over 2 or 3 values (so that
 * equal crashed operations, chains of crashed cas and a crashed write against a cas are
 * frequent), both verdicts; and against the search (without the decider) on longer ones. Every
 * valid decision's linearization replays; every invalid one has evidence. Histories with
 * overlapping :ok operations are left to the search (null).
 */
class SequentialDeciderTest {

  @ParameterizedTest(name = "init={0} {1}")
  @CsvSource({"nil, STRICT", "0, STRICT", "nil, KNOSSOS", "1, KNOSSOS"})
  void agreesWithBruteForceOnDenseCrashes(String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(true, initText, nilReads);
    int[] verdicts = new int[2];
    long firstSeed = 0x5E9DL + initText.hashCode() * 7L + nilReads.ordinal();
    for (long seed = firstSeed; seed < firstSeed + 1500; seed++) {
      History h = CrashedOpsDifferentialTest.dense(seed);
      verdicts[check(setup, h, seed) ? 1 : 0]++;
    }
    assertThat(verdicts[1]).as("valid").isGreaterThan(150);
    assertThat(verdicts[0]).as("invalid").isGreaterThan(150);
  }

  @ParameterizedTest(name = "values={0} init={1} {2} cas={3}")
  @CsvSource({"2, nil, KNOSSOS, true", "3, 1, STRICT, true", "3, 0, STRICT, true",
      "2, nil, STRICT, false", "3, 1, KNOSSOS, false"})
  void agreesWithBruteForceAtConcurrencyOne(int values, String initText, NilReads nilReads,
      boolean cas) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    int[] verdicts = new int[2];
    long firstSeed = 0xC1L * values + (cas ? 0 : 13) + nilReads.ordinal();
    for (long seed = firstSeed; seed < firstSeed + 700; seed++) {
      History h = CrashedOpsDifferentialTest.generate(seed, 1, values, cas, 6 + (int) (seed % 6));
      verdicts[check(setup, h, seed) ? 1 : 0]++;
    }
    assertThat(verdicts[1]).as("valid").isGreaterThan(100);
    assertThat(verdicts[0]).as("invalid").isGreaterThan(50);
  }

  /**
   * Through the checker, which tries the decider once a key's search struggles (here: at once):
   * the verdicts of the brute force, a linearization that replays or evidence.
   */
  @ParameterizedTest(name = "init={0} {1}")
  @CsvSource({"nil, STRICT", "1, KNOSSOS"})
  void decidesThroughTheChecker(String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(true, initText, nilReads);
    Model<?> model = setup.model();
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    for (long seed = 0xC4EC; seed < 0xC4EC + 500; seed++) {
      History h = CrashedOpsDifferentialTest.dense(seed);
      boolean expected = setup.linearizable(h);
      Analysis a = Linearizability.check(model, h, sequential, 0, 0);
      assertThat(a.verdict()).as("seed %d: %s", seed, h.ops())
          .isEqualTo(expected ? Verdict.VALID : Verdict.INVALID);
      if (expected) {
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("seed %d: the linearization replays", seed).isTrue();
      } else {
        assertThat(a.failure().orElseThrow().evidence()).as("seed %d", seed).isNotNull();
      }
    }
  }

  /** Longer histories, out of the brute force's reach: the search without the decider. */
  @ParameterizedTest(name = "values={0}")
  @CsvSource({"2", "3", "5"})
  void agreesWithTheSearchOnLongerHistories(int values) {
    RegisterSetup setup = RegisterSetup.of(true, "0", NilReads.STRICT);
    Model<?> model = setup.model();
    CheckOptions options = CheckOptions.defaults().withParallelism(1)
        .withTimeLimit(Duration.ofSeconds(20));
    int compared = 0;
    for (long seed = 0x10A6L * values; seed < 0x10A6L * values + 200; seed++) {
      int ops = 40 + (int) (seed % 60);
      History h = CrashedOpsDifferentialTest.generate(seed, 1, values, true, ops);
      SequentialDecider.Decision d =
          SequentialDecider.decide(model, Paired.ofWellFormed(h.ops()), null);
      assertThat(d).as("seed %d: decided", seed).isNotNull();
      Analysis search = Linearizability.check(model, h, options, Long.MAX_VALUE);
      if (search.verdict() == Verdict.UNKNOWN) {
        continue;
      }
      compared++;
      assertThat(d.valid()).as("seed %d: %s", seed, h.ops())
          .isEqualTo(search.verdict() == Verdict.VALID);
    }
    assertThat(compared).as("histories the search decided").isGreaterThan(150);
  }

  /** Checks one history; returns the brute force's verdict. */
  private static boolean check(RegisterSetup setup, History h, long seed) {
    boolean expected = setup.linearizable(h);
    Model<?> model = setup.model();
    SequentialDecider.Decision d =
        SequentialDecider.decide(model, Paired.ofWellFormed(h.ops()), null);
    assertThat(d).as("seed %d: decided: %s", seed, h.ops()).isNotNull();
    assertThat(d.valid()).as("seed %d: %s", seed, h.ops()).isEqualTo(expected);
    if (expected) {
      assertThat(Replay.replays(model, d.linearization()))
          .as("seed %d: the linearization replays: %s", seed, d.linearization()).isTrue();
    } else {
      assertThat(d.evidence()).as("seed %d", seed).isNotNull();
      assertThat(d.evidence().longestPrefixes()).as("seed %d", seed).isNotEmpty();
    }
    return expected;
  }
}
