package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.bench.Bench;
import io.partkit.bench.BenchOptions;
import io.partkit.bench.BenchResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return run(new BenchCommand(), args);
  }

  private int run(BenchCommand command, String... args) {
    CommandLine cmd = Main.commandLine(command);
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    return cmd.execute(args);
  }

  @Test
  void writesTheReportIntoTheChosenFolderAndExitsZeroWhenEverythingWasMeasured(
      @TempDir Path dir) {
    Path target = dir.resolve("r");
    int code = run("--quiet", "--subjects", "guava-jump,cassandra-vnodes-16",
        "--add-subject", "mine=fixed:partitions=8", "--sizes", "4,9",
        "--replicas", "1", "--keys", "5000", "--lookup-ms", "10", "--lookup-rounds", "2",
        "--out", target.toString());
    assertThat(code).as(err.toString()).isZero();
    assertThat(target.resolve("index.html")).isRegularFile();
    assertThat(target.resolve("results.json")).isRegularFile();
    assertThat(target.resolve("placements.csv")).isRegularFile();
    assertThat(out.toString()).contains("report: " + target.resolve("index.html").toAbsolutePath());
    assertThat(err.toString()).doesNotContain("not measured");
  }

  @Test
  void aSubjectThatFailsDuringTheRunIsNamedAndTheExitCodeIsOne(@TempDir Path dir) {
    BenchCommand command = new BenchCommand();
    // a subject that breaks mid-run (as a native library can): the real run, plus its failure
    command.runner = (options, progress) -> {
      BenchResult r = Bench.run(options, progress);
      List<String> problems = new ArrayList<>(r.problems());
      problems.add("guava-jump at 9 nodes, equal weights, RF 1: failed: IllegalStateException");
      return new BenchResult(r.options(), r.environment(), r.subjects(), r.placements(),
          r.lookups(), r.planning(), problems, r.seconds());
    };
    int code = run(command, "--quiet", "--subjects", "guava-jump", "--sizes", "4,9",
        "--replicas", "1", "--keys", "5000", "--lookup-ms", "10", "--out", dir.toString());
    assertThat(code).isEqualTo(BenchCommand.NOT_MEASURED).isEqualTo(1);
    assertThat(err.toString()).contains("not measured (1), see the report:")
        .contains("guava-jump at 9 nodes");
    assertThat(dir.resolve("index.html")).isRegularFile();
  }

  @Test
  void runningOutOfMemoryExitsOneSayingHowToGiveItMore(@TempDir Path dir) {
    BenchCommand command = new BenchCommand();
    command.runner = (options, progress) -> {
      throw new OutOfMemoryError("Java heap space");
    };
    int code = run(command, "--quiet", "--sizes", "4", "--out", dir.toString());
    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).contains("partkit bench: out of memory (Java heap space, max heap")
        .contains("PARTKIT_JAVA_OPTS=-Xmx4g");
    assertThat(dir.resolve("index.html")).doesNotExist();
  }

  @Test
  void anUnknownSubjectOrStrategyIsAUsageErrorNamingTheValidOnes(@TempDir Path dir) {
    assertThat(run("--quiet", "--subjects", "cassandra", "--out", dir.toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("partkit bench: unknown subject 'cassandra'; known "
        + "subjects: [fixed, rendezvous");
    assertThat(run("--quiet", "--add-subject", "mine=no-such-strategy:partitions=8",
        "--out", dir.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("subject 'mine=no-such-strategy:partitions=8': unknown "
        + "partitioning strategy 'no-such-strategy'; known strategies: [fixed, range, "
        + "rendezvous, tokenring]");
    assertThat(run("--quiet", "--add-subject", "mine=fixed:partitons=8",
        "--out", dir.toString())).isEqualTo(64);
    assertThat(err.toString()).contains("partitons");
    assertThat(Files.exists(dir.resolve("index.html"))).isFalse();
  }

  @Test
  void rejectsBadOptionsWithTheirValuesAsUsageErrors(@TempDir Path dir) {
    int code = run("--quiet", "--sizes", "1", "--weights", "heavy", "--out", dir.toString());
    assertThat(code).isEqualTo(64);
    assertThat(err.toString()).contains("weights must be equal or mixed: 'heavy'");
    code = run("--quiet", "--sizes", "1", "--out", dir.toString());
    assertThat(code).isEqualTo(64);
    assertThat(err.toString())
        .contains("sizes must be a non-empty list of values in 2..100000: [1]");
    assertThat(run("--sizes", "abc")).isEqualTo(64);
    assertThat(err.toString()).contains("partkit bench: Invalid value for option '--sizes'")
        .contains("Try 'partkit bench --help'");
    assertThat(run("--no-such-option")).isEqualTo(64);
    assertThat(err.toString()).contains("Unknown option: '--no-such-option'");
    assertThat(Files.exists(dir.resolve("index.html"))).isFalse();
  }

  @Test
  void quickTakesTheQuickSettingsAndExplicitOptionsStillWin() {
    BenchCommand command = new BenchCommand();
    Main.commandLine(command).parseArgs("--quick", "--sizes", "5");
    BenchOptions o = command.options();
    assertThat(o.quick()).isTrue();
    assertThat(o.sizes()).containsExactly(5);
    assertThat(o.lookupRounds()).isEqualTo(BenchOptions.quickRun().lookupRounds());
    assertThat(o.sampleKeys()).isLessThan(BenchOptions.defaults().sampleKeys());
    BenchCommand full = new BenchCommand();
    Main.commandLine(full).parseArgs();
    assertThat(full.options()).isEqualTo(BenchOptions.defaults());
  }

  @Test
  void theHelpStatesTheExitCodes() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("Exit codes:").contains(" 1   report written, but a "
        + "subject could not be measured").contains("64   usage error").contains("--quick");
  }
}
