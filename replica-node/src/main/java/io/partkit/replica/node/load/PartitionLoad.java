package io.partkit.replica.node.load;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * What one node measured of one partition it serves (see {@link NodeLoad}). The counts start
 * when the node first served the partition since it started or took the partition over: a
 * restart, or a move away and back, starts them again, and {@code measuredNanos} says how long
 * they have run. Only requests the node served count; redirected, refused and failed ones do
 * not (what counts as served is the node's: see {@link LoadMeters}).
 *
 * @param partition the partition
 * @param state where it stands on the node, in the node's own words: a replica node's {@code
 *     PRIMARY}; {@link #ABSENT} in a {@link ClusterLoad} for a partition its primary did not
 *     report
 * @param epoch the epoch the node holds it under
 * @param keys keys held now
 * @param measuredNanos how long the counts below have been counting, in nanoseconds (0: the node
 *     has not served the partition since it started or took it over)
 * @param gets reads served (a replica node counts each scan page as one)
 * @param puts writes served
 * @param compareAndSets compare-and-sets served, failed ones included
 * @param bytesIn key and value bytes the served requests carried in
 * @param bytesOut value bytes the answers carried out
 * @param latencyTotalNanos the summed time the node took to serve them, from reading the
 *     request to the answer (log force and replication included)
 * @param latencyMaxNanos the longest of them within the last few minutes (Micrometer's decaying
 *     maximum)
 * @param splitKey the median key of the partition's data on the node (the key at index
 *     {@code keys / 2} in unsigned byte order), where a size-driven split would cut it in two
 *     halves of equal key counts ({@code io.partkit.strategy.range.RangeSplits} takes it); null
 *     when the partition holds no key, or the node did not report one (an older node; a
 *     replica node's partition of hash slots or a token ring, whose key order says nothing of
 *     where its range is cut)
 */
public record PartitionLoad(int partition, String state, long epoch, long keys,
    long measuredNanos, long gets, long puts, long compareAndSets, long bytesIn, long bytesOut,
    long latencyTotalNanos, long latencyMaxNanos, byte[] splitKey) {

  /** The state of a partition its primary did not report (not served since it took it). */
  public static final String ABSENT = "ABSENT";

  /** Canonical constructor. */
  public PartitionLoad {
    requireNonNull(state, "state");
    splitKey = splitKey == null ? null : splitKey.clone();
  }

  /** The figures without a split key (none known). */
  public PartitionLoad(int partition, String state, long epoch, long keys,
      long measuredNanos, long gets, long puts, long compareAndSets, long bytesIn,
      long bytesOut, long latencyTotalNanos, long latencyMaxNanos) {
    this(partition, state, epoch, keys, measuredNanos, gets, puts, compareAndSets, bytesIn,
        bytesOut, latencyTotalNanos, latencyMaxNanos, null);
  }

  /** A copy, so that the caller cannot change the view. */
  @Override
  public byte[] splitKey() {
    return splitKey == null ? null : splitKey.clone();
  }

  /** These figures with {@code key} as the split key. */
  public PartitionLoad withSplitKey(byte[] key) {
    return new PartitionLoad(partition, state, epoch, keys, measuredNanos, gets, puts,
        compareAndSets, bytesIn, bytesOut, latencyTotalNanos, latencyMaxNanos, key);
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

  // equals, hashCode and toString by the split key's bytes: a record compares arrays by identity

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionLoad p && p.partition == partition && p.state.equals(state)
        && p.epoch == epoch && p.keys == keys && p.measuredNanos == measuredNanos
        && p.gets == gets && p.puts == puts && p.compareAndSets == compareAndSets
        && p.bytesIn == bytesIn && p.bytesOut == bytesOut
        && p.latencyTotalNanos == latencyTotalNanos && p.latencyMaxNanos == latencyMaxNanos
        && Arrays.equals(p.splitKey, splitKey);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Integer.hashCode(partition) + Long.hashCode(epoch) + Long.hashCode(keys)
        + Long.hashCode(ops())) + Arrays.hashCode(splitKey);
  }

  @Override
  public String toString() {
    return "PartitionLoad{partition " + partition + ", " + state + ", epoch " + epoch + ", keys "
        + keys + ", ops " + ops() + " (" + gets + " gets, " + puts + " puts, " + compareAndSets
        + " cas) over " + measuredNanos + " ns, bytes in " + bytesIn + ", out " + bytesOut
        + ", latency total " + latencyTotalNanos + " ns, max " + latencyMaxNanos
        + " ns, split key " + (splitKey == null ? "none" : "0x"
            + HexFormat.of().formatHex(splitKey)) + "}";
  }
}
