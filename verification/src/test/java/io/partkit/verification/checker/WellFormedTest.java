package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * WellFormed.quickly and Paired.ofWellFormed say yes exactly when History.validate() finds nothing,
 * on seeded random histories broken in every way validate() knows (a dropped, duplicated or moved
 * event, another function, another key, another process) and on unbroken ones.
 */
class WellFormedTest {

  @Test
  void agreesWithValidateOnBrokenAndUnbrokenHistories() {
    int broken = 0;
    int fine = 0;
    for (long seed = 0; seed < 3000; seed++) {
      Random rnd = new Random(seed);
      History h = RandomHistories.generate(seed, RandomHistories.register(true), 8);
      List<Op> ops = new ArrayList<>(h.ops());
      if (seed % 5 != 0) {
        int i = rnd.nextInt(ops.size());
        Op o = ops.get(i);
        switch (rnd.nextInt(6)) {
          case 0 -> ops.remove(i);
          case 1 -> ops.add(rnd.nextInt(ops.size() + 1), o);
          case 2 -> {
            Op moved = ops.remove(i);
            ops.add(rnd.nextInt(ops.size() + 1), moved);
          }
          case 3 -> ops.set(i, with(o, o.process(), o.f().equals("read") ? "write" : "read",
              o.key()));
          case 4 -> ops.set(i, with(o, o.process(), o.f(), "k"));
          default -> ops.set(i, withNextProcess(o));
        }
      }
      if (rnd.nextInt(4) == 0) {
        ops.add(
            rnd.nextInt(ops.size() + 1),
            new Op(99, "nemesis", OpType.INFO, "partition", null, null, -1, 0));
      }
      boolean valid = History.of("h", ops).validate().isEmpty();
      assertThat(WellFormed.quickly(ops)).as("seed %d: %s", seed, ops).isEqualTo(valid);
      boolean keyed = ops.stream().anyMatch(o -> o.isClient() && o.key() != null);
      assertThat(Paired.ofWellFormed(ops) != null)
          .as("pairing, seed %d: %s", seed, ops)
          .isEqualTo(valid && !keyed);
      assertThat(KeySplit.ofWellFormed(ops) != null)
          .as("split, seed %d: %s", seed, ops)
          .isEqualTo(valid);
      if (valid) {
        fine++;
      } else {
        broken++;
      }
    }
    assertThat(broken).isGreaterThan(1000);
    assertThat(fine).isGreaterThan(600);
  }

  /** The second thread that KeySplit's parallel pairing is run on. */
  private static final java.util.concurrent.ExecutorService POOL =
      java.util.concurrent.Executors.newFixedThreadPool(1, r -> {
        Thread t = new Thread(r, "key-split-test");
        t.setDaemon(true);
        return t;
      });

  /** {@code o} with another process, function or key (no time, no line: as generated). */
  private static Op with(Op o, Object process, String f, Object key) {
    return new Op(o.index(), process, o.type(), f, o.value(), key, -1, 0);
  }

  /** {@code o} as if the next process had done it. */
  private static Op withNextProcess(Op o) {
    return with(o, ((Long) o.process()) + 1, o.f(), o.key());
  }

  /**
   * KeySplit pairs each key as Paired.of pairs History.clientOpsByKey()'s lists, in the same key
   * order, and says no exactly when validate() finds something, on keyed histories (with :info
   * and :fail operations, and :ok writes without a value) broken or not.
   */
  @Test
  void keySplitPairsAsPairedOfAndAgreesWithValidate() {
    int broken = 0;
    for (long seed = 0; seed < 300; seed++) {
      Random rnd = new Random(seed);
      History h =
          io.partkit.verification.bench.CasHistories.keyed(
              seed, 1 + rnd.nextInt(12), 1 + rnd.nextInt(60), 1 + rnd.nextInt(6), 0.05);
      List<Op> ops = new ArrayList<>(h.ops());
      // some :ok writes without a value: the model gets the invocation's
      for (int i = 0; i < ops.size(); i++) {
        Op o = ops.get(i);
        if (o.type() == OpType.OK && o.f().equals("write") && rnd.nextInt(5) == 0) {
          ops.set(i, o.withValue(null));
        }
      }
      if (seed % 3 != 0) {
        int i = rnd.nextInt(ops.size());
        Op o = ops.get(i);
        switch (rnd.nextInt(4)) {
          case 0 -> ops.remove(i);
          case 1 -> ops.add(rnd.nextInt(ops.size() + 1), o);
          case 2 -> ops.set(i, with(o, o.process(), o.f(), "other"));
          default -> ops.set(i, withNextProcess(o));
        }
      }
      History g = History.of("h", ops);
      boolean valid = g.validate().isEmpty();
      List<KeySplit.Part> parts = KeySplit.ofWellFormed(ops);
      assertThat(parts != null).as("seed %d", seed).isEqualTo(valid);
      List<KeySplit.Part> inParallel = KeySplit.ofWellFormed(ops, POOL, 0);
      assertThat(inParallel != null).as("in parallel, seed %d", seed).isEqualTo(valid);
      if (!valid) {
        broken++;
        continue;
      }
      List<java.util.Map.Entry<Object, List<Op>>> keys =
          new ArrayList<>(g.clientOpsByKey().entrySet());
      assertThat(parts).hasSize(keys.size());
      for (int k = 0; k < keys.size(); k++) {
        Paired x = parts.get(k).pair();
        Paired z = inParallel.get(k).pair();
        assertThat(z.ops()).containsExactly(x.ops());
        assertThat(z.events()).containsExactly(x.events());
        assertThat(z.info()).containsExactly(x.info());
        Paired y = Paired.of(keys.get(k).getValue());
        assertThat(parts.get(k).key).isEqualTo(keys.get(k).getKey());
        assertThat(x.ops()).as("seed %d key %d", seed, k).containsExactly(y.ops());
        assertThat(x.info()).as("seed %d key %d", seed, k).containsExactly(y.info());
        assertThat(x.events()).as("seed %d key %d", seed, k).containsExactly(y.events());
        assertThat(x.invocations()).isEqualTo(y.invocations());
      }
    }
    assertThat(broken).isGreaterThan(50);
  }

  @Test
  void aHistoryWithoutClientOperationsIsValidWithNoKeys() {
    History h =
        History.of(
            "nemesis only", List.of(new Op(0, "nemesis", OpType.INFO, "start", null, null, -1, 0)));
    Analysis a = Linearizability.check(io.partkit.verification.model.Models.register(null), h);
    assertThat(a.verdict()).isEqualTo(Verdict.VALID);
    assertThat(a.keys()).isEmpty();
  }
}
