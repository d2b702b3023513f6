package io.partkit.cli;

import io.partkit.verification.checker.Analysis;
import io.partkit.verification.checker.CheckOptions;
import io.partkit.verification.checker.Linearizability;
import io.partkit.verification.checker.Verdict;
import io.partkit.verification.history.Histories;
import io.partkit.verification.history.History;
import io.partkit.verification.history.HistoryParseException;
import io.partkit.verification.history.Independent;
import io.partkit.verification.history.InvalidHistoryException;
import io.partkit.verification.history.Op;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Models;
import io.partkit.verification.model.NilReads;
import io.partkit.verification.report.AnalysisText;
import io.partkit.verification.report.HtmlReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code partkit check}: checks histories for linearizability. */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Checks histories (EDN, JSON lines or Jepsen logs) for linearizability.",
        "With several files the exit code is the worst over all of them."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {" 0:valid", " 1:invalid (evidence printed)",
        " 2:unknown (time limit reached, out of memory)",
        " 3:bad input (a file that does not exist, cannot be read or parsed, or is not a "
            + "well-formed history)",
        "64:usage error (unknown option, bad option value, no PATH); nothing checked",
        "70:internal error"})
final class CheckCommand implements Callable<Integer> {
  static final int VALID = 0;
  static final int INVALID = 1;
  static final int UNKNOWN = 2;
  static final int BAD_INPUT = 3;

