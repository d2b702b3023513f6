/**
 * The {@code range} strategy, found by name through {@link io.partkit.spi.Partitioners}, and
 * {@link io.partkit.strategy.range.RangeSplits}, the planner of its splits and merges.
 *
 * <p>Unlike the other strategy modules this one exports its package: a coordinator or a store
 * calls {@code RangeSplits} with the sizes and loads it measured. Everything else in the package
 * is package-private. {@code META-INF/services} keeps the provider found on the class path. It
 * places ranges on nodes with the {@code fixed} strategy's table, hence {@code requires
 * io.partkit.strategy.fixed} (whose provider is exported to this module alone).
 */
module io.partkit.strategy.range {
  requires io.partkit.spi;
  requires io.partkit.strategy.support;
  requires io.partkit.strategy.fixed;

  exports io.partkit.strategy.range;

  provides io.partkit.spi.PartitionerProvider
      with io.partkit.strategy.range.RangePartitionerProvider;
}
