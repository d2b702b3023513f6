package io.partkit.harness;

import io.partkit.harness.nemesis.Fault;
import io.partkit.harness.nemesis.Nemesis;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.verification.history.OpType;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The nemesis thread: after a quiet start, it picks one of the enabled nemeses at random (seeded),
 * starts a fault, holds it 2-5 s, heals it and waits 1-3 s, until the fault phase ends; then it
 * heals whatever is still in force. Each start and heal is recorded as a {@code :nemesis}
 * invocation and its {@code :info} completion, as Jepsen records them.
 */
final class NemesisSchedule implements Runnable {

  private final List<Nemesis> nemeses;
  private final SystemUnderTest system;
  private final NodeRuntime runtime;
  private final Recorder recorder;
  private final Random random;
  private final long endNanos;
  private final PrintStream log;
  private final Deque<Fault> active = new ArrayDeque<>();
  private volatile boolean stopped;
  private int faults;

  NemesisSchedule(List<Nemesis> nemeses, SystemUnderTest system, NodeRuntime runtime,
      Recorder recorder, long seed, long endNanos, PrintStream log) {
    this.nemeses = nemeses;
    this.system = system;
    this.runtime = runtime;
    this.recorder = recorder;
    this.random = new Random(seed ^ 0x6e656d65L);
    this.endNanos = endNanos;
    this.log = log;
  }

  @Override
  public void run() {
    if (nemeses.isEmpty()) {
      return;
    }
    long quietStart =
        Math.min(TimeUnit.SECONDS.toNanos(3), (endNanos - recorder.elapsedNanos()) / 10);
    if (!sleepUntil(recorder.elapsedNanos() + quietStart)) {
      return;
    }
    while (!stopped && recorder.elapsedNanos() < endNanos) {
      Nemesis n = nemeses.get(random.nextInt(nemeses.size()));
      long hold = TimeUnit.MILLISECONDS.toNanos(2000 + random.nextInt(3000));
      long rest = TimeUnit.MILLISECONDS.toNanos(1000 + random.nextInt(2000));
      recorder.nemesis(OpType.INVOKE, "start-" + n.name(), null);
      try {
        Fault f = n.start(system, runtime, random);
        synchronized (active) {
          active.push(f);
        }
        faults++;
        recorder.nemesis(OpType.INFO, "start-" + n.name(), f.description());
      } catch (RuntimeException e) {
        recorder.nemesis(OpType.INFO, "start-" + n.name(), "failed: " + e.getMessage());
        log.println("nemesis " + n.name() + " failed to start: " + e);
      }
      sleepUntil(Math.min(endNanos, recorder.elapsedNanos() + hold));
      healAll("stop-" + n.name());
      sleepUntil(Math.min(endNanos, recorder.elapsedNanos() + rest));
    }
  }

  /** Heals every fault still in force, newest first; recorded. Safe to call from another thread. */
  void healAll(String f) {
    while (true) {
      Fault fault;
      synchronized (active) {
        fault = active.poll();
      }
      if (fault == null) {
        return;
      }
      recorder.nemesis(OpType.INVOKE, f, fault.description());
      try {
        fault.heal();
        recorder.nemesis(OpType.INFO, f, "healed: " + fault.description());
      } catch (RuntimeException e) {
        recorder.nemesis(OpType.INFO, f, "heal failed: " + e.getMessage());
        log.println("nemesis: healing '" + fault.description() + "' failed: " + e);
      }
    }
  }

  void stop() {
    stopped = true;
  }

  int faults() {
    return faults;
  }

  private boolean sleepUntil(long elapsedTarget) {
    while (!stopped) {
      long left = elapsedTarget - recorder.elapsedNanos();
      if (left <= 0) {
        return true;
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }
}
