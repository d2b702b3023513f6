/**
 * The partitioning SPI: strategy, coordinator and migration contracts, key hashing, placement
 * statistics, and discovery of strategies by name ({@link io.partkit.spi.Partitioners}).
 *
 * <p>No {@code requires} beyond {@code java.base}: strategies and backends depend on this module,
 * never the other way. {@code uses} lets {@link io.partkit.spi.Partitioners} find strategy
 * modules that {@code provides io.partkit.spi.PartitionerProvider} on the module path (and, as on
 * the class path, providers listed in {@code META-INF/services}).
 */
module io.partkit.spi {
  exports io.partkit.spi;
  exports io.partkit.spi.hash;
  exports io.partkit.spi.stats;

  uses io.partkit.spi.PartitionerProvider;
}
