package io.partkit.bench;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.Optional;

/**
 * A partkit strategy, found by name through {@link Partitioners} and created with a
 * configuration: the harness knows nothing else about it, so a new strategy is measured by
 * adding a (name, configuration) pair.
 */
final class PartkitSubject implements Subject {

  private final String name;
  private final String strategy;
  private final PartitionerConfig config;
  /** One instance for every replica count: the SPI takes replicas per call. */
  private final Partitioner partitioner;

  /**
   * @throws io.partkit.spi.UnknownStrategyException if no provider has that name
   * @throws io.partkit.spi.InvalidConfigurationException if the strategy rejects the options
   */
  PartkitSubject(
      String name, String strategy, PartitionerConfig config, Partitioners partitioners) {
    this.name = requireNonNull(name, "name");
    this.strategy = requireNonNull(strategy, "strategy");
    this.config = requireNonNull(config, "config");
    // fails now, with the provider's message, when the strategy or an option is bad
    this.partitioner = partitioners.create(strategy, config);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return "partkit strategy '" + strategy + "' " + config.asMap();
  }

  @Override
  public Placement place(MembershipView view, int replicas, Optional<Placement> previous) {
    Optional<PartitionAssignment> before = previous.flatMap(Placement::exact);
    // the bench reads placements only, so the table stays unstamped (epoch 0)
    return new AssignmentPlacement(view, partitioner.place(view, before, replicas));
  }
}
