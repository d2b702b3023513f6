package io.partkit.cli;

import io.partkit.harness.runtime.RuntimeOption;
import io.partkit.harness.runtime.RuntimeProvider;
import io.partkit.harness.runtime.Runtimes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Lists the runtimes {@code partkit verify --runtime} finds on the class path (every {@link
 * RuntimeProvider} in a jar's {@code META-INF/services}, the harness's own four among them), each
 * with its capabilities and options; and any provider that failed to load.
 */
@Command(name = "runtimes", mixinStandardHelpOptions = true,
    description = "Lists the runtimes partkit verify can run nodes on (found on the class path), "
        + "with their capabilities and options.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {" 0:every provider loaded", " 1:a provider failed to load (listed on stderr)",
        "64:usage error (unknown option)"})
final class RuntimesCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    Runtimes runtimes = Runtimes.load();
    return ServiceListing.print(spec, describe(runtimes), runtimes.loadFailures());
  }

  /** Lines describing every runtime found: for this command and for {@code verify --help}. */
  static List<String> describe(Runtimes runtimes) {
    List<String> lines = new ArrayList<>();
    for (String name : runtimes.names()) {
      RuntimeProvider p = runtimes.provider(name);
      List<String> capabilities = p.capabilities();
      lines.add(String.format("%-10s %s", name, p.description()));
      lines.add(String.format("%-10s capabilities: %s", "",
          capabilities.isEmpty() ? "none" : String.join(", ", capabilities)));
      for (RuntimeOption<?> o : p.options().options()) {
        String flag = RuntimeFlags.flagFor(name, o.name()).map(f -> " (" + f + ")").orElse("");
        lines.add(String.format("%-10s   --runtime-option %s=%s  %s%s%s", "", o.name(),
            o.defaultValue() == null ? "" : RuntimeOption.format(o.defaultValue()), o.accepts(),
            o.isRequired() ? "; required" : o.defaultValue() == null ? "; not set by default" : "",
            flag));
      }
    }
    return lines;
  }
}
