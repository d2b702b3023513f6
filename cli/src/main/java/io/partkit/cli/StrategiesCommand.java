package io.partkit.cli;

import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.Partitioners;
import io.partkit.spi.StrategyOption;
import java.util.ArrayList;
import java.util.List;
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
    List<String> lines = new ArrayList<>();
    for (String name : loaded.names()) {
      PartitionerProvider provider = loaded.provider(name).orElseThrow();
      lines.add(String.format("%-12s %s", name, provider.description()));
      for (StrategyOption o : provider.options()) {
        lines.add(String.format("    %-12s default %-10s %s", o.name(), o.defaultValue(),
            o.meaning()));
      }
    }
    return ServiceListing.print(spec, lines, loaded.loadFailures());
  }
}
