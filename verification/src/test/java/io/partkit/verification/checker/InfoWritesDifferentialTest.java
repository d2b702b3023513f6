package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.NilReads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The register models' reduction (unobserved :info writes are left out of the search,
 * {@code RegisterModel.droppable}) against the brute force, which never reduces: seeded histories
 * rich in :info and never-completed writes and cas over few, reused values (so written values are
 * often written twice, equal the initial state, or are a crashed cas's expected value), with
 * corrupted results so that both verdicts occur. 0 disagreements, under both readings of nil;
 * and the reduction must really drop operations in many of them. The checker applies it only to
 * keys not decided within {@code Linearizability.REDUCE_AFTER} steps; here it is applied before
 * the search and after 3 steps (a restart).
 */
class InfoWritesDifferentialTest {
  private static final int HISTORIES = 1500;

  @ParameterizedTest(name = "{0} cas={1} init={2} {3}")
  @CsvSource({
    "register, false, nil, KNOSSOS", "register, false, nil, STRICT", "register, false, 0, KNOSSOS",
    "register, false, 0, STRICT", "cas-register, true, nil, KNOSSOS",
        "cas-register, true, nil, STRICT",
    "cas-register, true, 1, KNOSSOS", "cas-register, true, 1, STRICT"
  })
  void agreesWithBruteForce(String name, boolean cas, String initText, NilReads nilReads) {
    RegisterSetup setup = RegisterSetup.of(cas, initText, nilReads);
    Object init = setup.init();
    Model<?> model = setup.model();
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    int reduced = 0;
    long firstSeed = 0x1AF0L * (cas ? 3 : 1) + (init == null ? 0 : 7) + (setup.wildcard() ? 0 : 11);
    for (long seed = firstSeed; seed < firstSeed + HISTORIES; seed++) {
      History h = generate(seed, cas, init);
      boolean expected = setup.linearizable(h);
      // reduced before the search, and after a few steps of an unreduced search (then restarted)
      Analysis a = Linearizability.check(model, h, sequential, 0);
      assertThat(a.verdict()).as("%s seed %d: %s", name, seed, h.ops())
          .isEqualTo(expected ? Verdict.VALID : Verdict.INVALID);
      Analysis later = Linearizability.check(model, h, sequential, 3);
      assertThat(later.verdict()).as("%s seed %d (reduced after 3 steps): %s", name, seed, h.ops())
          .isEqualTo(expected ? Verdict.VALID : Verdict.INVALID);
      if (expected) {
        assertThat(Replay.replays(model, later.keys().get(0).linearization()))
            .as("%s seed %d", name, seed)
            .isTrue();
      } else {
        assertThat(later.failure().orElseThrow().evidence())
            .as("%s seed %d", name, seed)
            .isNotNull();
      }
      // keyed: this history under key "a" and the next seed's under key "b", two threads sharing
      // the keys in slices, reduced after 3 steps
      History h2 = generate(seed + HISTORIES, cas, init);
      boolean expected2 = setup.linearizable(h2);
      Analysis keyed =
          Linearizability.check(
              model,
              keyed(h, h2),
              CheckOptions.defaults().withParallelism(2).withStopOnFirstInvalid(false),
              3);
      assertThat(keyed.verdict()).as("%s seeds %d and %d keyed", name, seed, seed + HISTORIES)
          .isEqualTo(expected && expected2 ? Verdict.VALID : Verdict.INVALID);
      Paired p = Paired.of(h.ops());
      if (p.reduced(model).ops().length < p.ops().length) {
        reduced++;
      }
      if (expected) {
        valid++;
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("%s seed %d", name, seed)
            .isTrue();
      } else {
        invalid++;
        assertThat(a.failure().orElseThrow().evidence()).as("%s seed %d", name, seed).isNotNull();
      }
    }
    assertThat(valid).as("valid").isGreaterThan(HISTORIES / 10);
    assertThat(invalid).as("invalid").isGreaterThan(HISTORIES / 20);
    assertThat(reduced).as("histories with dropped operations").isGreaterThan(HISTORIES / 5);
  }

  /**
   * A simulated register: 2-4 processes, up to 10 operations over values 0-2; an operation takes
   * effect at a random moment (or never) and completes :ok, :fail, :info (about 35%, the process
   * is replaced) or never (at the end). In half the histories one :ok result is corrupted.
   */
  static History generate(long seed, boolean cas, Object init) {
    return generate(seed, cas, init, 10);
  }

  /** As {@link #generate(long, boolean, Object)}, with up to {@code maxOps} (>= 3) operations. */
  static History generate(long seed, boolean cas, Object init, int maxOps) {
    Random rnd = new Random(seed);
    int processes = 2 + rnd.nextInt(3);
    int total = 3 + rnd.nextInt(maxOps - 2);
    List<Op> ops = new ArrayList<>();
    long[] procId = new long[processes];
    long nextId = processes;
    for (int p = 0; p < processes; p++) {
      procId[p] = p;
    }
    Object[][] pending = new Object[processes][]; // f, arg, effected, result
    Object value = init;
    int invoked = 0;
    int steps = 0;
    while ((invoked < total || Arrays.stream(pending).anyMatch(Objects::nonNull))
        && steps++ < 500) {
      int slot = rnd.nextInt(processes);
      Object[] st = pending[slot];
      if (st == null) {
        if (invoked >= total) {
          continue;
        }
        int k = rnd.nextInt(cas ? 5 : 4);
        Object[] inv = k <= 1 ? new Object[] {"read", null}
            : k <= 3 ? new Object[] {"write", (long) rnd.nextInt(3)}
            : new Object[] {"cas", List.of((long) rnd.nextInt(3), (long) rnd.nextInt(3))};
        ops.add(Op.of(ops.size(), procId[slot], OpType.INVOKE, (String) inv[0], inv[1]));
        pending[slot] = new Object[] {inv[0], inv[1], Boolean.FALSE, null};
        invoked++;
      } else if (!(Boolean) st[2] && rnd.nextInt(3) != 0) {
        String f = (String) st[0];
        if (f.equals("read")) {
          st[3] = value;
        } else if (f.equals("write")) {
          value = st[1];
          st[3] = st[1];
        } else {
          List<?> pair = (List<?>) st[1];
          if (Objects.equals(value, pair.get(0))) {
            value = pair.get(1);
            st[3] = st[1];
          } else {
            st[3] = RandomHistories.FAILED;
          }
        }
        st[2] = Boolean.TRUE;
      } else {
        String f = (String) st[0];
        if (invoked >= total && rnd.nextInt(6) == 0) {
          pending[slot] = null; // never completes
          procId[slot] = nextId++;
          continue;
        }
        if (rnd.nextInt(100) < 35) {
          ops.add(Op.of(ops.size(), procId[slot], OpType.INFO, f, null));
          procId[slot] = nextId++;
        } else if (!(Boolean) st[2] || st[3] == RandomHistories.FAILED) {
          if (!(Boolean) st[2] && rnd.nextBoolean()) {
            continue;
          }
          ops.add(Op.of(ops.size(), procId[slot], OpType.FAIL, f, st[1]));
        } else {
          ops.add(Op.of(ops.size(), procId[slot], OpType.OK, f, st[3]));
        }
        pending[slot] = null;
      }
    }
    if (rnd.nextBoolean()) {
      List<Integer> oks = new ArrayList<>();
      for (int i = 0; i < ops.size(); i++) {
        if (ops.get(i).type() == OpType.OK && ops.get(i).f().equals("read")) {
          oks.add(i);
        }
      }
      if (!oks.isEmpty()) {
        int i = oks.get(rnd.nextInt(oks.size()));
        int v = rnd.nextInt(4);
        ops.set(i, ops.get(i).withValue(v == 3 ? null : (Object) (long) v));
      }
    }
    return History.of("seed " + seed, ops);
  }

  /** a's operations under key "a", then b's under key "b" with other process numbers. */
  static History keyed(History a, History b) {
    List<Op> ops = new ArrayList<>();
    for (Op o : a.ops()) {
      ops.add(new Op(ops.size(), o.process(), o.type(), o.f(), o.value(), "a", -1, 0));
    }
    for (Op o : b.ops()) {
      ops.add(
          new Op(
              ops.size(),
              1000L + ((Number) o.process()).longValue(),
              o.type(),
              o.f(),
              o.value(),
              "b",
              -1,
              0));
    }
    return History.of("keyed", ops);
  }
}
