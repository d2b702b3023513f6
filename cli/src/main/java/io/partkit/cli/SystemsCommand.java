package io.partkit.cli;

import io.partkit.harness.system.SystemOptions;
import io.partkit.harness.system.SystemProvider;
import io.partkit.harness.system.Systems;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Lists the systems {@code partkit verify --system} finds on the class path (every
 * {@link SystemProvider} in a jar's {@code META-INF/services}), each with its node counts, the
 * capabilities the nemeses need and its options; and any provider that failed to load.
 */
@Command(name = "systems", mixinStandardHelpOptions = true,
    description = "Lists the systems partkit verify can run (found on the class path), with "
        + "their node counts, capabilities and options.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {" 0:every provider loaded", " 1:a provider failed to load (listed on stderr)",
        "64:usage error (unknown option; a --system-jar or PARTKIT_CLASSPATH entry that is "
            + "missing, lists no system or lists one another jar lists)"})
final class SystemsCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  SystemJarOptions jars;

  @Override
  public Integer call() {
    return jars.run(() -> {
      Systems systems = Systems.load();
      return ServiceListing.print(spec, describe(systems), systems.loadFailures());
    });
  }

  /** Lines describing every system found: for this command and for {@code verify --help}. */
  static List<String> describe(Systems systems) {
    List<String> lines = new ArrayList<>();
    for (String name : systems.names()) {
      SystemProvider p = systems.provider(name);
      lines.add(String.format("%-10s %s", name, p.description()));
      lines.add(String.format("%-10s nodes %d by default (at least %d); capabilities: %s", "",
          p.defaultNodes(), p.minNodes(), String.join(", ", p.capabilities())));
      for (SystemOptions.Spec o : p.options().specs()) {
        lines.add(String.format("%-10s   --option %s=%s  %s", "", o.name(),
            o.defaultValue() == null ? "" : o.defaultValue(),
            o.defaultValue() == null ? o.accepts() + "; not set by default" : o.accepts()));
      }
    }
    return lines;
  }
}
