package io.partkit.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top-level command; subcommands are listed here, one class each. */
@Command(name = "partkit", mixinStandardHelpOptions = true, version = "partkit 0.1.0-SNAPSHOT",
    description = "Partitioning toolkit: strategies, cluster adapters and a linearizability verifier.",
    subcommands = {BenchCommand.class, CheckCommand.class, StrategiesCommand.class,
        VerifyCommand.class})
public final class PartkitCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.err);
  }
}
