package io.partkit.verification.checker;

/**
 * Says when the heap is nearly full of live search state. The cheap test (used heap, garbage
 * included) runs on every poll; only when it passes the limit does the guard force one full
 * collection and look at what is live, because dead configurations of an earlier key may still
 * sit in the old generation. After a false alarm it waits a number of polls before collecting
 * again, so a search running close to the limit is not slowed by a collection on every poll.
 *
 * <p>Not final: tests override {@link #exhausted()} to simulate a full heap.
 */
class MemoryGuard {
  private final double fraction;
  private volatile String last = "";
  private volatile int cooldown;

  MemoryGuard(double fraction) {
    this.fraction = fraction;
  }

  /** True when the live heap passes the fraction; overridden by tests to simulate a full heap. */
  boolean exhausted() {
    Runtime rt = Runtime.getRuntime();
    long max = rt.maxMemory();
    long used = rt.totalMemory() - rt.freeMemory();
    if (used < fraction * max) {
      return false;
    }
    if (cooldown > 0) {
      cooldown--;
      return false;
    }
    System.gc(); // rare by construction: only at the limit, and at most once per 64 polls
    used = rt.totalMemory() - rt.freeMemory();
    if (used < fraction * max) {
      cooldown = 64;
      return false;
    }
    last = (used >> 20) + " of " + (max >> 20) + " MB live after a full collection";
    return true;
  }

  String describe() {
    return "heap nearly full of search state ("
        + last
        + "); give the JVM more memory (-Xmx) or split the history";
  }
}
