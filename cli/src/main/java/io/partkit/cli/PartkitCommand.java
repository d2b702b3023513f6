package io.partkit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top-level command; subcommands are listed here, one class each. */
@Command(
    name = "partkit",
    mixinStandardHelpOptions = true,
    version = "partkit 0.1.0-SNAPSHOT",
    description =
        "Partitioning toolkit: strategies, cluster adapters and a linearizability verifier.",
    subcommands = {
      BenchCommand.class,
      CheckCommand.class,
      RuntimesCommand.class,
      SimulateCommand.class,
      StrategiesCommand.class,
      SystemsCommand.class,
      VerifyCommand.class
    },
    footer = {
      "",
      "Every command exits 64 on a usage error (unknown option, bad or missing "
          + "argument) and 70 on an internal error; see each command's --help for the rest."
    })
public final class PartkitCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  /** No command given: the usage, on stderr, and the usage-error exit code. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Main.USAGE;
  }
}
