package io.partkit.cli.ownruntime;

import io.partkit.harness.runtime.NodeRuntime;
import io.partkit.harness.runtime.RuntimeContext;
import io.partkit.harness.runtime.RuntimeOption;
import io.partkit.harness.runtime.RuntimeOptions;
import io.partkit.harness.runtime.RuntimeProvider;
import io.partkit.harness.runtime.Runtimes;
import java.nio.file.Path;

/**
 * {@code recording}: the processes runtime, writing a line to a file of the run's choice for
 * every node it starts, so that a test sees its nodes went through this runtime.
 */
public final class RecordingProvider implements RuntimeProvider {

  /** Where a line per node start goes. */
  public static final RuntimeOption<Path> STARTS = RuntimeOption.path("starts", null,
      "a file that gets a line per node start").required();

  @Override
  public String name() {
    return "recording";
  }

  @Override
  public String description() {
    return "processes on loopback, each start written to a file (a test's runtime)";
  }

  @Override
  public RuntimeOptions options() {
    return RuntimeOptions.of(name(), STARTS);
  }

  @Override
  public Class<? extends NodeRuntime> type() {
    return RecordingRuntime.class;
  }

  @Override
  public NodeRuntime create(RuntimeContext context) {
    return new RecordingRuntime(Runtimes.processes(), context.options().get(STARTS));
  }
}
