package io.partkit.replica.node;

import io.partkit.spi.PartitionScheme;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import java.util.Objects;
import java.util.Optional;

/**
 * A partkit strategy whose placement is adjusted around the wrapped one's (a table re-cut by
 * measured sizes before it is placed): its name, configuration, replication factor and fixed
 * scheme are the wrapped strategy's, so a coordinator records and compares it as that strategy.
 */
abstract class WrappedStrategy implements Partitioner {

  /** The strategy that places. */
  protected final Partitioner strategy;

  protected WrappedStrategy(Partitioner strategy) {
    this.strategy = Objects.requireNonNull(strategy, "strategy");
  }

  @Override
  public final String name() {
    return strategy.name();
  }

  @Override
  public final PartitionerConfig config() {
    return strategy.config();
  }

  @Override
  public final int replicationFactor() {
    return strategy.replicationFactor();
  }

  @Override
  public final Optional<PartitionScheme> fixedScheme() {
    return strategy.fixedScheme();
  }
}
