package io.partkit.cli;

import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.Partitioners;
import io.partkit.spi.StrategyOption;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Lists the strategies discovery finds on the classpath, each with the options it reads and
 * their defaults, and any provider that failed to load: the quickest answer to "which names and
 * options can I pass to {@code Partitioners.create}?".
 */
@Command(name = "strategies", mixinStandardHelpOptions = true,
    description = "Lists the partitioning strategies found on the classpath, by name, with the "
        + "options each reads and their defaults.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {" 0:every provider loaded", " 1:a provider failed to load (listed on stderr)",
        "64:usage error (unknown option)"})
final class StrategiesCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    Partitioners loaded = Partitioners.load();
    PrintWriter out = spec.commandLine().getOut();
    for (String name : loaded.names()) {
      PartitionerProvider provider = loaded.provider(name).orElseThrow();
      out.printf("%-12s %s%n", name, provider.description());
      for (StrategyOption o : provider.options()) {
        out.printf("    %-12s default %-10s %s%n", o.name(), o.defaultValue(), o.meaning());
      }
    }
    out.flush();
    PrintWriter err = spec.commandLine().getErr();
    loaded.loadFailures().forEach(f -> err.println("failed to load: " + f));
    err.flush();
    return loaded.loadFailures().isEmpty() ? 0 : 1;
  }
}
