package io.partkit.backend.ignite;

import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;

/**
 * Registers {@link IgnitePlacement} as strategy {@value IgnitePlacement#NAME}: Ignite's native
 * placement, for comparing it with partkit's strategies by name.
 */
public final class IgniteRendezvousPartitionerProvider implements PartitionerProvider {

  @Override
  public String name() {
    return IgnitePlacement.NAME;
  }

  @Override
  public String description() {
    return "Ignite 2.x RendezvousAffinityFunction, reproduced exactly (for comparison; "
        + "Ignite's own key hash is Java's hashCode)";
  }

  @Override
  public Partitioner create(PartitionerConfig config) {
    return IgnitePlacement.create(config);
  }
}
