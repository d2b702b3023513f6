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
}
