package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.model.Models;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A configuration cache emptied for another search ({@link ConfigCache#reset}, what the checker
 * does between the keys a thread searches) answers as a new one: on seeded walks of
 * configurations (frontier sets moved as the search moves them, a few states, hashes of low
 * entropy so that slots collide), every add says what a new cache and a plain set of encodings
 * say. The searches that reuse caches across keys give each key the result it gets without
 * reuse (verdict, steps, linearization, evidence), and the verdict, linearization and evidence
 * it gets checked alone.
 */
class ConfigCacheReuseTest {
  static Stream<Long> seeds() {
    return LongStream.range(0, 120).boxed();
  }

  private static int keptTables;
  private static int newTables;

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void aResetCacheAnswersAsANewOne(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    ConfigCache reused = new ConfigCache(rnd.nextInt(3000));
    for (int search = 0; search < 6; search++) {
      // small and large searches after one another: the reset keeps the arrays or makes new ones
      int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 40 : 3000);
      int before = reused.capacity();
      assertThat(reused.reset(n)).isSameAs(reused);
      if (reused.capacity() == before) {
        keptTables++;
      } else {
        newTables++;
      }
      ConfigCache fresh = new ConfigCache(n);
      boolean[] info = new boolean[n];
      for (int i = 0; i < n; i++) {
        info[i] = rnd.nextInt(6) == 0;
      }
      FrontierSet set = new FrontierSet(info);
      BitSet members = new BitSet(n);
      List<Integer> stack = new ArrayList<>();
      Set<String> truth = new HashSet<>();
      int steps = 200 + rnd.nextInt(4000);
      for (int step = 0; step < steps; step++) {
        if (!stack.isEmpty() && rnd.nextInt(3) == 0) {
          int op = stack.remove(stack.size() - 1);
          set.remove(op);
          members.clear(op);
        } else {
          int from = members.nextClearBit(0);
          int op = members.nextClearBit(Math.min(n, from + rnd.nextInt(12)));
          if (op >= n) {
            op = members.nextClearBit(0);
          }
          if (op < n) {
            set.add(op);
            members.set(op);
            stack.add(op);
          }
        }
        Long state = (long) rnd.nextInt(4);
        long hash = (set.hash() & 0x1F) * 7 + state; // few distinct hashes: collisions, probing
        long[] enc = new long[set.encodedLength()];
        set.encode(enc, 0);
        boolean isNew = truth.add(Arrays.toString(enc) + "/" + state);
        assertThat(reused.add(set, state, hash))
            .as("seed %d, search %d (n %d), step %d", seed, search, n, step).isEqualTo(isNew);
        assertThat(fresh.add(set, state, hash)).isEqualTo(isNew);
      }
      assertThat(reused.size()).isEqualTo(fresh.size()).isEqualTo(truth.size());
      assertThat(reused.arenaWords()).isEqualTo(fresh.arenaWords());
    }
  }

  /** The seeds reach both ways of a reset: the table kept (emptied) and a new one. */
  @Test
  void theSeedsKeepAndReplaceTables() {
    for (long seed : seeds().toList()) {
      aResetCacheAnswersAsANewOne(seed);
    }
    assertThat(keptTables).as("tables kept").isGreaterThan(100);
    assertThat(newTables).as("tables replaced").isGreaterThan(100);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("keyedSeeds")
  void keysSearchedOneAfterAnotherGetTheirResultsAlone(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int keys = 5 + rnd.nextInt(25);
    List<Op> all = new ArrayList<>();
    List<List<Op>> perKey = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      // keys of a few and of hundreds of operations, in turn: caches grow, are kept, are replaced
      int maxOps = rnd.nextBoolean() ? 3 + rnd.nextInt(20) : 50 + rnd.nextInt(300);
      History h = RandomHistories.generate(seed * 1000 + k, RandomHistories.register(true), maxOps);
      List<Op> ops = new ArrayList<>();
      for (Op op : h.ops()) {
        ops.add(new Op(all.size(), "k" + k + "-" + op.process(), op.type(), op.f(), op.value(),
            (long) k, -1, 0));
        all.add(ops.get(ops.size() - 1));
      }
      perKey.add(ops);
    }
    History keyed = History.of("keyed " + seed, all);
    CheckOptions one = CheckOptions.defaults().withParallelism(1).withStopOnFirstInvalid(false);
    // the same check without reuse: the keys' slices of steps are the same, so their steps are
    // (a key checked alone is searched without slices, and may take a few steps more or less)
    Analysis reference = Linearizability.check(Models.casRegister(null), keyed, one,
        Linearizability.REDUCE_AFTER, Linearizability.STRUGGLING_STEPS_PER_EVENT, false);
    for (int threads : new int[] {1, 2}) {
      Analysis a = Linearizability.check(Models.casRegister(null), keyed,
          one.withParallelism(threads));
      assertThat(a.keys()).hasSize(keys);
      for (int k = 0; k < keys; k++) {
        Analysis alone = Linearizability.check(Models.casRegister(null),
            History.of("key " + k, perKey.get(k)), one);
        KeyResult expected = alone.keys().get(0);
        KeyResult actual = a.keys().get(k);
        assertThat(actual.key()).isEqualTo((long) k);
        assertThat(actual.verdict()).as("seed %d, key %d, %d threads", seed, k, threads)
            .isEqualTo(expected.verdict());
        assertThat(actual.linearization()).isEqualTo(expected.linearization());
        assertThat(String.valueOf(actual.evidence()))
            .isEqualTo(String.valueOf(expected.evidence()));
        assertThat(actual).as("seed %d, key %d, %d threads", seed, k, threads)
            .isEqualTo(reference.keys().get(k));
      }
    }
  }

  static Stream<Long> keyedSeeds() {
    return LongStream.range(0, 60).boxed();
  }
}
