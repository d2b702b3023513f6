package io.partkit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A history whose processes are names ("client-1", :client-1), as other tools
 * write them, is checked like one whose processes are numbers (Knossos takes any value as a
 * process id), in every format the command reads; only the nemesis is not checked, and the
 * verdict line counts every event. Before the fix these histories were "valid (..., 0 client
 * events, ...)": nothing had been checked.
 */
class CheckProcessesTest {
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

  /** A write of 1, then a read of 7, which nobody wrote: invalid, whatever the processes are. */
  private static String history(String format, String p0, String p1) {
    String[][] events = {
      {p0, "invoke", "write", "1"},
      {p0, "ok", "write", "1"},
      {":nemesis", "info", "start", "nil"},
      {p1, "invoke", "read", "nil"},
      {p1, "ok", "read", "7"},
      {":nemesis", "info", "stop", "nil"},
    };
    StringBuilder sb = new StringBuilder();
    for (String[] e : events) {
      switch (format) {
        case "edn":
          sb.append("{:process ").append(e[0]).append(", :type :").append(e[1])
              .append(", :f :").append(e[2]).append(", :value ").append(e[3]).append("}\n");
          break;
        case "jsonl":
          sb.append("{\"process\": ").append(json(e[0])).append(", \"type\": \"").append(e[1])
              .append("\", \"f\": \"").append(e[2]).append("\", \"value\": ")
              .append(e[3].equals("nil") ? "null" : e[3]).append("}\n");
          break;
        default:
          sb.append("INFO  jepsen.util - ").append(e[0].replace("\"", "")).append("\t:")
              .append(e[1]).append("\t:").append(e[2]).append('\t').append(e[3]).append('\n');
      }
    }
    return sb.toString();
  }

  private static String json(String process) {
    return process.startsWith(":") ? "\"" + process.substring(1) + "\"" : process;
  }

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  @ParameterizedTest(name = "{0} with processes {1} and {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "edn|\"client-1\"|\"client-2\"",
        "edn|:client-1|:client-2",
        "edn|0|1",
        "jsonl|\"client-1\"|\"client-2\"",
        "jsonl|:client-1|:client-2",
        "jsonl|0|1",
        "log|client-1|client-2",
        "log|:client-1|:client-2",
        "log|0|1",
      })
  void aReadOfAValueNobodyWroteIsInvalidWhateverTheProcessesAre(
      String format, String p0, String p1) throws IOException {
    Path file = write("h." + format, history(format, p0, p1));
    assertThat(run("check", file.toString(), "--model", "register", "--init", "0"))
        .as("exit code; out: %s; err: %s", out, err)
        .isEqualTo(CheckCommand.INVALID);
    assertThat(out.toString())
        .contains("h." + format + ": invalid (register, 6 events: 4 client (checked),"
            + " 2 nemesis (not checked), 1 key(s)")
        .contains("because: read 7 but the register holds 1");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"edn", "jsonl", "log"})
  void theSameHistoryWithoutTheBadReadIsValidAndCountsEveryEvent(String format)
      throws IOException {
    Path file =
        write("h." + format, history(format, ":client-1", ":client-2").replace("7", "1"));
    assertThat(run("check", file.toString(), "--model", "register", "--init", "0"))
        .as("exit code; err: %s", err)
        .isEqualTo(CheckCommand.VALID);
    assertThat(out.toString())
        .contains(": valid (register, 6 events: 4 client (checked), 2 nemesis (not checked)");
  }

  @ParameterizedTest(name = "--model {0}")
  @CsvSource({"register", "auto"})
  void aHistoryOfTheNemesisAloneIsValidAndSaysNoClientOperationWasChecked(String model)
      throws IOException {
    // Knossos' corpus holds one in good/: nothing a client did can be wrong
    Path file =
        write(
            "nemesis.edn",
            """
            {:process :nemesis, :type :info, :f :start, :value nil}
            {:process :nemesis, :type :info, :f :stop, :value nil}
            """);
    Path html = dir.resolve("nemesis.html");
    assertThat(run("check", file.toString(), "--model", model, "--html", html.toString()))
        .as("exit code; err: %s", err)
        .isEqualTo(CheckCommand.VALID);
    assertThat(html).as("the picture, of the nemesis alone").isNotEmptyFile();
    assertThat(out.toString())
        .contains("nemesis.edn: valid (")
        .contains("2 events: 0 client (checked), 2 nemesis (not checked), 0 key(s)")
        .contains("0 client operations checked: the history holds only the nemesis' events");
  }

  @Test
  void inADirectoryTheListingCallsTheNemesisAloneValidAndTheSummaryCountsIt()
      throws IOException {
    write("a/nemesis.edn", "{:process :nemesis, :type :info, :f :start, :value nil}\n");
    write("a/client.edn", """
        {:process 0, :type :invoke, :f :write, :value 1}
        {:process 0, :type :ok, :f :write, :value 1}
        """);
    assertThat(run("check", dir.resolve("a").toString(), "--model", "register"))
        .as("exit code; err: %s", err)
        .isEqualTo(CheckCommand.VALID);
    assertThat(out.toString())
        .containsPattern("nemesis\\.edn\tvalid\t")
        .contains("2 files: 2 valid (1 with 0 client operations checked: only the nemesis'),"
            + " 0 invalid");
  }

  @Test
  void whatIsNotAHistoryIsStillBadInput() throws IOException {
    // a results map beside a history, and events without a :process: no history at all
    Path results = write("results.edn", "{:valid? true, :configs []}\n");
    assertThat(run("check", results.toString(), "--model", "register"))
        .isEqualTo(CheckCommand.BAD_INPUT);
    assertThat(out.toString()).doesNotContain("valid");
    Path noProcess = write("np.edn", "{:type :info, :f :start, :value nil}\n");
    assertThat(run("check", noProcess.toString(), "--model", "register"))
        .isEqualTo(CheckCommand.BAD_INPUT);
    assertThat(out.toString()).doesNotContain("valid");
  }

  @Test
  void aNamedProcessThatInvokesTwiceIsTold() throws IOException {
    Path file =
        write(
            "twice.edn",
            """
            {:process "c1", :type :invoke, :f :write, :value 1}
            {:process "c1", :type :invoke, :f :write, :value 2}
            """);
    assertThat(run("check", file.toString(), "--model", "register"))
        .isEqualTo(CheckCommand.BAD_INPUT);
    assertThat(err.toString()).contains("process c1 invokes :write while its invocation");
  }

  @Test
  void namedKeyedProcessesAreCheckedPerKey() throws IOException {
    // an independent history with named processes: split per key, each key checked
    Path file =
        write(
            "ind.edn",
            """
            {:process :a, :type :invoke, :f :write, :value [1 3]}
            {:process :b, :type :invoke, :f :write, :value [2 4]}
            {:process :a, :type :ok, :f :write, :value [1 3]}
            {:process :b, :type :ok, :f :write, :value [2 4]}
            {:process :a, :type :invoke, :f :read, :value [1 nil]}
            {:process :a, :type :ok, :f :read, :value [1 4]}
            """);
    assertThat(run("check", file.toString(), "--model", "cas-register"))
        .as("err: %s", err)
        .isEqualTo(CheckCommand.INVALID);
    assertThat(out.toString()).contains("2 key(s)").contains("key: 1");
  }
}
