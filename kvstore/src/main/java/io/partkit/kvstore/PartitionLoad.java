package io.partkit.kvstore;

import static java.util.Objects.requireNonNull;

/**
 * What one node measured of one partition it serves (see {@link NodeLoad}). The counts start
 * when the node first served the partition since it started or took the partition over: a
 * restart, or a move away and back, starts them again, and {@code measuredNanos} says how long
 * they have run. Only requests the node served count (OK, or a compare-and-set that found
 * another value); redirected, refused and failed ones do not.
 *
 * @param partition the partition
 * @param state where it stands on the node ({@code OWNED}, or {@code MIGRATING_OUT} while fenced)
 * @param epoch the epoch the node holds it under (as in {@link PartitionStatus#epoch})
 * @param keys keys held now
 * @param measuredNanos how long the counts below have been counting, in nanoseconds (0: the node
 *     has not served the partition since it started or took it over)
 * @param gets reads served
 * @param puts writes served
 * @param compareAndSets compare-and-sets served, failed ones included
 * @param bytesIn key and value bytes the served requests carried in
 * @param bytesOut value bytes the answers carried out
 * @param latencyTotalNanos the summed time the node took to serve them, from reading the
 *     request to the answer (log force and replication included)
 * @param latencyMaxNanos the longest of them within the last few minutes (Micrometer's decaying
 *     maximum)
 */
public record PartitionLoad(int partition, PartitionState state, long epoch, long keys,
    long measuredNanos, long gets, long puts, long compareAndSets, long bytesIn, long bytesOut,
    long latencyTotalNanos, long latencyMaxNanos) {

  /** Canonical constructor. */
  public PartitionLoad {
    requireNonNull(state, "state");
  }

  /** Every request served: gets, puts and compare-and-sets. */
  public long ops() {
    return gets + puts + compareAndSets;
  }

  /** Requests served per second, averaged over {@code measuredNanos}; 0 before any. */
  public double opsPerSecond() {
    return measuredNanos <= 0 ? 0 : ops() * 1e9 / measuredNanos;
  }

  /** Bytes in and out per second, averaged over {@code measuredNanos}; 0 before any. */
  public double bytesPerSecond() {
    return measuredNanos <= 0 ? 0 : (bytesIn + bytesOut) * 1e9 / measuredNanos;
  }

  /** The mean time to serve a request, in nanoseconds; 0 before any. */
  public double meanLatencyNanos() {
    long ops = ops();
    return ops == 0 ? 0 : (double) latencyTotalNanos / ops;
  }
}
