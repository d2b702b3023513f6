/**
 * The {@code rendezvous} strategy, found by name through {@link io.partkit.spi.Partitioners}.
 *
 * <p>No package is exported: the strategy is reached only as a service, so its classes stay out
 * of reach on the module path. {@code provides} is what a named module is found by;
 * {@code META-INF/services} (which a named module ignores) keeps it found on the class path. The
 * provider class is public with a public no-argument constructor because class-path loading
 * needs both; everything else in the package is package-private.
 */
module io.partkit.strategy.rendezvous {
  requires io.partkit.spi;
  requires io.partkit.strategy.support;

  provides io.partkit.spi.PartitionerProvider
      with io.partkit.strategy.rendezvous.RendezvousPartitionerProvider;
}
