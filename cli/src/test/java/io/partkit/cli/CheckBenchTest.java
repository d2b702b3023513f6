package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code partkit check --bench} runs the corpus timing and checks every verdict on the way. */
class CheckBenchTest {

  /** The corpus that ships with the repository: $PARTKIT_ROOT/data/histories/porcupine. */
  static Path corpus() {
    Path c = RepositoryRoot.find().resolve("data/histories/porcupine");
    if (Files.isRegularFile(c.resolve("EXPECTED.tsv"))) {
      return c;
    }
    String what = "the Porcupine corpus at " + c;
    if ("true".equals(System.getenv("CI"))) {
      fail("missing " + what);
    }
    Assumptions.abort("skipped: missing " + what);
    return null;
  }

  @Test
  void benchPrintsTheFourFigures() {
    Path dir = corpus();
    StringWriter out = new StringWriter();
    int code = new CommandLine(new PartkitCommand()).setOut(new PrintWriter(out, true))
        .execute("check", "--bench", dir.toString(), "--warmup", "0", "--rounds", "1");
    assertThat(code).as(out.toString()).isZero();
    assertThat(out.toString()).contains("108 files").contains("verdicts all as EXPECTED.tsv")
        .containsPattern("etcd sum \\(102 files\\) +\\d+\\.\\d\\d ms")
        .containsPattern("worst etcd \\(etcd_\\d{3}\\.log\\)")
        .containsPattern("c50-ok +\\d+\\.\\d\\d ms")
        .containsPattern("c50-bad +\\d+\\.\\d\\d ms");
  }
}
