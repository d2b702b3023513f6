package io.partkit.harness.system;

import java.util.List;

/**
 * A system {@code partkit verify --system NAME} can run, found through {@link
 * java.util.ServiceLoader}: list the implementing class in
 * {@code META-INF/services/io.partkit.harness.system.SystemProvider} of its jar and put the jar on
 * the class path. {@link Systems} loads them.
 */
public interface SystemProvider {

  /** The name on the command line ({@code --system NAME}): lower case, unique. */
  String name();

  /** One line for {@code partkit systems} and {@code --help}. */
  String description();

  /** Data nodes when {@code --nodes} is not given. */
  default int defaultNodes() {
    return 5;
  }

  /** The fewest data nodes it runs on; fewer is refused before anything starts. */
  default int minNodes() {
    return 1;
  }

  /** The options it takes ({@code --option KEY=VALUE}), checked before anything starts. */
  default SystemOptions options() {
    return SystemOptions.of(name());
  }

  /** A new, not yet started system. */
  SystemUnderTest create();

  /** The names of the {@link Capability capabilities} its systems offer, for listings. */
  default List<String> capabilities() {
    try (SystemUnderTest system = create()) {
      return Capability.names(system);
    }
  }
}
