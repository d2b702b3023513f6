package io.partkit.strategy.rendezvous;

import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.PartitionerProvider;
import io.partkit.spi.StrategyOption;
import io.partkit.strategy.support.CommonOptions;
import java.util.List;

/**
 * Provides the {@code rendezvous} strategy. Options:
 * <ul>
 *   <li>{@code partitions}: hash slots, 1..{@value CommonOptions#MAX_PARTITIONS}, default
 *       {@value RendezvousPartitioner#DEFAULT_PARTITIONS} (Ignite's default).
 *   <li>{@code replicas}: copies per partition, primary included, 1..7, default 1.
 *   <li>{@code seed}: any {@code long}, default 0; part of every score.
 *   <li>{@code zone-aware}: spread replicas over zones, then racks, while labels allow; default
 *       {@code true}.
 *   <li>{@code load-bound}: {@code c} in 1.0..100.0; absent means plain rendezvous. Caps each
 *       member at {@code max(ceil(avg), floor(c * avg))} partitions (weighted).
 * </ul>
 */
public final class RendezvousPartitionerProvider implements PartitionerProvider {

  /** For {@link java.util.ServiceLoader}; does no work. */
  public RendezvousPartitionerProvider() {}

  @Override
  public String name() {
    return RendezvousPartitioner.NAME;
  }

  @Override
  public String description() {
    return "weighted rendezvous (highest random weight) hashing with top-k replicas and optional "
        + "bounded loads; choose it when every node must compute placement without a stored table";
  }

  @Override
  public List<StrategyOption> options() {
    return List.of(
        new StrategyOption("partitions",
            Integer.toString(RendezvousPartitioner.DEFAULT_PARTITIONS),
            "hash slots, 1.." + CommonOptions.MAX_PARTITIONS + " (1024 is Ignite's default)"),
        CommonOptions.replicasOption("partition"),
        new StrategyOption("seed", "0", "any long; part of every score"),
        CommonOptions.zoneAwareOption(),
        new StrategyOption("load-bound", "none", "c in 1.0..100.0 caps each member at "
            + "max(ceil(avg), floor(c * avg)) partitions (weighted); none is plain rendezvous"));
  }

  /**
   * @throws io.partkit.spi.InvalidConfigurationException listing every bad or unknown option
   */
  @Override
  public Partitioner create(PartitionerConfig config) {
    return RendezvousPartitioner.create(config);
  }
}
