/**
 * The {@code fixed} strategy, found by name through {@link io.partkit.spi.Partitioners}.
 *
 * <p>Applications reach the strategy only as a service. The package is exported to the
 * {@code range} strategy alone, which places its ranges with this strategy's table and so
 * depends on it by type rather than by name; the only public type there is the provider, so
 * nothing else comes into reach. {@code provides} is what a named module is found by;
 * {@code META-INF/services} (which a named module ignores) keeps it found on the class path. The
 * provider class is public with a public no-argument constructor because class-path loading
 * needs both; everything else in the package is package-private.
 */
module io.partkit.strategy.fixed {
  requires io.partkit.spi;
  requires io.partkit.strategy.support;

  exports io.partkit.strategy.fixed to io.partkit.strategy.range;

  provides io.partkit.spi.PartitionerProvider
      with io.partkit.strategy.fixed.FixedPartitionerProvider;
}
