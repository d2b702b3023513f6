/**
 * What the partkit strategies share and users do not: the {@link io.partkit.spi.Partitioner}
 * skeleton ({@link io.partkit.spi.internal.AbstractPartitioner}) and the common options
 * ({@link io.partkit.spi.internal.CommonOptions}).
 *
 * <p>Not API: {@code module-info} exports this package only to the strategy modules, so it
 * can change in any release. A strategy outside partkit implements
 * {@link io.partkit.spi.Partitioner} directly.
 */
package io.partkit.spi.internal;
