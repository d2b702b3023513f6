/**
 * Tests of the Ignite backend: {@link io.partkit.backend.ignite.IgnitePlacement} against Ignite's
 * own {@code RendezvousAffinityFunction} on generated keys and topologies, and
 * {@link io.partkit.backend.ignite.PartkitAffinityFunction} on real in-JVM Ignite nodes.
 */
package io.partkit.backend.ignite;
