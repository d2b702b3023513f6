package io.partkit.bench;

import static java.util.Objects.requireNonNull;

import io.partkit.spi.MembershipView;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import java.util.HashMap;
import java.util.Map;
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
  private final Partitioners partitioners;
  private final Map<Integer, Partitioner> byReplicas = new HashMap<>();

  /**
   * @throws io.partkit.spi.UnknownStrategyException if no provider has that name
   * @throws io.partkit.spi.InvalidConfigurationException if the strategy rejects the options
   */
  PartkitSubject(String name, String strategy, PartitionerConfig config, Partitioners partitioners) {
    this.name = requireNonNull(name, "name");
    this.strategy = requireNonNull(strategy, "strategy");
    this.config = requireNonNull(config, "config");
    this.partitioners = requireNonNull(partitioners, "partitioners");
    partitioner(1); // fail now, with the provider's message, when the strategy or an option is bad
  }

  private synchronized Partitioner partitioner(int replicas) {
    return byReplicas.computeIfAbsent(replicas,
        r -> partitioners.create(strategy, config.with("replicas", r)));
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
    return new AssignmentPlacement(view, partitioner(replicas).assign(view, before));
  }
}
