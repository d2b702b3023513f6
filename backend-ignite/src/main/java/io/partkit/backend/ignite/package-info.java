/**
 * partkit on Apache Ignite 2.x.
 *
 * <ul>
 *   <li>{@link io.partkit.backend.ignite.PartkitAffinityFunction}: an Ignite
 *       {@code AffinityFunction} that runs any partkit strategy with a fixed partition count, so
 *       a real Ignite cache places its partitions where partkit says.
 *   <li>{@link io.partkit.backend.ignite.IgnitePlacement}: Ignite's own
 *       {@code RendezvousAffinityFunction}, reproduced exactly, to predict where Ignite keeps
 *       a key and to measure Ignite's native placement with partkit's statistics.
 * </ul>
 */
package io.partkit.backend.ignite;
