/**
 * Tests of the {@code fixed} strategy: configuration, the contract kit, seeded balance and
 * minimal-move properties, zone spreading, golden values pinning the persisted format, and the
 * figures quoted in docs/strategy-fixed.md.
 */
package io.partkit.strategy.fixed;
