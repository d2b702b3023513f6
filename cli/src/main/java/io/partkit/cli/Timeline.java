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
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        mark("exiting");
        threads();
      }));
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

  /**
   * The CPU time of the JVM's threads still running, summed by name without its trailing number
   * (the compilers, the collector, which the serial collector runs in the VM thread, the main
   * thread, shown as "java", the checking threads; a thread that ended, such as the second
   * reading thread, is not counted), from /proc/self/task (Linux; nothing elsewhere): what a
   * 2-core machine's wall time is made of.
   */
  private static void threads() {
    java.util.Map<String, Long> byName = cpuByThread(java.nio.file.Path.of("/proc/self/task"));
    if (byName.isEmpty()) {
      return;
    }
    StringBuilder sb = new StringBuilder("timeline: cpu by thread:");
    byName.entrySet().stream().filter(e -> e.getValue() > 0)
        .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> sb.append(' ').append(e.getKey()).append(' ').append(e.getValue())
            .append(" ms;"));
    System.err.println(sb);
    System.err.flush();
  }

  /**
   * CPU milliseconds (user and system) per thread name, its trailing number dropped, of the
   * threads in {@code tasks} (a /proc/PID/task directory); empty when there is no such directory.
   */
  static java.util.Map<String, Long> cpuByThread(java.nio.file.Path tasks) {
    java.io.File[] dirs = tasks.toFile().listFiles();
    java.util.Map<String, Long> byName = new java.util.TreeMap<>();
    if (dirs == null) {
      return byName;
    }
    long tick = 10; // ms per clock tick: USER_HZ is 100 on Linux
    for (java.io.File task : dirs) {
      try {
        String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String name = stat.substring(open + 1, close).replaceAll("[0-9]+$", "").trim();
        String[] f = stat.substring(close + 2).split(" ");
        long ms = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * tick; // utime, stime
        byName.merge(name, ms, Long::sum);
      } catch (java.io.IOException | RuntimeException e) {
        // a thread that ended meanwhile: its time is not counted
      }
    }
    return byName;
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
