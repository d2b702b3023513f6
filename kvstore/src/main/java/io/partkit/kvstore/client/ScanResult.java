package io.partkit.kvstore.client;

import static java.util.Objects.requireNonNull;

import io.partkit.kvstore.KvEntry;
import java.util.Arrays;
import java.util.List;

/**
 * The answer to {@link KvClient#scan}: entries in ascending unsigned byte order of their keys,
 * and what the scan cost.
 *
 * @param entries at most the scan's limit, ascending, each key once
 * @param more true when the range holds keys after the last entry (the limit stopped the scan):
 *     continue with {@code scan(nextFrom(), to, limit)}
 * @param partitionsTouched how many partitions were asked for a page (every partition of the
 *     table for a hash scheme; only those covering the range, in order, for an ordered one)
 * @param nodesTouched how many distinct nodes answered those requests
 * @param requests pages asked for and answered (retries not counted)
 * @param retries requests answered MOVING, REDIRECT or UNAVAILABLE, or not answered, and sent
 *     again (a migration or a failover during the scan)
 */
public record ScanResult(List<KvEntry> entries, boolean more, int partitionsTouched,
    int nodesTouched, int requests, int retries) {

  /** Canonical constructor; keeps an unmodifiable copy of {@code entries}. */
  public ScanResult {
    entries = List.copyOf(requireNonNull(entries, "entries"));
  }

  /**
   * Where the next page starts: the smallest key after the last entry (that key with a zero
   * byte appended), or null when nothing is left ({@link #more} is false).
   */
  public byte[] nextFrom() {
    return more ? RangeScan.successor(entries.get(entries.size() - 1).key()) : null;
  }

  @Override
  public String toString() {
    return "ScanResult{" + entries.size() + " entries, more=" + more + ", partitions="
        + partitionsTouched + ", nodes=" + nodesTouched + ", requests=" + requests
        + ", retries=" + retries + (entries.isEmpty() ? "" : ", last key="
        + Arrays.toString(entries.get(entries.size() - 1).key())) + "}";
  }
}
