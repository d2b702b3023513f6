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
 * WellFormed.quickly and Paired.ofWellFormed say yes exactly when History.validate() finds nothing, on seeded random
 * histories broken in every way validate() knows (a dropped, duplicated or moved event, another
 * function, another key, another process) and on unbroken ones.
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
          case 3 -> ops.set(i, new Op(o.index(), o.process(), o.type(), o.f().equals("read") ? "write" : "read", o.value(), o.key(), -1, 0));
          case 4 -> ops.set(i, new Op(o.index(), o.process(), o.type(), o.f(), o.value(), "k", -1, 0));
          default -> ops.set(i, new Op(o.index(), ((Long) o.process()) + 1, o.type(), o.f(), o.value(), o.key(), -1, 0));
        }
      }
      if (rnd.nextInt(4) == 0) {
        ops.add(rnd.nextInt(ops.size() + 1), new Op(99, "nemesis", OpType.INFO, "partition", null, null, -1, 0));
      }
      boolean valid = History.of("h", ops).validate().isEmpty();
      assertThat(WellFormed.quickly(ops)).as("seed %d: %s", seed, ops).isEqualTo(valid);
      boolean keyed = ops.stream().anyMatch(o -> o.isClient() && o.key() != null);
      assertThat(Paired.ofWellFormed(ops) != null).as("pairing, seed %d: %s", seed, ops).isEqualTo(valid && !keyed);
      if (valid) {
        fine++;
      } else {
        broken++;
      }
    }
    assertThat(broken).isGreaterThan(1000);
    assertThat(fine).isGreaterThan(600);
  }

  @Test
  void aHistoryWithoutClientOperationsIsValidWithNoKeys() {
    History h = History.of("nemesis only", List.of(new Op(0, "nemesis", OpType.INFO, "start", null, null, -1, 0)));
    Analysis a = Linearizability.check(io.partkit.verification.model.Models.register(null), h);
    assertThat(a.verdict()).isEqualTo(Verdict.VALID);
    assertThat(a.keys()).isEmpty();
  }
}
