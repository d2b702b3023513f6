package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cmd = new CommandLine(new BenchCommand());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    return cmd.execute(args);
  }

  @Test
  void writesTheReportIntoTheChosenFolderAndNamesWhatWasNotMeasured(@TempDir Path dir) {
    Path target = dir.resolve("r");
    int code = run("--quiet", "--subjects", "guava-jump,cassandra-vnodes-16",
        "--add-subject", "mine=no-such-strategy:partitions=8", "--sizes", "4,9",
        "--replicas", "1", "--keys", "5000", "--lookup-ms", "10", "--out", target.toString());
    assertThat(code).as(err.toString()).isZero();
    assertThat(target.resolve("index.html")).isRegularFile();
    assertThat(target.resolve("results.json")).isRegularFile();
    assertThat(target.resolve("placements.csv")).isRegularFile();
    assertThat(out.toString()).contains("report: " + target.resolve("index.html").toAbsolutePath());
    assertThat(err.toString()).contains("mine: not measured")
        .contains("unknown partitioning strategy 'no-such-strategy'");
  }

  @Test
  void rejectsBadOptionsWithTheirValues(@TempDir Path dir) {
    int code = run("--quiet", "--sizes", "1", "--weights", "heavy", "--out", dir.toString());
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("weights must be equal or mixed: 'heavy'");
    code = run("--quiet", "--sizes", "1", "--out", dir.toString());
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("sizes must be a non-empty list of values in 2..100000: [1]");
    code = run("--quiet", "--subjects", "cassandra", "--out", dir.toString());
    assertThat(err.toString()).contains("unknown subject 'cassandra'");
    assertThat(Files.exists(dir.resolve("index.html"))).isFalse();
  }
}
