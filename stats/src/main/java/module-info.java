/**
 * Placement statistics: balance and movement figures of any
 * {@link io.partkit.spi.PartitionAssignment}.
 *
 * <p>{@code requires transitive} because every public method takes or returns SPI values
 * (assignments, membership views, node ids): a module that reads this one needs those too.
 */
module io.partkit.stats {
  requires transitive io.partkit.spi;

  exports io.partkit.stats;
}
