/**
 * The skeleton partkit's own strategies share (see the package). It is a module of its own so
 * that {@code io.partkit.spi} knows none of its implementations: the strategies depend on the
 * SPI and on this module, and nothing here is visible to the SPI.
 *
 * <p>The export is qualified because this is not API: it may change in any release, and a
 * strategy outside partkit implements {@link io.partkit.spi.Partitioner} directly. A module that
 * exists only for its users may name them; the SPI, which every strategy and backend reads, may
 * not.
 */
module io.partkit.strategy.support {
  requires transitive io.partkit.spi;

  exports io.partkit.strategy.support to
      io.partkit.strategy.fixed, io.partkit.strategy.tokenring, io.partkit.strategy.rendezvous,
      io.partkit.strategy.range;
}
