package io.partkit.replica.node.load;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One of a node's most requested keys, as its frequent-items sketch estimates it (see {@link
 * NodeLoad#hotKeys}). The true count lies in {@code [lowerBound, upperBound]}; {@code estimate}
 * is the sketch's best guess within that range.
 *
 * @param partition the partition the key was requested in
 * @param key the key's bytes (its first 256 bytes when {@code truncated})
 * @param truncated whether the key was longer and is counted together with every key sharing
 *     these first bytes
 * @param estimate estimated requests for it in the node's hot-key windows
 * @param lowerBound at least this many requests
 * @param upperBound at most this many requests
 */
public record HotKey(int partition, byte[] key, boolean truncated, long estimate,
    long lowerBound, long upperBound) {

  /** Canonical constructor. */
  public HotKey {
    requireNonNull(key, "key");
    key = key.clone();
  }

  @Override
  public byte[] key() {
    return key.clone();
  }

  /** Its share of {@code requests} (the node's requests in the same windows), by the estimate. */
  public double share(long requests) {
    return requests <= 0 ? 0 : (double) estimate / requests;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HotKey other && other.partition == partition
        && other.truncated == truncated && other.estimate == estimate
        && other.lowerBound == lowerBound && other.upperBound == upperBound
        && Arrays.equals(other.key, key);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + Long.hashCode(estimate) + partition;
  }

  @Override
  public String toString() {
    return "HotKey{partition " + partition + ", key 0x" + HexFormat.of().formatHex(key)
        + (truncated ? "..." : "") + ", ~" + estimate + " [" + lowerBound + ", " + upperBound
        + "]}";
  }
}
