package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checker against a brute-force enumeration of all orders, on seeded random histories with
 * several processes, crashes (:info), failures and corrupted results: 0 disagreements allowed.
 * The register models run under both readings of an :ok read of nil (Knossos' wildcard, whose
 * rule the brute force applies itself, and strict): 10 cases x 8 seed blocks x 300 histories =
 * 24,000 histories.
 */
class DifferentialTest {
  private static final int PER_BLOCK = 300;
  private static final int MAX_OPS = 9;

  /**
   * @param model the model the checker uses
   * @param reference the model the brute force uses: the strict one when the brute force applies
   *     Knossos' nil rule itself ({@code nilIsWildcard})
   */
  record Case(
      String name,
      Supplier<Model<?>> model,
      Supplier<Model<?>> reference,
      boolean nilIsWildcard,
      Supplier<RandomHistories.Sim> sim) {
    Case(String name, Supplier<Model<?>> model, Supplier<RandomHistories.Sim> sim) {
      this(name, model, model, false, sim);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> cases() {
    Case[] cases = {
      new Case(
          "register",
          () -> Models.register(null),
          () -> Models.register(null, NilReads.STRICT),
          true,
          () -> RandomHistories.register(false)),
      new Case(
          "register strict-nil",
          () -> Models.register(null, NilReads.STRICT),
          () -> RandomHistories.register(false)),
      new Case(
          "cas-register",
          () -> Models.casRegister(null),
          () -> Models.casRegister(null, NilReads.STRICT),
          true,
          () -> RandomHistories.register(true)),
      new Case(
          "cas-register strict-nil",
          () -> Models.casRegister(null, NilReads.STRICT),
          () -> RandomHistories.register(true)),
      new Case("mutex", Models::mutex, RandomHistories::mutex),
      new Case("set", Models::set, RandomHistories::set),
      new Case("fifo-queue", Models::fifoQueue, () -> RandomHistories.queue(true)),
      new Case("unordered-queue", Models::unorderedQueue, () -> RandomHistories.queue(false)),
      new Case(
          "multi-register",
          () -> Models.multiRegister(java.util.Map.of()),
          () -> Models.multiRegister(java.util.Map.of(), NilReads.STRICT),
          true,
          RandomHistories::multiRegister),
      new Case(
          "multi-register strict-nil",
          () -> Models.multiRegister(java.util.Map.of(), NilReads.STRICT),
          RandomHistories::multiRegister),
    };
    return Stream.of(cases).flatMap(c -> Stream.iterate(0L, b -> b + 1).limit(8)
        .map(block -> Arguments.of(c, 0xC0FFEEL + block * 1_000_003L)));
  }

  @ParameterizedTest(name = "{0} seeds from {1}")
  @MethodSource("cases")
  void agreesWithBruteForce(Case c, long firstSeed) {
    int valid = 0;
    int invalid = 0;
    Model<?> model = c.model().get();
    Model<?> reference = c.reference().get();
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    for (long seed = firstSeed; seed < firstSeed + PER_BLOCK; seed++) {
      History h = RandomHistories.generate(seed, c.sim().get(), MAX_OPS);
      boolean expected = BruteForce.linearizable(reference, h, c.nilIsWildcard());
      Analysis a = Linearizability.check(model, h, sequential);
      assertThat(a.verdict()).as("%s seed %d: %s", c.name(), seed, h.ops())
          .isEqualTo(expected ? Verdict.VALID : Verdict.INVALID);
      if (expected) {
        valid++;
        // the linearization found must itself replay through the model
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("%s seed %d", c.name(), seed)
            .isTrue();
      } else {
        invalid++;
        assertThat(a.failure().orElseThrow().evidence())
            .as("%s seed %d", c.name(), seed)
            .isNotNull();
      }
    }
    assertThat(valid)
        .as("%s from seed %d: valid histories", c.name(), firstSeed)
        .isGreaterThan(PER_BLOCK / 10);
    assertThat(invalid)
        .as("%s from seed %d: invalid histories", c.name(), firstSeed)
        .isGreaterThan(PER_BLOCK / 20);
  }

  /**
   * The two readings of nil must really differ on the generated histories, or the cases above prove
   * little.
   */
  @org.junit.jupiter.api.Test
  void theTwoReadingsOfNilDisagreeOnSomeHistories() {
    int differ = 0;
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    for (long seed = 1; seed <= 300; seed++) {
      History h = RandomHistories.generate(seed, RandomHistories.register(true), MAX_OPS);
      Verdict knossos = Linearizability.check(Models.casRegister(null), h, sequential).verdict();
      Verdict strict =
          Linearizability.check(Models.casRegister(null, NilReads.STRICT), h, sequential).verdict();
      if (knossos != strict) {
        assertThat(knossos)
            .as("seed %d: the wildcard only accepts more", seed)
            .isEqualTo(Verdict.VALID);
        differ++;
      }
    }
    assertThat(differ).isPositive();
  }
}
