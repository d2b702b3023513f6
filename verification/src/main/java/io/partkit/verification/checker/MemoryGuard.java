package io.partkit.verification.checker;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * Says when the heap is nearly full of live data. It looks at each heap pool's usage after its
 * last collection (what survived, not garbage waiting to be collected), so a busy young
 * generation does not trip it; when no pool reports that, it falls back to the whole heap.
 */
class MemoryGuard {
  private final double fraction;
  private final List<MemoryPoolMXBean> pools;
  private volatile String last = "";

  MemoryGuard(double fraction) {
    this.fraction = fraction;
    this.pools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported())
        .toList();
  }

  /** Overridden by tests to simulate a full heap. */
  boolean exhausted() {
    Runtime rt = Runtime.getRuntime();
    long max = rt.maxMemory();
    long used = rt.totalMemory() - rt.freeMemory();
    if (used < fraction * max) {
      return false; // cheap common case: even counting garbage the heap is not full
    }
    if (pools.isEmpty()) {
      last = "heap " + (used >> 20) + " of " + (max >> 20) + " MB";
      return true;
    }
    for (MemoryPoolMXBean p : pools) {
      MemoryUsage after = p.getCollectionUsage();
      long poolMax = p.getUsage().getMax();
      if (after != null && poolMax > 0 && after.getUsed() >= fraction * poolMax) {
        last = p.getName() + " holds " + (after.getUsed() >> 20) + " of " + (poolMax >> 20) + " MB after collection";
        return true;
      }
    }
    return false;
  }

  String describe() {
    return "heap nearly full of search state (" + last + "); give the JVM more memory (-Xmx) or split the history";
  }
}
