package io.partkit.harness.runtime;

import java.util.List;

/**
 * A runtime {@code partkit verify --runtime NAME} can run nodes on, found through {@link
 * java.util.ServiceLoader}: list the implementing class (public, with a public no-argument
 * constructor) in {@code META-INF/services/io.partkit.harness.runtime.RuntimeProvider} of its jar
 * and put the jar on the class path. {@link Runtimes} loads them; the harness's own four
 * ({@code processes}, {@code netns}, {@code containers}, {@code ssh}) are found the same way.
 */
public interface RuntimeProvider {

  /** The name on the command line ({@code --runtime NAME}): lower case, unique. */
  String name();

  /** One line for {@code partkit runtimes} and {@code verify --help}. */
  String description();

  /**
   * The options it takes ({@code --runtime-option NAME=VALUE}, or typed by a caller), checked
   * before anything starts; {@link #create} gets them back checked and with defaults.
   */
  default RuntimeOptions options() {
    return RuntimeOptions.of(name());
  }

  /**
   * The class of the runtimes {@link #create} makes. The {@link RuntimeCapability} interfaces it
   * implements are what listings show; a run checks the runtime itself.
   */
  Class<? extends NodeRuntime> type();

  /**
   * A new runtime, not yet opened.
   *
   * @throws SetupException if it cannot run on this machine (no root, no Docker engine), saying
   *     what to do
   */
  NodeRuntime create(RuntimeContext context);

  /** The names of the capabilities its runtimes offer ({@code partitions}), for listings. */
  default List<String> capabilities() {
    return RuntimeCapability.names(type());
  }
}
