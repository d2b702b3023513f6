package io.partkit.strategy.support;

import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.StrategyOption;

/**
 * The options several strategies read, read and described the same way everywhere: names,
 * defaults, bounds and wording in one place. Each strategy still calls them in its own order,
 * which is the order its "known options" message lists.
 */
public final class CommonOptions {

  /** Most hash slots: beyond this a table no longer fits comfortably on every client. */
  public static final int MAX_PARTITIONS = 1 << 20;

  private CommonOptions() {}

  /** A reader for strategy {@code name}'s options, naming it in every problem. */
  public static PartitionerConfig.Reader reader(String name, PartitionerConfig config) {
    return config.reader("strategy '" + name + "'");
  }

  /** {@code partitions}: hash slots, {@code 1..MAX_PARTITIONS}. */
  public static int partitions(PartitionerConfig.Reader reader, int defaultValue) {
    return reader.intValue("partitions", defaultValue, 1, MAX_PARTITIONS);
  }

  /** {@code replicas}: copies per partition, primary included, {@code 1..MAX_REPLICAS}, 1. */
  public static int replicas(PartitionerConfig.Reader reader) {
    return reader.intValue("replicas", 1, 1, Partitioner.MAX_REPLICAS);
  }

  /** {@code seed}: any long, 0. */
  public static long seed(PartitionerConfig.Reader reader) {
    return reader.longValue("seed", 0, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /** {@code zone-aware}: spread replicas over zones, then racks; {@code true}. */
  public static boolean zoneAware(PartitionerConfig.Reader reader) {
    return reader.booleanValue("zone-aware", true);
  }

  /** How {@code replicas} is described; {@code unit} is what one copy is of. */
  public static StrategyOption replicasOption(String unit) {
    return new StrategyOption("replicas", "1",
        "copies per " + unit + ", primary included, 1.." + Partitioner.MAX_REPLICAS);
  }

  /** How {@code zone-aware} is described. */
  public static StrategyOption zoneAwareOption() {
    return new StrategyOption("zone-aware", "true",
        "spread replicas over distinct zones, then racks, while labels allow");
  }

  /**
   * Checks a replica count given per call, with the same message as the option.
   *
   * @throws IllegalArgumentException if {@code replicas} is not in {@code 1..MAX_REPLICAS}
   */
  static int checkReplicas(int replicas) {
    if (replicas < 1 || replicas > Partitioner.MAX_REPLICAS) {
      throw new IllegalArgumentException(
          "replicas must be in 1.." + Partitioner.MAX_REPLICAS + ": " + replicas);
    }
    return replicas;
  }
}
