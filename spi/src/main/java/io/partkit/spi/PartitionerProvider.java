package io.partkit.spi;

import java.util.List;

/**
 * A strategy's entry point for discovery through {@link java.util.ServiceLoader}.
 *
 * <p>Implementations are listed in {@code META-INF/services/io.partkit.spi.PartitionerProvider},
 * have a public no-argument constructor, do no work in it, and are found by {@link #name()} through
 * {@link Partitioners}. A strategy in a named module also declares
 * {@code provides io.partkit.spi.PartitionerProvider with ...} in its {@code module-info}: on the
 * module path that is the only listing read, and on the class path the services file is.
 */
public interface PartitionerProvider {

  /** The name users pick the strategy by: lower case, stable, unique among providers. */
  String name();

  /** One line on what the strategy is and when to choose it. */
  String description();

  /**
   * The options {@link #create} reads, with their defaults, in the order worth reading them. The
   * default is an empty list, so providers written before this method existed still load; the
   * three partkit strategies describe every option they accept.
   */
  default List<StrategyOption> options() {
    return List.of();
  }

  /**
   * Creates a partitioner.
   *
   * @param config options by name; unknown names are errors, absent ones take defaults
   * @throws InvalidConfigurationException listing every problem found, not just the first
   */
  Partitioner create(PartitionerConfig config);
}
