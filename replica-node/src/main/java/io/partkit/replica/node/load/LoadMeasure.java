package io.partkit.replica.node.load;

/**
 * Which figure of a {@link PartitionLoad} becomes a partition's load in {@link
 * io.partkit.spi.PartitionLoads} (see {@link ClusterLoad}): one unit for all partitions, as a
 * planner only adds and compares loads.
 */
public enum LoadMeasure {
  /** Requests served per second (gets, puts and compare-and-sets alike). */
  OPS_PER_SECOND,
  /** Key and value bytes in and out per second. */
  BYTES_PER_SECOND,
  /** Keys held: what a partition costs to move, not to serve. */
  KEYS
}
