package io.partkit.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.harness.nemesis.Fault;
import io.partkit.harness.nemesis.Nemesis;
import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.system.SystemUnderTest;
import io.partkit.verification.history.Op;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The schedule injects the faults it planned however slow each one is to start (a machine at
 * load average 20 let a 20 s run inject 2 of the 3 faults a test counted on), and an attempt
 * that injected nothing is neither counted nor held as a fault. The nemesis here is the
 * schedule's collaborator, made slow on purpose; the real nemeses run in {@code KvVerifyTest}.
 */
class NemesisScheduleTest {

  /** Starts slowly, as a kill and restart of a JVM does on a loaded machine. */
  private static final class SlowNemesis implements Nemesis {
    final AtomicInteger attempts = new AtomicInteger();
    final long startMillis;
    final int nothingEvery; // every n-th attempt injects nothing (0: never)

    SlowNemesis(long startMillis, int nothingEvery) {
      this.startMillis = startMillis;
      this.nothingEvery = nothingEvery;
    }

    @Override
    public String name() {
      return "slow";
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes) {
      return Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      int n = attempts.incrementAndGet();
      try {
        TimeUnit.MILLISECONDS.sleep(startMillis); // the slow start under test, not a race
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      boolean nothing = nothingEvery > 0 && n % nothingEvery == 0;
      return new Fault() {
        @Override
        public String description() {
          return nothing ? "nothing" : "slow fault " + n;
        }

        @Override
        public void heal() {}

        @Override
        public boolean injected() {
          return !nothing;
        }
      };
    }
  }

  @Test
  void aSlowNemesisStillInjectsEveryPlannedFaultPastTheRunsTime() {
    Recorder recorder = new Recorder(System.nanoTime());
    long run = TimeUnit.SECONDS.toNanos(14);
    SlowNemesis slow = new SlowNemesis(2000, 2); // 2 s per start: the plan runs past 14 s
    NemesisSchedule schedule = new NemesisSchedule(List.of(slow), null, null, recorder, 7, run,
        new PrintStream(new ByteArrayOutputStream(), true));
    assertThat(schedule.planned()).as("14 s: 2 faults").isEqualTo(2);
    schedule.run();
    assertThat(schedule.faults()).isEqualTo(schedule.planned());
    assertThat(slow.attempts.get()).as("one attempt injected nothing and was made again")
        .isEqualTo(3);
    List<Op> nemesisOps = recorder.ops().stream()
        .filter(op -> "nemesis".equals(String.valueOf(op.process()))).toList();
    assertThat(nemesisOps.stream().filter(op -> String.valueOf(op.f()).startsWith("stop-")))
        .as("only injected faults are healed (shaded in the report)").hasSize(2 * 2);
  }

  /** A runtime whose engine is gone: every start fails, and the runtime says why. */
  private static final class LostRuntime implements NodeRuntime {
    @Override
    public String name() {
      return "lost";
    }

    @Override
    public void open(List<String> nodes) {}

    @Override
    public String host(String node) {
      return "127.0.0.1";
    }

    @Override
    public int port(String node, String service, int defaultPort) {
      return defaultPort;
    }

    @Override
    public io.partkit.harness.runtime.NodeProcess start(String node, List<String> command,
        java.nio.file.Path log) {
      throw new UnsupportedOperationException("not started by this test");
    }

    @Override
    public Optional<String> lostControl() {
      return Optional.of("the engine stopped answering");
    }

    @Override
    public void close() {}
  }

  /** Fails to start, as any fault does once the runtime cannot reach its nodes. */
  private static final class FailingNemesis implements Nemesis {
    final AtomicInteger attempts = new AtomicInteger();

    @Override
    public String name() {
      return "failing";
    }

    @Override
    public Optional<String> unsupported(SystemUnderTest system, NodeRuntime runtime, int nodes) {
      return Optional.empty();
    }

    @Override
    public Fault start(SystemUnderTest system, NodeRuntime runtime, Random random) {
      attempts.incrementAndGet();
      throw new IllegalStateException("no engine");
    }
  }

  @Test
  void aRuntimeThatLostControlEndsThePlanAtTheFirstFailedStart() {
    Recorder recorder = new Recorder(System.nanoTime());
    FailingNemesis failing = new FailingNemesis();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    // a 1 s run: 300 ms of quiet, then one attempt instead of retries until 2 min past its end
    NemesisSchedule schedule = new NemesisSchedule(List.of(failing), null, new LostRuntime(),
        recorder, 7, TimeUnit.SECONDS.toNanos(1), new PrintStream(log, true));
    schedule.run();
    assertThat(schedule.finished()).isTrue();
    assertThat(failing.attempts.get()).isEqualTo(1);
    assertThat(schedule.faults()).isZero();
    assertThat(log.toString()).contains("no more faults, the engine stopped answering");
  }
}
