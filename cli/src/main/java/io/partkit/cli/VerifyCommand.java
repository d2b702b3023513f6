package io.partkit.cli;

import io.partkit.harness.RunResult;
import io.partkit.harness.VerifyRun;
import io.partkit.harness.VerifySpec;
import io.partkit.harness.runtime.Runtimes;
import io.partkit.harness.runtime.SetupException;
import io.partkit.harness.system.Systems;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code partkit verify}: a Jepsen-style run against a real cluster, checked and stored. */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Starts a real cluster, runs clients against it while faults are injected, "
        + "records the history and checks it (linearizability per key, lost acknowledged writes).",
        "Stores history.edn, results.edn, node logs and index.html under STORE/SYSTEM/TIME/ "
            + "(STORE/latest points at the last run).",
        },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {" 0:valid", " 1:invalid or lost acknowledged writes", " 2:unknown",
        " 4:the cluster could not be set up",
        "64:usage error (unknown option, bad value, a nemesis the runtime cannot run, a "
            + "--system-jar that is missing or lists no system, two systems of one name)",
        "70:internal error"})
final class VerifyCommand implements Callable<Integer> {
  static final int SETUP_FAILED = 4;

  CommandSpec spec;

  /**
   * picocli's spec, given when the command line is built: the help's footer gets the systems on
   * the class path, with their nodes, capabilities and options (a system in a jar of your own
   * shows up there as partkit's own do). Described only when the help is drawn: the command line
   * is built for every command, and describing loads and creates every system (etcd's makes an
   * HTTP client with TLS, Hazelcast's and Ignite's load their classes), which took about a second
   * of {@code partkit check}'s start.
   */
  @Spec
  void spec(CommandSpec spec) {
    this.spec = spec;
    spec.usageMessage().sectionMap().put(UsageMessageSpec.SECTION_KEY_FOOTER, help -> {
      List<String> footer = new ArrayList<>(List.of("", "Systems on the class path "
          + "(partkit systems lists them too):"));
      footer.addAll(SystemsCommand.describe(Systems.load()));
      footer.addAll(List.of("", "Runtimes on the class path (partkit runtimes lists them too):"));
      footer.addAll(RuntimesCommand.describe(Runtimes.load()));
      spec.usageMessage().footer(footer.toArray(String[]::new));
      return help.footer();
    });
  }

  @Mixin
  SystemJarOptions jars;

  @Option(names = "--system", required = true,
      description = "The system to test: one of those on the class path, listed below.")
  String system;

  @Option(names = "--nodes", description = "Data nodes (default: the system's own, below).")
  Integer nodes;

  @Option(names = "--nemesis", defaultValue = "", split = ",", paramLabel = "KIND",
      description = "Faults, comma-separated: kill, pause, membership, migration (a fault aimed "
          + "at a migration in flight), lose (a node and its disk lost for good) and split (a "
          + "partition split while clients run), each for a "
          + "system with the capability of that name (listed below; kv loses nodes with "
          + "--option replicas=2 or more), and partition (a runtime with the partitions "
          + "capability: netns, containers, ssh). "
          + "Default: none.")
  List<String> nemesis;

  @Option(names = "--time", defaultValue = "30s", paramLabel = "DURATION",
      description = "How long clients run with faults, e.g. 60s, 2m (default 30s).")
  String time;

  @Option(
      names = "--concurrency",
      defaultValue = "10",
      description = "Client workers (default 10).")
  int concurrency;

  @Option(names = "--rate", defaultValue = "200",
      description = "Operations per second over all workers; 0 for unlimited (default 200).")
  double rate;

  @Option(names = "--seed", defaultValue = "1",
      description = "Workload and fault schedule seed (default 1).")
  long seed;

  @Option(names = "--store", defaultValue = "store", paramLabel = "DIR",
      description = "Where runs are stored (default ./store).")
  Path store;

  @Mixin
  RuntimeFlags runtimeFlags;

  @Option(names = "--ops-per-key", defaultValue = "200",
      description = "Operations per key before workers move to a fresh key (default 200).")
  int opsPerKey;

  @Option(names = "--check-time-limit", defaultValue = "120s", paramLabel = "DURATION",
      description = "The checker's time limit; beyond it the verdict is unknown; 0 for none "
          + "(default 120s).")
  String checkTimeLimit;

  @Option(names = "--option", paramLabel = "KEY=VALUE",
      description = "A system option, checked before anything starts (an unknown key or a bad "
          + "value is refused listing the known ones). Each system's options are listed below; "
          + "see docs/harness.md for what they do.")
  Map<String, String> options = new LinkedHashMap<>();

  @Override
  public Integer call() {
    return jars.run(this::verify);
  }

  private int verify() {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter out = spec.commandLine().getOut();
    VerifySpec run;
    try {
      List<String> kinds = nemesis.stream().filter(s -> !s.isBlank()).map(String::trim).toList();
      VerifySpec.Builder b = VerifySpec.builder(system).nemeses(kinds)
          .time(Durations.parse("--time", time)).concurrency(concurrency).rate(rate)
          .seed(seed).store(store).runtime(runtimeFlags.spec()).opsPerKey(opsPerKey)
          .checkTimeLimit(Durations.parseLimit("--check-time-limit", checkTimeLimit))
          .options(options);
      if (nodes != null) {
        b.nodes(nodes);
      }
      run = b.build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    PrintStream progress = new PrintStream(new WriterOutputStream(err), true,
        StandardCharsets.UTF_8);
    try {
      RunResult r = VerifyRun.run(run, progress, System.console() != null);
      out.println(r.summary());
      out.flush();
      return r.exitCode();
    } catch (IllegalArgumentException e) {
      // the spec's own checks passed; these are the ones that need the system or runtime
      // (a nemesis the runtime cannot run): still the arguments' fault
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    } catch (SetupException e) {
      err.println();
      err.println("partkit verify: setup failed: " + e.getMessage());
      return SETUP_FAILED;
    } finally {
      err.flush();
    }
  }

  /** Progress lines go to picocli's error writer, so tests capture them like the rest. */
  private static final class WriterOutputStream extends java.io.OutputStream {
    private final PrintWriter writer;

    WriterOutputStream(PrintWriter writer) {
      this.writer = writer;
    }

    @Override
    public void write(int b) {
      writer.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      writer.write(new String(Arrays.copyOfRange(b, off, off + len), StandardCharsets.UTF_8));
    }

    @Override
    public void flush() {
      writer.flush();
    }
  }

}
