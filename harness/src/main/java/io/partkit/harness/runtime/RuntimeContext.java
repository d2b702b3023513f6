package io.partkit.harness.runtime;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What a {@link RuntimeProvider} gets to make a runtime.
 *
 * @param dir the run's directory, where a runtime keeps its files (hosts files, container
 *     mounts); the nodes' commands name paths under it
 * @param options the runtime's options, checked by its {@link RuntimeProvider#options()}, with
 *     defaults applied
 */
public record RuntimeContext(Path dir, RuntimeValues options) {

  public RuntimeContext {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(options, "options");
  }
}
