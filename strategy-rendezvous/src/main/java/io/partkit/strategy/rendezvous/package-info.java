/**
 * The {@code rendezvous} strategy: weighted rendezvous (highest random weight) hashing with top-k
 * zone-aware replicas, over a fixed partition count (strategy {@code rendezvous}, optionally with
 * bounded loads) or directly per key ({@link io.partkit.strategy.rendezvous.RendezvousHashing}).
 *
 * <p>Public types: {@link io.partkit.strategy.rendezvous.RendezvousPartitionerProvider} (found by
 * name through {@link io.partkit.spi.Partitioners}) and
 * {@link io.partkit.strategy.rendezvous.RendezvousHashing} (per-key lookups that allocate
 * nothing). The score formula is a persisted format, documented on {@code RendezvousHashing}.
 */
package io.partkit.strategy.rendezvous;
