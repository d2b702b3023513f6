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

  /**
   * Dense histories: crashed writes and cas (4 to 7, many invoked first) under one process's
   * sequence of reads, writes and cas with random results, over 3 values, so that chains of
   * crashed cas, a crashed write against a chain, and a crashed operation needed twice over
   * occur often; most are invalid, many valid.
   */
  @ParameterizedTest(name = "init={0} {1}")
  @CsvSource({"nil, STRICT", "0, STRICT", "nil, KNOSSOS", "1, KNOSSOS"})
  void agreesWithBruteForceOnDenseCrashes(String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(true, initText, nilReads);
    Model<?> model = setup.model();
    Model<?> unreduced = ForwardingModel.of(model, ForwardingModel.Keep.CUT,
        ForwardingModel.Keep.REQUIRED_STATE, ForwardingModel.Keep.STATE_AFTER);
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    long firstSeed = 0xDE45EL + initText.hashCode() + nilReads.ordinal();
    for (long seed = firstSeed; seed < firstSeed + 1500; seed++) {
      History h = dense(seed);
      boolean expected = setup.linearizable(h);
      Verdict want = expected ? Verdict.VALID : Verdict.INVALID;
      for (long after : new long[] {0, Linearizability.REDUCE_AFTER}) {
        assertThat(Linearizability.check(model, h, sequential, after).verdict())
            .as("seed %d, reduced after %d: %s", seed, after, h.ops()).isEqualTo(want);
        Analysis u = Linearizability.check(unreduced, h, sequential, after);
        assertThat(u.verdict()).as("seed %d, unreduced, cut after %d: %s", seed, after, h.ops())
            .isEqualTo(want);
        if (expected) {
          assertThat(Replay.replays(model, u.keys().get(0).linearization()))
              .as("seed %d: the linearization replays", seed).isTrue();
        }
      }
      if (expected) {
        valid++;
      } else {
        invalid++;
      }
    }
    assertThat(valid).as("valid").isGreaterThan(150);
    assertThat(invalid).as("invalid").isGreaterThan(150);
  }

  /**
   * Hand-made cases of the dominance rules' limits, each valid only through the linearization a
   * wrong rule would cut: crashed operations are invoked first (processes 1..), then process 0
   * runs its :ok operations one after another. Cas values are [old new].
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // a chain of crashed cas to 2, because the crashed write of 2 is needed later from 3
      "chain before write | cas 0 1, cas 1 2, write 2 | read 2, write 3, read 2 | true",
      // the same, with no later need: valid through the write alone too
      "write alone | cas 0 1, cas 1 2, write 2 | read 2 | true",
      // a guarded cas is used first and the write later from another state
      "guarded first | write 2, cas 0 2 | read 2, write 3, read 2 | true",
      // the crashed write is needed first (from 3): the cas cannot serve
      "blind needed | write 2, cas 0 2 | write 3, read 2, read 2 | true",
      // one crashed write of 2 cannot serve twice
      "spent | write 2 | read 2, write 3, read 2 | false",
      // two equal crashed writes serve twice
      "two equal | write 2, write 2 | read 2, write 3, read 2 | true",
      // a chain through the initial state back to it is not needed, and not enough
      "cycle | cas 0 1, cas 1 0 | read 1, read 0, read 1 | false"})
  void handMadeCases(String name, String crashed, String oks, boolean valid) {
    List<Op> out = new ArrayList<>();
    long proc = 1;
    for (String c : crashed.split(",")) {
      String[] w = c.trim().split(" ");
      Object v = w[0].equals("write") ? (Object) Long.parseLong(w[1])
          : List.of(Long.parseLong(w[1]), Long.parseLong(w[2]));
      out.add(new Op(out.size(), proc, OpType.INVOKE, w[0], v, null, -1, 0));
      out.add(new Op(out.size(), proc++, OpType.INFO, w[0], v, null, -1, 0));
    }
    for (String o : oks.split(",")) {
      String[] w = o.trim().split(" ");
      Object v = Long.parseLong(w[1]);
      out.add(new Op(out.size(), 0L, OpType.INVOKE, w[0], w[0].equals("read") ? null : v, null,
          -1, 0));
      out.add(new Op(out.size(), 0L, OpType.OK, w[0], v, null, -1, 0));
    }
    History h = History.of(name, out);
    RegisterSetup setup = RegisterSetup.of(true, "0", NilReads.STRICT);
    assertThat(setup.linearizable(h)).as("brute force: %s", h.ops()).isEqualTo(valid);
    Model<?> unreduced = ForwardingModel.of(setup.model(), ForwardingModel.Keep.CUT,
        ForwardingModel.Keep.REQUIRED_STATE, ForwardingModel.Keep.STATE_AFTER);
    for (long after : new long[] {0, Linearizability.REDUCE_AFTER}) {
      assertThat(Linearizability.check(setup.model(), h, CheckOptions.defaults(), after).verdict())
          .as("%s", h.ops()).isEqualTo(valid ? Verdict.VALID : Verdict.INVALID);
      assertThat(Linearizability.check(unreduced, h, CheckOptions.defaults(), after).verdict())
          .as("unreduced: %s", h.ops()).isEqualTo(valid ? Verdict.VALID : Verdict.INVALID);
    }
  }

  /** A dense history (see agreesWithBruteForceOnDenseCrashes). */
  static History dense(long seed) {
    Random rnd = new Random(seed);
    List<Op> out = new ArrayList<>();
    int crashes = 4 + rnd.nextInt(4);
    int oks = 3 + rnd.nextInt(4);
    long proc = 1;
    while (crashes > 0 || oks > 0) {
      if (crashes > 0 && (oks == 0 || rnd.nextInt(3) > 0)) {
        crashes--;
        boolean write = rnd.nextInt(3) == 0;
        Object v = write ? (Object) (long) rnd.nextInt(3)
            : List.of((long) rnd.nextInt(3), (long) rnd.nextInt(3));
        String f = write ? "write" : "cas";
        out.add(new Op(out.size(), proc, OpType.INVOKE, f, v, null, -1, 0));
        out.add(new Op(out.size(), proc++, OpType.INFO, f, v, null, -1, 0));
      } else {
        oks--;
        int kind = rnd.nextInt(3);
        String f = kind == 0 ? "read" : kind == 1 ? "write" : "cas";
        Object v = kind == 0 ? null : kind == 1 ? (Object) (long) rnd.nextInt(3)
            : List.of((long) rnd.nextInt(3), (long) rnd.nextInt(3));
        out.add(new Op(out.size(), 0L, OpType.INVOKE, f, v, null, -1, 0));
        Object result = kind == 0 ? (Object) (long) rnd.nextInt(3) : v;
        out.add(new Op(out.size(), 0L, kind == 2 && rnd.nextInt(3) == 0 ? OpType.FAIL : OpType.OK,
            f, result, null, -1, 0));
      }
    }
    return History.of("dense seed " + seed, out);
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
