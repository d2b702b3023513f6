package io.partkit.verification.checker;

import java.util.Arrays;

/*
 * Design. The evidence of an invalid history, as Knossos reports it (:final-paths) and as this
 * checker always did: the first four linearized prefixes (stacks of the search) at the deepest
 * depth where the walk met a return it could not pass, with their states, and the operation of
 * the first. Copying the stack at every new deepest failure is quadratic in the history's length
 * (up to 50 times the cost of the verdict on long invalid histories). Here the copies are
 * incremental, in the way of a trail (Warren's abstract machine keeps one to undo bindings):
 *
 * - the first prefix lives in one buffer, and lowWater is the lowest depth the stack has been
 *   popped to since the buffer was last written, so buffer[0, lowWater) still equals the stack.
 *   A new deepest failure copies only stack[lowWater, depth): frames pushed since, so the copies
 *   cost at most one per push in total;
 * - the other three prefixes (failures at the same depth) are kept as (lowWater, the frames from
 *   there): they share the first prefix's frames below lowWater, and their frames were pushed
 *   since the first prefix was recorded, so they cost at most three per push.
 *
 * The search reports pops and failures; Prefixes and messages are built only once the verdict is
 * invalid (Linearizability times that apart as the evidence).
 */

/** The deepest failures of one search, recorded at an amortized constant cost per push. */
final class Deepest {
  static final int PREFIXES = 4;

  private int[] first = new int[16];
  private int depth = -1;
  private int lowWater;
  private int op = -1;
  private Object state;
  private int extras;
  private final int[] extraFrom = new int[PREFIXES - 1];
  private final int[][] extraTail = new int[PREFIXES - 1][];
  private final Object[] extraState = new Object[PREFIXES - 1];

  /** The stack was popped to {@code newDepth}. */
  void popped(int newDepth) {
    if (newDepth < lowWater) {
      lowWater = newDepth;
    }
  }

  /** The walk met the return of {@code failedOp} with {@code stack[0, stackDepth)} linearized. */
  void failed(int[] stack, int stackDepth, int failedOp, Object failedState) {
    if (stackDepth > depth) {
      if (first.length < stackDepth) {
        first = Arrays.copyOf(first, Math.max(stackDepth, first.length * 2));
      }
      System.arraycopy(stack, lowWater, first, lowWater, stackDepth - lowWater);
      depth = stackDepth;
      lowWater = stackDepth;
      op = failedOp;
      state = failedState;
      extras = 0;
      Arrays.fill(extraTail, null);
      Arrays.fill(extraState, null);
    } else if (stackDepth == depth && extras < PREFIXES - 1) {
      extraFrom[extras] = lowWater;
      extraTail[extras] = Arrays.copyOfRange(stack, lowWater, stackDepth);
      extraState[extras] = failedState;
      extras++;
    }
  }

  /** The operation of the first deepest failure, or -1 when the walk met no return. */
  int op() {
    return op;
  }

  /** The state in which the first deepest failure's operation could not be placed. */
  Object state() {
    return state;
  }

  /** How many prefixes were recorded (at most {@link #PREFIXES}). */
  int count() {
    return op < 0 ? 0 : 1 + extras;
  }

  /** Prefix {@code i}'s stack (call nodes in linearization order). */
  int[] prefix(int i) {
    if (i == 0) {
      return Arrays.copyOf(first, depth);
    }
    int from = extraFrom[i - 1];
    int[] p = Arrays.copyOf(first, depth);
    System.arraycopy(extraTail[i - 1], 0, p, from, depth - from);
    return p;
  }

  /** Prefix {@code i}'s state. */
  Object prefixState(int i) {
    return i == 0 ? state : extraState[i - 1];
  }
}
