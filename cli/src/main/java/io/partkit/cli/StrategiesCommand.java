package io.partkit.cli;

import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.Partitioners;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Lists the strategies discovery finds on the classpath, and any provider that failed to load:
 * the quickest answer to "which names can I pass to {@code Partitioners.create}?".
 */
@Command(name = "strategies", mixinStandardHelpOptions = true,
    description = "Lists the partitioning strategies found on the classpath, by name.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every provider loaded", "1:a provider failed to load (listed on stderr)"})
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
    }
    out.flush();
    PrintWriter err = spec.commandLine().getErr();
    loaded.loadFailures().forEach(f -> err.println("failed to load: " + f));
    err.flush();
    return loaded.loadFailures().isEmpty() ? 0 : 1;
  }
}
