package io.partkit.stats;

import io.partkit.spi.NodeId;

/**
 * What one node holds under an assignment.
 *
 * @param node the node
 * @param weight its weight (1 when the statistics were computed without a membership view)
 * @param primaryPartitions partitions it is primary for
 * @param replicaPartitions partitions it holds a replica of, primary included
 * @param primaryShare fraction of the key space it is primary for, in [0, 1]
 * @param replicaShare fraction of the key space it holds a replica of (summed over nodes this is
 *     the replication factor)
 */
public record NodeLoad(NodeId node, int weight, int primaryPartitions, int replicaPartitions,
    double primaryShare, double replicaShare) {}
