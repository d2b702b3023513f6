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
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The nemesis thread: after a quiet start, it injects a planned number of faults
 * ({@link #planned}, from the run's time), each one of the enabled nemeses picked at random
 * (seeded): it starts a fault, holds it 2-5 s, heals it and waits 1-3 s. The plan holds however
 * slow the machine is: the fault phase (and the clients with it) goes on past the run's time
 * until every planned fault was injected, up to a hard limit after which the schedule says how
 * many it could not inject. An attempt that injected nothing (no migration caught in flight) is
 * recorded as such and not counted; another is made. Each start and heal is recorded as a
 * {@code :nemesis} invocation and its {@code :info} completion, as Jepsen records them.
 */
final class NemesisSchedule implements Runnable {

  /** The mean length of one fault's cycle (hold 2-5 s, rest 1-3 s), for the plan. */
  static final long MEAN_CYCLE_MILLIS = 5500;

  private final List<Nemesis> nemeses;
  private final SystemUnderTest system;
  private final NodeRuntime runtime;
  private final Recorder recorder;
  private final Random random;
  private final long endNanos;
  private final long limitNanos;
  private final int planned;
  private final PrintStream log;
  private final Deque<Fault> active = new ArrayDeque<>();
  private volatile boolean stopped;
  private volatile boolean finished;
  private volatile int faults;

  NemesisSchedule(List<Nemesis> nemeses, SystemUnderTest system, NodeRuntime runtime,
      Recorder recorder, long seed, long endNanos, PrintStream log) {
    this.nemeses = nemeses;
    this.system = system;
    this.runtime = runtime;
    this.recorder = recorder;
    this.random = new Random(seed ^ 0x6e656d65L);
    this.endNanos = endNanos;
    // past the run's time, the plan may take as long again, and at least 2 minutes more
    this.limitNanos = endNanos + Math.max(endNanos, TimeUnit.MINUTES.toNanos(2));
    this.planned = nemeses.isEmpty() ? 0 : planned(endNanos);
    this.log = log;
    this.finished = nemeses.isEmpty();
  }

  /** The quiet start before the first fault of a run of {@code runNanos}. */
  private static long quietStart(long runNanos) {
    return Math.min(TimeUnit.SECONDS.toNanos(3), runNanos / 10);
  }

  /** The faults planned for a fault phase of {@code runNanos}: at least one. */
  static int planned(long runNanos) {
    long faultTime = runNanos - quietStart(runNanos);
    return (int) Math.max(1, faultTime / TimeUnit.MILLISECONDS.toNanos(MEAN_CYCLE_MILLIS));
  }

  @Override
  public void run() {
    try {
      if (!nemeses.isEmpty()) {
        inject();
      }
    } finally {
      finished = true;
    }
  }

  private void inject() {
    if (!sleepUntil(recorder.elapsedNanos() + quietStart(endNanos))) {
      return;
    }
    while (!stopped && faults < planned && recorder.elapsedNanos() < limitNanos) {
      Nemesis n = nemeses.get(random.nextInt(nemeses.size()));
      long hold = TimeUnit.MILLISECONDS.toNanos(2000 + random.nextInt(3000));
      long rest = TimeUnit.MILLISECONDS.toNanos(1000 + random.nextInt(2000));
      recorder.nemesis(OpType.INVOKE, "start-" + n.name(), null);
      Fault f;
      try {
        f = n.start(system, runtime, random);
      } catch (RuntimeException e) {
        recorder.nemesis(OpType.INFO, "start-" + n.name(), "failed: " + e.getMessage());
        log.println("nemesis " + n.name() + " failed to start: " + e);
        Optional<String> lost = runtime.lostControl();
        if (lost.isPresent()) {
          // No fault can be injected or healed any more and the verdict is at most unknown:
          // trying on until the plan's time limit would only keep the run going for nothing.
          log.println("nemesis: no more faults, " + lost.get());
          return;
        }
        sleepUntil(recorder.elapsedNanos() + rest);
        continue;
      }
      if (!f.injected()) {
        recorder.nemesis(OpType.INFO, "start-" + n.name(), f.description());
        sleepUntil(recorder.elapsedNanos() + rest); // an attempt that returns at once must not spin
        continue; // not a fault: nothing to hold, heal or count
      }
      synchronized (active) {
        active.push(f);
      }
      faults++;
      recorder.nemesis(OpType.INFO, "start-" + n.name(), f.description());
      sleepUntil(recorder.elapsedNanos() + hold);
      healAll("stop-" + n.name());
      if (faults < planned) {
        sleepUntil(recorder.elapsedNanos() + rest);
      }
    }
    if (faults < planned && !stopped) {
      log.println("nemesis: injected " + faults + " of the " + planned + " faults planned"
          + " within " + TimeUnit.NANOSECONDS.toSeconds(limitNanos) + " s (too slow a machine,"
          + " or attempts that injected nothing): the run tested less than planned");
    }
  }

  /** The faults planned for this run. */
  int planned() {
    return planned;
  }

  /** True once the schedule injected its plan, gave up, or was stopped. */
  boolean finished() {
    return finished;
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