  @Spec
  CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "PATH",
      description = "History files or directories (searched recursively).")
  List<Path> paths;

  @Option(
      names = "--model",
      defaultValue = "auto",
      description =
          "register, cas-register, multi-register, mutex, set, fifo-queue, unordered-queue, kv, or"
              + " auto (guess from the functions used; default).")
  String model;

  @Option(
      names = "--init",
      paramLabel = "EDN-VALUE",
      description = "The model's initial state as EDN: 0, nil, {:x 0 :y 0}.")
  String init;

  @Option(
      names = "--strict-nil",
      description =
          "An :ok read of nil means the register held nil (register, cas-register, multi-register)."
              + " Default: as in Knossos, an :ok read of nil constrains nothing.")
  boolean strictNil;

  @Option(
      names = "--independent",
      defaultValue = "auto",
      paramLabel = "auto|yes|no",
      description =
          "Split Jepsen independent histories (client values [k v]) per key: auto (default: when"
              + " every client invocation's value is [k v], k not a collection, a cas's v a pair),"
              + " yes, or no.")
  String independent;

  @Option(names = "--time-limit", defaultValue = "0", paramLabel = "DURATION",
      description = "Per file, e.g. 30s, 500ms, 2m; 0 for none. Reaching it gives unknown.")
  String timeLimit;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description = "Write a self-contained HTML picture (single file only).")
  Path html;

  @Option(
      names = "--bench",
      description = "Time the Porcupine corpus (PATH = the directory with EXPECTED.tsv).")
  boolean bench;

  // 300: on 2 cores the JIT settles on this corpus after about 200 rounds (docs/checker.md)
  @Option(names = "--warmup", defaultValue = "300", description = "With --bench: warm-up rounds.")
  int warmup;

  @Option(names = "--rounds", defaultValue = "20", description = "With --bench: measured rounds.")
  int rounds;

  /**
   * How a file becomes a history: a seam, so tests can make reading fail the way a large file does.
   */
  interface HistorySource {
    /** The file's history, split by key as {@code mode} says (Independent.apply). */
    History read(Path file, Independent.Mode mode) throws HistoryParseException;
  }

  // split while reading: one Op per event (Histories.read(Path, Mode))
  HistorySource source = Histories::read;

  @Override
  public Integer call() throws Exception {
    try {
      return checkAll();
    } catch (OutOfMemoryError e) {
      // Whatever ran out (listing files, the report, a thread pool): a memory problem is never
      // a verdict, and exit status 1 would report a consistency bug that nobody found.
      return outOfMemory(spec.commandLine().getErr(), "partkit check", e);
    }
  }

  private Integer checkAll() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Timeline.mark("the command line parsed (picocli)");
    if (bench) {
      if (!Files.isDirectory(paths.get(0))) {
        err.println("partkit check: no such directory: " + paths.get(0));
        err.flush();
        return BAD_INPUT;
      }
      CorpusTiming.Result r = CorpusTiming.run(paths.get(0), warmup, rounds);
      CorpusTiming.print(r, out);
      out.flush();
      return VALID;
    }
    Duration limit;
    try {
      limit = Durations.parseLimit("--time-limit", timeLimit);
      independentMode = parseIndependent(independent);
      if (!model.equals("auto") && !Models.NAMES.contains(model)) {
        throw new IllegalArgumentException("unknown model " + model + "; known models: "
            + String.join(", ", Models.NAMES) + ", auto");
      }
      if (init != null) {
        ModelChoice.parseInit(init);
      }
      if (html != null && (paths.size() != 1 || Files.isDirectory(paths.get(0)))) {
        throw new IllegalArgumentException("--html needs exactly one history file");
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<Path> files = new ArrayList<>();
    int missing = 0;
    for (Path p : paths) {
      if (!Files.exists(p)) {
        // said plainly, before any reader turns it into "file:0: NoSuchFileException"
        err.println("partkit check: no such file: " + p);
        missing++;
      } else if (Files.isDirectory(p)) {
        // a link to a directory (store/latest) is followed; links inside are not (a store's
        // own latest links would list each run twice)
        Path root = p.toRealPath();
        try (Stream<Path> s = Files.walk(root)) {
          s.filter(Files::isRegularFile)
              .filter(CheckCommand::looksLikeHistory)
              .filter(f -> notInARunBesideItsHistory(root, f))
              .sorted()
              .forEach(f -> files.add(p.resolve(root.relativize(f))));
        }
      } else {
        files.add(p);
      }
    }
    if (files.isEmpty()) {
      if (missing < paths.size()) {
        err.println("partkit check: no history files under " + paths);
      }
      err.flush();
      return BAD_INPUT;
    }
    boolean single = files.size() == 1 && paths.size() == 1 && !Files.isDirectory(paths.get(0));
    CheckOptions options = CheckOptions.defaults().withTimeLimit(limit);
    if (single) {
      options = options.withProgress(progress(err, files.get(0), System.console() != null));
    }
    int worst = missing > 0 ? BAD_INPUT : VALID;
    int[] counts = new int[4];
    counts[BAD_INPUT] = missing;
    long totalStart = System.nanoTime();
    for (Path file : files) {
      int status = checkOne(file, options, single, out, err);
      counts[status]++;
      worst = Math.max(worst, status);
    }
    if (!single) {
      out.printf(
          "%d files: %d valid%s, %d invalid, %d unknown, %d bad input; %d ms%n",
          files.size() + missing,
          counts[VALID],
          withoutClients == 0 ? ""
              : " (" + withoutClients + " with 0 client operations checked: only the nemesis')",
          counts[INVALID],
          counts[UNKNOWN],
          counts[BAD_INPUT],
          (System.nanoTime() - totalStart) / 1_000_000);
    }
    out.flush();
    return worst;
  }

  private Independent.Mode independentMode = Independent.Mode.AUTO;

  /** Files found valid with no client operation in them: only the nemesis' events. */
  private int withoutClients;

  /** Seconds between progress lines when stderr is not a terminal. */
  static final int PLAIN_PROGRESS_SECONDS = 10;

  /**
   * The checker reports about once a second. On a terminal that redraws one line; otherwise
   * (a log, a pipe) a plain line at most every {@value #PLAIN_PROGRESS_SECONDS} seconds and one
   * when the last key is done.
   */
  private static CheckOptions.Progress progress(PrintWriter err, Path file, boolean terminal) {
    long[] lastPrinted = {Long.MIN_VALUE};
    return (done, total, steps, nanos) -> {
      String line = String.format(Locale.ROOT, "checking %s: %d/%d keys done, %,d steps, %.1f s",
          file, done, total, steps, nanos / 1e9);
      synchronized (lastPrinted) {
        if (terminal) {
          err.print("\r" + line + (done == total ? System.lineSeparator() : ""));
        } else if (done == total
            || nanos - lastPrinted[0] >= PLAIN_PROGRESS_SECONDS * 1_000_000_000L) {
          lastPrinted[0] = nanos;
          err.println(line);
        }
        err.flush();
      }
    };
  }

  private static Independent.Mode parseIndependent(String s) {
    switch (s) {
      case "auto": return Independent.Mode.AUTO;
      case "yes": return Independent.Mode.YES;
      case "no": return Independent.Mode.NO;
      default:
        throw new IllegalArgumentException("--independent must be auto, yes or no, got " + s);
    }
  }

  /** Out of memory reading or checking one file: unknown (2), with the cause and what to do. */
  private static int outOfMemory(PrintWriter err, String what, OutOfMemoryError e) {
    err.println(
        what
            + ": unknown: out of memory ("
            + e.getMessage()
            + ", max heap "
            + Runtime.getRuntime().maxMemory() / (1024 * 1024)
            + " MB); not a verdict: give the JVM more memory "
            + "(e.g. PARTKIT_JAVA_OPTS=-Xmx8g) or check a shorter history");
    err.flush();
    return UNKNOWN;
  }

  private int checkOne(
      Path file, CheckOptions options, boolean single, PrintWriter out, PrintWriter err) {
    long start = System.nanoTime();
    try {
      return checkOneFile(file, options, single, out, err, start);
    } catch (OutOfMemoryError e) {
      int status = outOfMemory(err, file.toString(), e);
      if (!single) {
        out.printf("%s\t%s\t%d%n", file, "unknown", (System.nanoTime() - start) / 1_000_000);
        out.flush();
      }
      return status;
    }
  }

  private int checkOneFile(
      Path file,
      CheckOptions options,
      boolean single,
      PrintWriter out,
      PrintWriter err,
      long start) {
    History history;
    Model<?> m;
    try {
      history = source.read(file, independentMode);
      Timeline.mark("read (and split by [k v]): " + history.ops().size() + " events");
      // the split keeps each operation's :index, so repeated ones are still found after it
      String duplicate = duplicateIndex(history);
      if (duplicate != null) {
        return bad(file, file + ": " + duplicate, single, start, out, err);
      }
      boolean noClient = history.ops().stream().noneMatch(Op::isClient);
      // Only the nemesis' events: valid, as Knossos answers, since no client did anything that
      // could be wrong; the text says that 0 client operations were checked. With --model auto
      // there is no function to guess a model from, and any model answers the same.
      m = ModelChoice.choose(noClient && model.equals("auto") ? "cas-register" : model, init,
          history, strictNil ? NilReads.STRICT : NilReads.KNOSSOS);
      Timeline.mark("duplicate indexes looked for, model chosen");
    } catch (HistoryParseException e) {
      return bad(file, e.getMessage(), single, start, out, err);
    } catch (IllegalArgumentException e) {
      return bad(file, file + ": " + e.getMessage(), single, start, out, err);
    }
    Analysis a;
    try {
      a = Linearizability.check(m, history, options);
      Timeline.mark(String.format(Locale.ROOT, "checked (verdict %.0f ms, evidence %.0f ms)",
          a.verdictNanos() / 1e6, a.evidenceNanos() / 1e6));
    } catch (InvalidHistoryException e) {
      return bad(
          file,
          String.join(System.lineSeparator(), prefixed(file, e.problems())),
          single,
          start,
          out,
          err);
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    if (single) {
      out.print(AnalysisText.render(m, history, a));
      out.flush();
      Timeline.mark("result printed");
      if (html != null) {
        try {
          Files.writeString(html, HtmlReport.render(m, history, a));
          out.println("picture: " + html);
        } catch (IOException e) {
          err.println("partkit check: cannot write " + html + ": " + e.getMessage());
          return BAD_INPUT;
        }
      }
    } else {
      out.printf("%s\t%s\t%d%n", file, a.verdict().name().toLowerCase(Locale.ROOT), ms);
      out.flush();
    }
    if (a.verdict() == Verdict.VALID && a.clientOperations() == 0) {
      withoutClients++;
    }
    return a.verdict() == Verdict.VALID
        ? VALID
        : a.verdict() == Verdict.INVALID ? INVALID : UNKNOWN;
  }

  private static List<String> prefixed(Path file, List<String> problems) {
    List<String> l = new ArrayList<>();
    for (String p : problems) {
      l.add(file + ": " + p);
    }
    return l;
  }

  private int bad(
      Path file, String message, boolean single, long start, PrintWriter out, PrintWriter err) {
    err.println(message);
    err.flush();
    if (!single) {
      out.printf("%s\t%s\t%d%n", file, "bad-input", (System.nanoTime() - start) / 1_000_000);
    }
    return BAD_INPUT;
  }

  /**
   * In a run directory (Jepsen's or partkit's store) only {@code history.edn} is the history:
   * {@code results.edn}, {@code test.edn} and {@code jepsen.log} beside it, and the node logs,
   * {@code wal.log} and {@code coordinator.json} below it, are not histories.
   */
  private static boolean notInARunBesideItsHistory(Path root, Path p) {
    if (p.getFileName().toString().equals(JEPSEN_HISTORY)) {
      return true;
    }
    for (Path dir = p.getParent(); dir != null && dir.startsWith(root); dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(JEPSEN_HISTORY))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The first {@code :index} that two operations share, as a message, or null: the checker
   * orders and names operations by index, so a repeated one would be checked silently wrong.
   */
  static String duplicateIndex(History history) {
    List<Op> ops = history.ops();
    long[] indexes = new long[ops.size()];
    boolean increasing = true;
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = ops.get(i).index();
      increasing &= i == 0 || indexes[i] > indexes[i - 1];
    }
    if (increasing) {
      return null; // the usual case, a file in index order: no boxing, no sort
    }
    java.util.Arrays.sort(indexes);
    for (int i = 1; i < indexes.length; i++) {
      if (indexes[i] == indexes[i - 1]) {
        long twice = indexes[i];
        List<Op> both = ops.stream().filter(op -> op.index() == twice).limit(2).toList();
        return ":index " + twice + " is used twice (" + at(both.get(0)) + " and "
            + at(both.get(1)) + "): every operation of a history needs its own index";
      }
    }
    return null;
  }


  private static String at(Op op) {
    return op.line() > 0 ? "line " + op.line() : "operation " + op;
  }

  private static final String JEPSEN_HISTORY = "history.edn";

  private static boolean looksLikeHistory(Path p) {
    String n = p.getFileName().toString();
    return n.endsWith(".edn")
        || n.endsWith(".log")
        || n.endsWith(".txt")
        || n.endsWith(".jsonl")
        || n.endsWith(".json");
  }
}
