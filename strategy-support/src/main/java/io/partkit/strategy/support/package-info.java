/**
 * What the partkit strategies share and users do not: the {@link io.partkit.spi.Partitioner}
 * skeleton ({@link io.partkit.strategy.support.AbstractPartitioner}) and the common options
 * ({@link io.partkit.strategy.support.CommonOptions}).
 *
 * <p>Not API: {@code module-info} exports this package only to the strategy modules, so it
 * can change in any release. A strategy outside partkit implements
 * {@link io.partkit.spi.Partitioner} directly.
 */
package io.partkit.strategy.support;
