package io.partkit.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How {@code partkit strategies} and {@code partkit systems} answer: what {@link
 * java.util.ServiceLoader} found, on standard output, then every provider that failed to load,
 * on standard error, which makes the exit status 1 (a jar on the class path is broken).
 */
final class ServiceListing {

  private ServiceListing() {}

  /** Prints {@code lines} and {@code loadFailures}; the exit status. */
  static int print(CommandSpec spec, List<String> lines, List<String> loadFailures) {
    PrintWriter out = spec.commandLine().getOut();
    lines.forEach(out::println);
    out.flush();
    PrintWriter err = spec.commandLine().getErr();
    loadFailures.forEach(f -> err.println("failed to load: " + f));
    err.flush();
    return loadFailures.isEmpty() ? 0 : 1;
  }
}
