package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The incremental record of the deepest failures equals copying the whole stack at every
 * failure (the first four at the deepest depth), on seeded random walks of pushes, pops and
 * failures like the search's.
 */
class DeepestTest {

  @Test
  void sameAsCopyingTheStackAtEveryFailure() {
    int withFour = 0;
    for (long seed = 0; seed < 300; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int[] stack = new int[200];
      int depth = 0;
      Deepest deepest = new Deepest();
      int bestDepth = -1;
      List<int[]> best = new ArrayList<>();
      List<Object> states = new ArrayList<>();
      int bestOp = -1;
      for (int step = 0; step < 2000; step++) {
        int r = rnd.nextInt(10);
        if (r < 5 && depth < stack.length) {
          stack[depth++] = rnd.nextInt(1000);
        } else if (r < 8 && depth > 0) {
          depth -= 1 + rnd.nextInt(Math.min(depth, 3));
          deepest.popped(depth);
        } else {
          int op = rnd.nextInt(1000);
          Object state = "s" + step;
          deepest.failed(stack, depth, op, state);
          if (depth > bestDepth) {
            bestDepth = depth;
            best.clear();
            states.clear();
            bestOp = op;
          }
          if (depth == bestDepth && best.size() < Deepest.PREFIXES) {
            best.add(Arrays.copyOf(stack, depth));
            states.add(state);
          }
        }
      }
      assertThat(deepest.op()).as("seed %d", seed).isEqualTo(bestOp);
      assertThat(deepest.count()).as("seed %d", seed).isEqualTo(best.size());
      withFour += best.size() == Deepest.PREFIXES && bestDepth > 5 ? 1 : 0;
      for (int i = 0; i < best.size(); i++) {
        assertThat(deepest.prefix(i)).as("seed %d prefix %d", seed, i).isEqualTo(best.get(i));
        assertThat(deepest.prefixState(i))
            .as("seed %d prefix %d", seed, i)
            .isEqualTo(states.get(i));
      }
    }
    assertThat(withFour).as("walks ending with four deep prefixes").isGreaterThan(10);
  }
}
