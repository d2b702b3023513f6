package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.mutants.Mutant;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code partkit simulate}'s interface: what scripts and CI depend on. */
class SimulateCommandTest {

  static final String LAST_LINE =
      "simulate: seeds=\\d+ valid=\\d+ invalid=\\d+ unknown=\\d+ ops=\\d+ faults=\\d+ wall-ms=\\d+";

  @TempDir
  Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Main.commandLine(new PartkitCommand())
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(args);
  }

  private String lastLine() {
    List<String> lines = out.toString().lines().toList();
    return lines.get(lines.size() - 1);
  }

  @Test
  void validSeedsExitZeroAndEndWithTheSummaryLine() {
    assertThat(run("simulate", "--seeds", "1..4", "--time", "2s")).isEqualTo(0);
    assertThat(lastLine()).matches(LAST_LINE).startsWith("simulate: seeds=4 valid=4 invalid=0 "
        + "unknown=0 ");
  }

  @Test
  void aMutantExitsOneNamingTheSeedItsReplayAndItsShrink() {
    assertThat(run("simulate", "--seeds", "1..3", "--mutant", "async-replication")).isEqualTo(1);
    assertThat(out.toString()).contains("seed 1 invalid:")
        .contains("replay: ./partkit simulate --seeds 1 --time 10s --nodes 5 --mutant "
            + "async-replication")
        .contains("shrunk (");
    assertThat(lastLine()).matches(LAST_LINE).doesNotContain("invalid=0");
  }

  @Test
  void listMutantsPrintsOneNamePerLine() {
    assertThat(run("simulate", "--list-mutants")).isEqualTo(0);
    assertThat(out.toString().lines().toList()).isEqualTo(Mutant.labels()).hasSizeGreaterThan(4);
  }

  @Test
  void oneSeedWithAStoreWritesItsHistoryResultsAndReportAndReplaysToTheByte() throws Exception {
    assertThat(run("simulate", "--seeds", "5", "--store", dir.resolve("a").toString()))
        .isEqualTo(0);
    assertThat(run("simulate", "--seeds", "5", "--store", dir.resolve("b").toString()))
        .isEqualTo(0);
    for (String f : List.of("history.edn", "results.edn", "index.html")) {
      assertThat(dir.resolve("a").resolve(f)).isRegularFile();
    }
    assertThat(Files.readAllBytes(dir.resolve("b/history.edn")))
        .isEqualTo(Files.readAllBytes(dir.resolve("a/history.edn")));
    assertThat(Files.readString(dir.resolve("a/results.edn"))).contains(":valid? true")
        .contains(":options {:concurrency 10 :merges \"off\" :numbering \"hashed\""
            + " :ops-per-key 200"
            + " :partitions 16 :replicas 3 :strategy \"core\" :threads-per-key 5"
            + " :truncations \"off\" :wipes \"off\" }");
  }

  @Test
  void aRangeWithAStoreKeepsFailingSeedsAndASummary() throws Exception {
    run("simulate", "--seeds", "1..2", "--mutant", "async-replication", "--store",
        dir.toString());
    assertThat(dir.resolve("summary.edn")).isRegularFile();
    assertThat(Files.readString(dir.resolve("summary.edn"))).contains(":invalid ");
    assertThat(dir.resolve("seed-1/history.edn")).isRegularFile();
    assertThat(Files.readString(dir.resolve("seed-1/results.edn"))).contains(":shrunk");
  }

  @Test
  void badInputIsAUsageErrorListingWhatIsKnown() {
    assertThat(run("simulate", "--mutant", "nope")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("unknown mutant nope").contains("ack-before-sync");
    assertThat(run("simulate", "--seeds", "9..3")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--seeds range is empty");
    assertThat(run("simulate", "--seeds", "a..b")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--seeds must be a seed");
    assertThat(run("simulate", "--time", "0")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("--time must be positive");
    assertThat(run("simulate", "--option", "colour=red")).isEqualTo(Main.USAGE);
    assertThat(err.toString()).contains("unknown option colour");
  }
}
