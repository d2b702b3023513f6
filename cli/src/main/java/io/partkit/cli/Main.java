package io.partkit.cli;

import picocli.CommandLine;

/** Entry point of the {@code ./partkit} launcher. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command and returns its exit code (tests call this instead of main). */
  public static int run(String... args) {
    return new CommandLine(new PartkitCommand()).execute(args);
  }
}
