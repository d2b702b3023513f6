package io.partkit.cli;

import java.time.Instant;
import java.util.Locale;

/**
 * Marks of where {@code partkit check}'s wall time goes, printed to stderr when the environment
 * variable {@code PARTKIT_TIMELINE} is set (docs/checker-scale.md, "Where the wall time goes"):
 * each mark is the wall time since the launcher started (so the JVM's own start is in the first
 * mark) and since the previous mark. Off by default, at the cost of one
 * test per mark.
 */
final class Timeline {
  private static final boolean ON = System.getenv("PARTKIT_TIMELINE") != null;
  private static long last = -1;
  private static long lastCpu;

  private Timeline() {}

  static {
    if (ON) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> mark("exiting")));
    }
  }

  /**
   * When the launcher started (it sets {@code PARTKIT_TIMELINE_START}, epoch milliseconds, before
   * anything else), else when the JVM's process started as the system records it (in clock ticks,
   * from boot time: it may be off by some hundred milliseconds).
   */
  private static long start(long now) {
    String launched = System.getenv("PARTKIT_TIMELINE_START");
    if (launched != null && launched.matches("[0-9]{1,18}")) {
      return Long.parseLong(launched);
    }
    return ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli).orElse(now);
  }

  /**
   * The JVM's CPU time so far, all threads, the collector's and the compilers' included: on a
   * busy machine the wall time of a phase is inflated, its CPU time much less.
   */
  private static long cpuMillis() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() / 1_000_000 : -1;
  }

  /** Prints a mark named {@code what} when the timeline is on. */
  static synchronized void mark(String what) {
    if (!ON) {
      return;
    }
    long now = System.currentTimeMillis();
    long start = start(now);
    long since = now - start;
    long cpu = cpuMillis();
    System.err.printf(Locale.ROOT, "timeline: %6d ms  (+%5d)  cpu %6d ms (+%5d)  %s%n", since,
        last < 0 ? since : since - last, cpu, cpu - lastCpu, what);
    System.err.flush();
    last = since;
    lastCpu = cpu;
  }
}
