package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Models;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Memory grows with the history, not its square: 100k sequential writes (10^10 bits of cache with
 * a history-long bitset per configuration, out of memory on a 6 GB heap before) are valid in a
 * JVM limited to 64 MB, and quickly; so are 100k writes each overlapping the next, whose search
 * caches configurations all along. The large goals (1M operations) are in ScaleBenchmark.
 */
class ScaleTest {

  @Test
  void hundredThousandSequentialWritesAreValidInA64MbHeap() throws Exception {
    assertValidIn64Mb("100000");
  }

  /** Every write overlaps the next: two orders at each step, configurations cached all along. */
  @Test
  void hundredThousandOverlappingWritesAreValidInA64MbHeap() throws Exception {
    assertValidIn64Mb("100000", "overlapping");
  }

  private static void assertValidIn64Mb(String... args) throws Exception {
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                java,
                "-Xmx64m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                SequentialWrites.class.getName()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out).startsWith("VALID");
    assertThat(p.exitValue()).as(out).isZero();
  }

  @Test
  void overlappingWritesEndingInAStaleReadAreInvalid() {
    History h = SequentialWrites.overlapping(2_000);
    List<Op> ops = new java.util.ArrayList<>(h.ops());
    // long overwritten
    ops.set(ops.size() - 1, Op.of(ops.size() - 1, 2, OpType.OK, "read", 1_000L));
    Analysis a = Linearizability.check(Models.casRegister(null), History.of("stale", ops));
    assertThat(a.verdict()).isEqualTo(Verdict.INVALID);
    assertThat(a.failure().orElseThrow().evidence().op().value()).isEqualTo(1_000L);
  }

  @Test
  void hundredThousandSequentialWritesInProcessUnderTwoSeconds() {
    Analysis a = Linearizability.check(Models.casRegister(null), SequentialWrites.history(100_000));
    assertThat(a.verdict()).isEqualTo(Verdict.VALID);
    assertThat(a.keys().get(0).linearization()).hasSize(100_000);
    assertThat(a.nanos()).as("nanos").isLessThan(2_000_000_000L);
  }
}
