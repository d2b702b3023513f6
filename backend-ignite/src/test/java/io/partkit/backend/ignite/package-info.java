/**
 * Tests of the Ignite backend: {@link io.partkit.backend.ignite.IgnitePlacement} against Ignite's
 * own {@code RendezvousAffinityFunction} on generated keys and topologies, and
 * {@link io.partkit.backend.ignite.PartkitAffinityFunction} called as Ignite calls it and on
 * real in-JVM Ignite nodes ({@code TestCluster}) with the real {@code fixed} and
 * {@code rendezvous} strategies.
 */
package io.partkit.backend.ignite;
