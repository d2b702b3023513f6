package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The frontier encoding is canonical and injective: on seeded random walks of adds and removes
 * (as the search makes them), two moments have equal encodings iff their sets are equal, and the
 * encoding of a sequential prefix is one word plus a one-word window.
 */
class FrontierSetTest {

  @Test
  void encodingsAreEqualExactlyWhenTheSetsAre() {
    for (long seed = 1; seed <= 40; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int n = 1 + rnd.nextInt(700); // below 256 operations the encoding is the whole bitset
      boolean whole = (n >>> 6) + 1 <= FrontierSet.WHOLE_WORDS;
      boolean[] info = new boolean[n];
      for (int i = 0; i < n; i++) {
        info[i] = rnd.nextInt(6) == 0;
      }
      FrontierSet set = new FrontierSet(info);
      BitSet truth = new BitSet(n);
      Map<String, BitSet> seen = new HashMap<>();
      List<Integer> stack = new ArrayList<>();
      for (int step = 0; step < 3000; step++) {
        // a moving frontier as in the search: mostly add near the lowest missing op, sometimes pop
        if (!stack.isEmpty() && rnd.nextInt(3) == 0) {
          int op = stack.remove(stack.size() - 1);
          set.remove(op);
          truth.clear(op);
        } else {
          int from = truth.nextClearBit(0);
          int op = truth.nextClearBit(Math.min(n, from + rnd.nextInt(12)));
          if (op >= n) {
            op = truth.nextClearBit(0);
          }
          if (op >= n) {
            continue;
          }
          set.add(op);
          truth.set(op);
          stack.add(op);
        }
        long[] enc = new long[set.encodedLength()];
        set.encode(enc, 0);
        int frontier = 0;
        while (frontier < n && (info[frontier] || truth.get(frontier))) {
          frontier++;
        }
        int infoBelow = 0;
        for (int i = 0; i < (frontier >>> 6) << 6; i++) {
          infoBelow += info[i] && truth.get(i) ? 1 : 0;
        }
        int hiWord = truth.isEmpty() ? -1 : (truth.length() - 1) >>> 6;
        if (whole) {
          assertThat(enc).as("seed %d step %d: whole", seed, step)
              .isEqualTo(Arrays.copyOf(truth.toLongArray(), enc.length));
        } else {
          assertThat(enc[0]).as("seed %d step %d: frontier and :info count", seed, step)
              .isEqualTo(((long) frontier << 32) | infoBelow);
          int infoRanksBelow = 0;
          for (int i = 0; i < (frontier >>> 6) << 6; i++) {
            infoRanksBelow += info[i] ? 1 : 0;
          }
          assertThat(enc).as("seed %d step %d: length", seed, step)
              .hasSize(1 + (infoRanksBelow + 63) / 64 + Math.max(0, hiWord - (frontier >>> 6) + 1));
        }
        BitSet before = seen.putIfAbsent(Arrays.toString(enc), (BitSet) truth.clone());
        if (before != null) {
          assertThat(before).as("seed %d step %d: equal encodings", seed, step).isEqualTo(truth);
        }
        long expectedHash = 0;
        for (int i = truth.nextSetBit(0); i >= 0; i = truth.nextSetBit(i + 1)) {
          expectedHash ^= FrontierSet.zobrist(i);
          assertThat(set.contains(i)).isTrue();
        }
        assertThat(set.hash()).isEqualTo(expectedHash);
        assertThat(set.size()).isEqualTo(truth.cardinality());
      }
      // distinct sets never share an encoding (checked above); and every set seen re-encodes the
      // same
      assertThat(seen.size()).as("seed %d explored several sets", seed).isGreaterThan(1);
    }
  }

  @Test
  void aSequentialPrefixCostsTwoWords() {
    int n = 100_000;
    FrontierSet set = new FrontierSet(new boolean[n]);
    for (int op = 0; op < 70_000; op++) {
      set.add(op);
      assertThat(set.encodedLength()).isLessThanOrEqualTo(2);
    }
  }

  @Test
  void linearizedInfoOperationsBelowTheFrontierAreKept() {
    boolean[] info = new boolean[400];
    info[3] = true;
    info[10] = true;
    FrontierSet a = new FrontierSet(info);
    FrontierSet b = new FrontierSet(info);
    for (int op = 0; op < 350; op++) {
      if (op != 3 && op != 10) {
        a.add(op);
        b.add(op);
      }
    }
    a.add(3); // same frontier and window, different :info operations below the window
    b.add(10);
    long[] ea = new long[a.encodedLength()];
    a.encode(ea, 0);
    assertThat(ea[0] >>> 32).as("frontier").isEqualTo(350);
    assertThat((int) ea[0]).as(":info ops taken below the window").isEqualTo(1);
    assertThat(b.matches(ea, 0, ea.length)).isFalse();
    assertThat(a.matches(ea, 0, ea.length)).isTrue();
  }
}
