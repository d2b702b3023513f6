/**
 * Tests of the {@code range} strategy: the whole partitioner contract, its options and
 * boundaries, and the split and merge planner.
 */
package io.partkit.strategy.range;
