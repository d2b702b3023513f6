package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The differential test's histories fit in one 64-bit word of the linearized set (and are
 * encoded as the whole bitset); these put 250 to 349 sequential operations that end in the
 * initial state in front of them, so the search uses the frontier encoding (FrontierSet) and the
 * random part's operations (:info ones included) sit past word boundaries. The padding cannot
 * change the verdict, so brute force on the random part alone is the reference: 0 disagreements
 * allowed.
 */
class PaddedDifferentialTest {

  @Test
  void registersAgreeWithBruteForceBehindAPadding() {
    agree("cas-register", Models.casRegister(null), true);
  }

  @Test
  void mutexAgreesWithBruteForceBehindAPadding() {
    agree("mutex", Models.mutex(), false);
  }

  /**
   * A crashed write of 7, then 300 sequential writes, then a read of 7: valid only by taking the
   * crashed write last, in a configuration the search reaches after it has failed the same
   * configuration with the crashed write taken early. The two differ only in an :info operation
   * below the frontier's word, which the encoding must keep apart.
   */
  @Test
  void aCrashedWriteBelowTheWindowCanStillTakeEffectLast() {
    List<Op> ops = new ArrayList<>();
    ops.add(Op.of(0, 0, OpType.INVOKE, "write", 7L));
    ops.add(Op.of(1, 0, OpType.INFO, "write", null));
    for (int i = 0; i < 300; i++) {
      ops.add(Op.of(ops.size(), 1, OpType.INVOKE, "write", (long) (i % 3)));
      ops.add(Op.of(ops.size(), 1, OpType.OK, "write", (long) (i % 3)));
    }
    ops.add(Op.of(ops.size(), 1, OpType.INVOKE, "read", null));
    ops.add(Op.of(ops.size(), 1, OpType.OK, "read", 7L));
    History h = History.of("late crashed write", ops);
    Analysis a = Linearizability.check(Models.casRegister(null), h);
    assertThat(a.verdict()).isEqualTo(Verdict.VALID);
    List<Op> lin = a.keys().get(0).linearization();
    // the crashed write, right before the read
    assertThat(lin.get(lin.size() - 2).value()).isEqualTo(7L);
    ops.set(ops.size() - 1, Op.of(ops.size() - 1, 1, OpType.OK, "read", 8L));
    assertThat(
            Linearizability.check(Models.casRegister(null), History.of("read of 8", ops)).verdict())
        .isEqualTo(Verdict.INVALID);
  }

  private static void agree(String name, Model<?> model, boolean register) {
    CheckOptions sequential = CheckOptions.defaults().withParallelism(1);
    int valid = 0;
    int invalid = 0;
    for (long seed = 7_000; seed < 7_600; seed++) {
      History small =
          RandomHistories.generate(
              seed, register ? RandomHistories.register(true) : RandomHistories.mutex(), 10);
      int padding = 250 + (int) (seed % 100); // 256 operations and more: the frontier encoding
      History padded = pad(small, padding, register);
      boolean expected = BruteForce.linearizable(model, small);
      Analysis a = Linearizability.check(model, padded, sequential);
      assertThat(a.verdict()).as("%s seed %d padding %d: %s", name, seed, padding, small.ops())
          .isEqualTo(expected ? Verdict.VALID : Verdict.INVALID);
      if (expected) {
        valid++;
        assertThat(Replay.replays(model, a.keys().get(0).linearization()))
            .as("seed %d", seed)
            .isTrue();
      } else {
        invalid++;
        assertThat(a.failure().orElseThrow().evidence().longestPrefixes())
            .as("seed %d", seed)
            .isNotEmpty();
      }
    }
    assertThat(valid).isGreaterThan(100);
    assertThat(invalid).isGreaterThan(30);
  }

  /**
   * {@code count} sequential operations of process 1000 leaving the initial state, then the
   * history.
   */
  private static History pad(History h, int count, boolean register) {
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String f;
      Object v;
      if (register) {
        boolean last = i == count - 1;
        f = last || i % 3 != 2 ? "write" : "read";
        v = last ? null : (Object) (long) (i / 3 % 3);
      } else {
        f = i % 2 == 0 ? "acquire" : "release";
        v = null;
      }
      if (!register && i == count - 1 && count % 2 == 1) {
        break; // the mutex ends free: an even number of acquire/release
      }
      ops.add(Op.of(ops.size(), 1000, OpType.INVOKE, f, v));
      ops.add(Op.of(ops.size(), 1000, OpType.OK, f, v));
    }
    for (Op o : h.ops()) {
      ops.add(new Op(ops.size(), o.process(), o.type(), o.f(), o.value(), o.key(), -1, 0));
    }
    return History.of(h.source() + " padded", ops);
  }
}
