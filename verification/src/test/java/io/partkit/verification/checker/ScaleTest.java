package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.model.Models;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Memory grows with the history, not its square: 100k sequential writes (10^10 bits of cache with
 * a history-long bitset per configuration, out of memory on a 6 GB heap before) are valid in a
 * JVM limited to 64 MB, and quickly. The large goals (1M operations) are in ScaleBenchmark.
 */
class ScaleTest {

  @Test
  void hundredThousandSequentialWritesAreValidInA64MbHeap() throws Exception {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process p = new ProcessBuilder(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), SequentialWrites.class.getName(), "100000"))
        .redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out).startsWith("VALID");
    assertThat(p.exitValue()).as(out).isZero();
  }

  @Test
  void hundredThousandSequentialWritesInProcessUnderTwoSeconds() {
    Analysis a = Linearizability.check(Models.casRegister(null), SequentialWrites.history(100_000));
    assertThat(a.verdict()).isEqualTo(Verdict.VALID);
    assertThat(a.keys().get(0).linearization()).hasSize(100_000);
    assertThat(a.nanos()).as("nanos").isLessThan(2_000_000_000L);
  }
}
