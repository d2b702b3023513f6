package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The timeline's CPU time per thread, read from this test JVM's own /proc/self/task. */
class TimelineTest {
  @Test
  void namesThisJvmsThreadsAndTheirTime() throws Exception {
    Path tasks = Path.of("/proc/self/task");
    assertThat(tasks).as("/proc/self/task (Linux)").isDirectory();
    // a thread of this test's, named with a trailing number; the JVM gives the OS thread its
    // name before run() starts, so the test reads the tasks once run() has begun
    CountDownLatch running = new CountDownLatch(1);
    Thread waiting = new Thread(() -> {
      running.countDown();
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "timeline-idle-12");
    waiting.start();
    try {
      assertThat(running.await(60, TimeUnit.SECONDS)).as("the thread started").isTrue();
      Map<String, Long> byName = Timeline.cpuByThread(tasks);
      // the trailing number is dropped; the compilers (named with theirs) are there as well
      assertThat(byName).containsKey("timeline-idle-").doesNotContainKey("timeline-idle-12");
      assertThat(byName.keySet()).anySatisfy(name -> assertThat(name).contains("CompilerThre"));
      assertThat(byName.values()).allSatisfy(ms -> assertThat(ms).isNotNegative());
      assertThat(byName.values().stream().mapToLong(Long::longValue).sum()).isPositive();
    } finally {
      waiting.interrupt();
      waiting.join();
    }
  }

  @Test
  void noTaskDirectoryGivesNothing(@TempDir Path dir) throws Exception {
    assertThat(Timeline.cpuByThread(dir.resolve("absent"))).isEmpty();
    Files.createDirectories(dir.resolve("1"));
    Files.writeString(dir.resolve("1").resolve("stat"), "1 (worker 3) S 1 2 3 4 5 6 7 8 9 10 40 2");
    assertThat(Timeline.cpuByThread(dir)).containsExactly(Map.entry("worker", 420L));
  }
}
