package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckCommandTest {
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

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  static final String VALID =
      """
      {:process 0, :type :invoke, :f :write, :value 1}
      {:process 0, :type :ok, :f :write, :value 1}
      {:process 1, :type :invoke, :f :read, :value nil}
      {:process 1, :type :ok, :f :read, :value 1}
      """;

  static final String STALE =
      """
      {:process 0, :type :invoke, :f :write, :value 1}
      {:process 0, :type :ok, :f :write, :value 1}
      {:process 1, :type :invoke, :f :read, :value nil}
      {:process 1, :type :ok, :f :read, :value 0}
      """;

  @Test
  void validHistoryExitsZero() throws IOException {
    assertThat(run("check", write("v.edn", VALID).toString(), "--model", "register", "--init", "0"))
        .isEqualTo(0);
    assertThat(out.toString()).contains("v.edn: valid (register,");
  }

  @Test
  void invalidHistoryExitsOneAndPrintsEvidence() throws IOException {
    assertThat(
            run(
                "check",
                write("s.edn", STALE).toString(),
                "--model",
                "cas-register",
                "--init",
                "0"))
        .isEqualTo(1);
    assertThat(out.toString())
        .contains("s.edn: invalid")
        .contains(
            "cannot linearize: {:process 1, :type :ok, :f :read, :value 0, :index 3, :line 4}")
        .contains("because: read 0 but the register holds 1");
  }

  @Test
  void timeLimitExitsTwo() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int p = 0; p < 24; p++) {
      sb.append("{:process ")
          .append(p)
          .append(", :type :invoke, :f :add, :value ")
          .append(p)
          .append("}\n");
    }
    sb.append(
        "{:process 99, :type :invoke, :f :read, :value nil}\n"
            + "{:process 99, :type :ok, :f :read, :value #{99}}\n");
    // 2^24 subsets of pending adds, each a different set: no machine searches that in a
    // millisecond. (Not a register: it drops pending writes whose value nothing reads, which
    // would decide such a history at once.)
    assertThat(
            run(
                "check",
                write("hard.edn", sb.toString()).toString(),
                "--model",
                "set",
                "--time-limit",
                "1ms"))
        .isEqualTo(2);
    assertThat(out.toString()).contains("hard.edn: unknown").contains("cause: time limit reached");
  }

  @Test
  void malformedFileExitsThreeNamingFileAndLine() throws IOException {
    Path bad = write("bad.edn", VALID + "{:process 2, :type :invoke\n");
    assertThat(run("check", bad.toString(), "--model", "register")).isEqualTo(3);
    assertThat(err.toString()).contains(bad + ":5: expected valid EDN");
  }

  @Test
  void invalidHistoryStructureExitsThree() throws IOException {
    Path bad =
        write(
            "twice.edn",
            "{:process 0, :type :invoke, :f :read}\n{:process 0, :type :invoke, :f :read}\n");
    assertThat(run("check", bad.toString(), "--model", "register")).isEqualTo(3);
    assertThat(err.toString())
        .contains("line 2: process 0 invokes :read while its invocation of :read at line 1");
  }

  @Test
  void badOptionsAreUsageErrorsNeverUnknown() throws IOException {
    Path v = write("v.edn", VALID);
    assertThat(run("check", v.toString(), "--model", "stack")).isEqualTo(64);
    assertThat(err.toString())
        .contains("partkit check: unknown model stack; known models: register");
    assertThat(run("check", v.toString(), "--model", "register", "--init", "{:x")).isEqualTo(64);
    assertThat(err.toString()).contains("--init must be one EDN value");
    assertThat(run("check", v.toString(), "--time-limit", "soon")).isEqualTo(64);
    assertThat(err.toString()).contains("--time-limit must look like 30s");
    assertThat(run("check", v.toString(), "--no-such-option")).isEqualTo(64);
    assertThat(run("check")).isEqualTo(64);
    assertThat(err.toString()).contains("Missing required parameter: 'PATH'")
        .contains("Try 'partkit check --help'");
    assertThat(run("check", v.toString(), "--rounds", "many")).isEqualTo(64);
    assertThat(run("check", dir.toString(), "--html", dir.resolve("x.html").toString()))
        .isEqualTo(64);
    assertThat(err.toString()).contains("--html needs exactly one history file");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aMissingFileSaysSoPlainlyAndIsBadInput() throws IOException {
    Path missing = dir.resolve("foo.edn");
    assertThat(run("check", missing.toString())).isEqualTo(3);
    assertThat(err.toString()).isEqualTo("partkit check: no such file: " + missing
        + System.lineSeparator());
    // among several paths the others are still checked, and the summary counts it
    Path v = write("v.edn", VALID);
    assertThat(run("check", v.toString(), missing.toString(), "--model", "register", "--init",
        "0")).isEqualTo(3);
    assertThat(out.toString()).contains("v.edn\tvalid\t")
        .contains("2 files: 1 valid, 0 invalid, 0 unknown, 1 bad input");
  }

  @Test
  void benchOnAMissingCorpusSaysSo() {
    Path missing = dir.resolve("corpus");
    assertThat(run("check", "--bench", missing.toString())).isEqualTo(3);
    assertThat(err.toString()).contains("partkit check: no such directory: " + missing);
  }

  @Test
  void theHelpStatesTheExitCodes() {
    assertThat(run("check", "--help")).isZero();
    assertThat(out.toString()).contains("Exit codes:").contains(" 2   unknown")
        .contains(" 3   bad input").contains("64   usage error");
  }

  @Test
  void withoutACommandTheUsageIsPrintedAndItIsAUsageError() {
    assertThat(run()).isEqualTo(64);
    assertThat(err.toString()).contains("Usage: partkit").contains("64 on a usage error");
  }

  @Test
  void multiRegisterInitFromEdn() throws IOException {
    Path h =
        write(
            "txn.edn",
            """
            {:process 0, :type :invoke, :f :txn, :value [[:read :x nil] [:read :y nil]]}
            {:process 0, :type :ok, :f :txn, :value [[:read :x 0] [:read :y 0]]}
            """);
    assertThat(run("check", h.toString(), "--model", "multi-register", "--init", "{:x 0 :y 0}"))
        .isEqualTo(0);
    assertThat(run("check", h.toString(), "--model", "multi-register")).isEqualTo(1);
  }

  @Test
  void severalFilesPrintOneLineEachThenASummaryAndExitWithTheWorst() throws IOException {
    write("a-valid.edn", VALID);
    write("b-stale.edn", STALE);
    write(
        "c.jsonl",
        """
        {"process": 0, "type": "invoke", "f": "write", "value": 1}
        {"process": 0, "type": "ok", "f": "write", "value": 1}
        """);
    int code = run("check", dir.toString(), "--model", "register", "--init", "0");
    assertThat(code).isEqualTo(1);
    String[] lines = out.toString().split("\\R");
    assertThat(lines).hasSize(4);
    assertThat(lines[0]).matches(".*a-valid\\.edn\tvalid\t\\d+");
    assertThat(lines[1]).matches(".*b-stale\\.edn\tinvalid\t\\d+");
    assertThat(lines[2]).matches(".*c\\.jsonl\tvalid\t\\d+");
    assertThat(lines[3]).startsWith("3 files: 2 valid, 1 invalid, 0 unknown, 0 bad input;");
  }

  @Test
  void aJepsenStoreDirectoryIsCheckedByItsHistoryEdnOnly() throws IOException {
    Path run = Files.createDirectories(dir.resolve("store/register/20250101T000000.000Z"));
    Files.writeString(run.resolve("history.edn"), STALE);
    Files.writeString(run.resolve("results.edn"), "{:valid? true}\n");
    Files.writeString(run.resolve("jepsen.log"), "INFO  jepsen.core - Run complete\n");
    assertThat(run("check", dir.resolve("store").toString(), "--model", "register", "--init", "0"))
        .isEqualTo(1);
    assertThat(out.toString().split("\\R")).hasSize(2);
    assertThat(out.toString()).contains("history.edn\tinvalid\t").doesNotContain("results.edn");
  }

  @Test
  void htmlPictureIsSelfContained() throws IOException {
    Path html = dir.resolve("out.html");
    assertThat(
            run(
                "check",
                write("s.edn", STALE).toString(),
                "--model",
                "register",
                "--init",
                "0",
                "--html",
                html.toString()))
        .isEqualTo(1);
    String page = Files.readString(html);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("<svg").contains("class='op bad'")
        .doesNotContain("http://", "https://cdn", "<script src", "<link");
  }

  @Test
  void autoModelGuessesFromTheFunctions() throws IOException {
    assertThat(run("check", write("v.edn", VALID).toString())).isEqualTo(0);
    assertThat(out.toString()).contains("(cas-register,");
  }

  static final String NIL_READ =
      """
      {:process 0, :type :invoke, :f :write, :value 1}
      {:process 0, :type :ok, :f :write, :value 1}
      {:process 1, :type :invoke, :f :read, :value nil}
      {:process 1, :type :ok, :f :read, :value nil}
      """;

  @Test
  void anOkReadOfNilIsAWildcardUnlessStrictNil() throws IOException {
    Path h = write("n.edn", NIL_READ);
    assertThat(run("check", h.toString(), "--model", "cas-register")).isEqualTo(0);
    assertThat(run("check", h.toString(), "--model", "cas-register", "--strict-nil")).isEqualTo(1);
    assertThat(out.toString()).contains("because: read nil but the register holds 1");
  }

  @Test
  void aJepsenIndependentHistoryIsSplitPerKey() throws IOException {
    Path h =
        write(
            "history.edn",
            """
            {:index 0, :time 1, :type :invoke, :process 0, :f :cas, :value [0 [nil 1]]}
            {:index 1, :time 2, :type :invoke, :process 3, :f :read, :value [0 nil]}
            {:index 2, :time 3, :type :info, :process :nemesis, :f :start-partition, :value nil}
            {:index 3, :time 4, :type :ok, :process 0, :f :cas, :value [0 [nil 1]]}
            {:index 4, :time 5, :type :ok, :process 3, :f :read, :value [0 1]}
            {:index 5, :time 6, :type :invoke, :process 1, :f :write, :value [7 3]}
            {:index 6, :time 7, :type :ok, :process 1, :f :write, :value [7 3]}
            {:index 7, :time 8, :type :invoke, :process 2, :f :read, :value [7 nil]}
            {:index 8, :time 9, :type :ok, :process 2, :f :read, :value [7 2]}
            """);
    assertThat(run("check", h.toString(), "--model", "cas-register")).isEqualTo(1);
    assertThat(out.toString()).contains("2 key(s)").contains("read 2 but the register holds 3");
    assertThat(run("check", h.toString(), "--model", "cas-register", "--independent", "no"))
        .isEqualTo(1);
    assertThat(run("check", write("plain.edn", VALID).toString(), "--independent", "yes"))
        .isEqualTo(3);
    assertThat(err.toString()).contains("plain.edn:1: expected an independent value [k v]");
    assertThat(run("check", h.toString(), "--independent", "maybe")).isEqualTo(64);
    assertThat(err.toString()).contains("--independent must be auto, yes or no");
  }

  @Test
  void anEmptyCollectionIsValidAndAFileWithoutHistoryIsBadInput() throws IOException {
    assertThat(run("check", write("e.edn", "[]\n").toString(), "--model", "cas-register"))
        .isEqualTo(0);
    assertThat(run("check", write("z.edn", "").toString(), "--model", "cas-register")).isEqualTo(3);
    assertThat(err.toString()).contains("z.edn:1: empty file");
  }

  @Test
  void outOfMemoryWhileReadingOrCheckingIsUnknownNeverInvalid() throws IOException {
    Path v = write("v.edn", VALID);
    for (boolean many : new boolean[] {false, true}) {
      CheckCommand cmd = new CheckCommand();
      cmd.source = (file, mode) -> {
        throw new OutOfMemoryError("Java heap space");
      };
      int code =
          Main.commandLine(cmd)
              .setOut(new PrintWriter(out, true))
              .setErr(new PrintWriter(err, true))
              .execute(many ? new String[] {dir.toString()} : new String[] {v.toString()});
      assertThat(code).as("several files: %s", many).isEqualTo(2);
    }
    assertThat(err.toString()).contains("v.edn: unknown: out of memory (Java heap space, max heap")
        .contains("not a verdict");
    assertThat(out.toString())
        .contains("v.edn\tunknown\t")
        .contains("1 files: 0 valid, 0 invalid, 1 unknown");
  }

  /** The real thing: a child JVM with a small heap reading a history larger than it. */
  @Test
  void aChildJvmOutOfMemoryExitsTwo() throws Exception {
    Path big = dir.resolve("big.edn");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 300_000; i++) {
      sb.append("{:process ")
          .append(i % 7)
          .append(", :type :invoke, :f :write, :value ")
          .append(i)
          .append("}\n");
      sb.append("{:process ")
          .append(i % 7)
          .append(", :type :ok, :f :write, :value ")
          .append(i)
          .append("}\n");
    }
    Files.writeString(big, sb);
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx24m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "check",
                big.toString(),
                "--model",
                "register")
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(output).isEqualTo(2);
    assertThat(output).contains("out of memory");
  }

  // What check takes as its input: a huge --time-limit is no limit (it exited 70 with an
  // ArithmeticException), store/latest is followed (exit 3: "no history files"), a run directory
  // gives its history.edn only (the node logs, wal.log and coordinator.json below it were read as
  // histories), and a history whose :index values repeat is refused (it passed without a word).

  /** A store as verify leaves it: one run with its history, node logs and data, and links. */
  private Path store() throws IOException {
    Path run = dir.resolve("store").resolve("kv").resolve("20261126T000000.000");
    Files.createDirectories(run.resolve("data").resolve("n1"));
    Files.writeString(run.resolve("history.edn"), VALID);
    Files.writeString(run.resolve("n1.log"), "KVNODE LISTENING 127.0.0.1:7001\n");
    Files.write(run.resolve("data").resolve("n1").resolve("wal.log"), new byte[] {0, 0, 0, 9});
    Files.writeString(run.resolve("data").resolve("coordinator.json"), "{\"epoch\": 3}");
    Path store = dir.resolve("store");
    Files.createSymbolicLink(store.resolve("latest"), store.relativize(run));
    return store;
  }

  @Test
  void aHugeTimeLimitIsNoLimit() throws IOException {
    Path h = dir.resolve("v.edn");
    Files.writeString(h, VALID);
    assertThat(run("check", h.toString(), "--model", "register", "--init", "0",
        "--time-limit", "999999999999999s")).as(err.toString()).isZero();
    assertThat(run("check", h.toString(), "--model", "register", "--init", "0",
        "--time-limit", "99999999999999999999999h")).as(err.toString()).isZero();
  }

  @Test
  void theLatestLinkIsFollowed() throws IOException {
    Path store = store();
    assertThat(run("check", store.resolve("latest").toString(), "--model", "register",
        "--init", "0")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("history.edn\tvalid").contains("1 files: 1 valid");
  }

  @Test
  void aStoreGivesItsHistoriesOnlyNotTheNodesFiles() throws IOException {
    Path store = store();
    assertThat(run("check", store.toString(), "--model", "register", "--init", "0"))
        .as(out + "" + err).isZero();
    assertThat(out.toString()).contains("1 files: 1 valid").doesNotContain("wal.log")
        .doesNotContain("coordinator.json").doesNotContain("n1.log");
  }

  @Test
  void aRepeatedIndexIsRefusedNamingIt() throws IOException {
    Path h = dir.resolve("dup.edn");
    Files.writeString(h, """
        {:index 0, :process 0, :type :invoke, :f :write, :value 1}
        {:index 1, :process 0, :type :ok, :f :write, :value 1}
        {:index 1, :process 1, :type :invoke, :f :read, :value nil}
        {:index 3, :process 1, :type :ok, :f :read, :value 1}
        """);
    assertThat(run("check", h.toString(), "--model", "register", "--init", "0")).isEqualTo(3);
    assertThat(err.toString()).contains(":index 1 is used twice (line 2 and line 3)");
  }
}
