/**
 * The control's {@link io.partkit.replica.Placement} from a partkit strategy ({@link
 * io.partkit.spi.Partitioner}): the bridge between the core's integer node and partition numbers
 * and the strategies' {@link io.partkit.spi.NodeId}s and hash slots. The core imports nothing of
 * this package; drivers find the strategy by name and hand the control the placement made here.
 */
package io.partkit.replica.strategy;
