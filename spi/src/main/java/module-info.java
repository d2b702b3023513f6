/**
 * The partitioning SPI: strategy and migration contracts, the values they exchange, key hashing,
 * and discovery of strategies by name ({@link io.partkit.spi.Partitioners}). Placement
 * statistics are the module {@code io.partkit.stats}; the coordinator's API is in
 * {@code io.partkit.coordinator}.
 *
 * <p>No {@code requires} beyond {@code java.base}: strategies and backends depend on this module,
 * never the other way, and it names none of them (the skeleton partkit's own strategies share is
 * the module {@code io.partkit.strategy.support}). {@code uses} is what allows
 * {@link io.partkit.spi.Partitioners}, in a named module, to call {@link java.util.ServiceLoader}
 * at all; it then finds the modules on the module path that provide
 * {@code io.partkit.spi.PartitionerProvider}, and still the providers that jars on the class path
 * list in {@code META-INF/services}.
 */
module io.partkit.spi {
  exports io.partkit.spi;
  exports io.partkit.spi.hash;

  uses io.partkit.spi.PartitionerProvider;
}
