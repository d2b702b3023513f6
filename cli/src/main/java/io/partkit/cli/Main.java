package io.partkit.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/** Entry point of the {@code ./partkit} launcher. */
public final class Main {

  /**
   * Exit code of a usage error (unknown option, bad option value, missing argument) in every
   * command: sysexits' EX_USAGE. Not picocli's default 2, which {@code check} and {@code verify}
   * use for "unknown": a typo must never read as a verdict.
   */
  static final int USAGE = 64;

  /**
   * Exit code of an unexpected failure inside a command (a bug): sysexits' EX_SOFTWARE. Not
   * picocli's default 1, which {@code check} and {@code verify} use for "invalid".
   */
  static final int SOFTWARE = 70;

  private Main() {}

  public static void main(String[] args) {
    Timeline.mark("main");
    System.exit(run(args));
  }

  /** Runs the command and returns its exit code (tests call this instead of main). */
  public static int run(String... args) {
    return commandLine(new PartkitCommand()).execute(args);
  }

  /**
   * A command line for {@code command} (the top-level command or one subcommand, as tests use)
   * with partkit's exit codes: {@link #USAGE} for usage errors, {@link #SOFTWARE} for a failure
   * no command handled. Commands report a bad option value found after parsing by throwing
   * {@link ParameterException}, which ends up here too.
   */
  static CommandLine commandLine(Object command) {
    CommandLine cmd = new CommandLine(command);
    cmd.setParameterExceptionHandler(USAGE_ERROR);
    cmd.setExecutionExceptionHandler(FAILURE);
    return cmd;
  }

  /** One plain line naming the command and the problem, then where help is; no usage dump. */
  private static final IParameterExceptionHandler USAGE_ERROR = (ex, args) -> {
    CommandLine cmd = ex.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println(qualifiedName(cmd) + ": " + ex.getMessage());
    CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
    err.println("Try '" + qualifiedName(cmd) + " --help' for the options.");
    err.flush();
    return USAGE;
  };

  private static final IExecutionExceptionHandler FAILURE =
      (Exception ex, CommandLine cmd, ParseResult parsed) -> {
        PrintWriter err = cmd.getErr();
        err.println(qualifiedName(cmd) + ": internal error (a bug, please report it): " + ex);
        ex.printStackTrace(err);
        err.flush();
        return SOFTWARE;
      };

  /** "partkit check" for the check subcommand, also when a test runs the subcommand alone. */
  private static String qualifiedName(CommandLine cmd) {
    String name = cmd.getCommandSpec().qualifiedName();
    return name.startsWith("partkit") ? name : "partkit " + name;
  }
}
