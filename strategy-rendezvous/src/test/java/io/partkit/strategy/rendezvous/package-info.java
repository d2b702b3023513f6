/**
 * Tests of the {@code rendezvous} strategy and of {@link
 * io.partkit.strategy.rendezvous.RendezvousHashing}: configuration, the contract kit, minimal
 * movement of plain rendezvous, balance and movement under bounded loads, zone spreading,
 * allocation-free lookups, golden values pinning the score formula, and the figures quoted in
 * docs/strategy-rendezvous.md.
 */
package io.partkit.strategy.rendezvous;
