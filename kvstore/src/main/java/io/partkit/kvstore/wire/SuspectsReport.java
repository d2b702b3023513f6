package io.partkit.kvstore.wire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's answer to SUSPECTS: for each partition it leads, the addresses of the backups that
 * did not answer a REPLICATE or CONFIRM within the replica timeout (the primary's request that
 * the coordinator take them out of the replica set). Partitions with no suspect are left out.
 *
 * <p>Body: int32 count, then per partition int32 partition, int32 count and the addresses.
 *
 * @param byPartition suspected backups' addresses by partition
 */
public record SuspectsReport(Map<Integer, List<String>> byPartition) {

  /** A partition has at most this many backups to suspect: bounds what a corrupt answer asks. */
  private static final int MAX_SUSPECTS = 16;

  public SuspectsReport {
    byPartition = Map.copyOf(byPartition);
  }

  /** The node's answer. */
  public KvReply reply() {
    Wire.Writer w = new Wire.Writer().i32(byPartition.size());
    new TreeMap<>(byPartition).forEach((p, suspects) -> {
      w.i32(p).i32(suspects.size());
      suspects.forEach(w::utf);
    });
    return KvReply.ok(0, w.toBytes());
  }

  /**
   * Reads an OK answer to SUSPECTS.
   *
   * @throws IOException if its body is cut short or names more backups than a partition has
   */
  public static SuspectsReport of(KvReply ok) throws IOException {
    Wire.Reader r = new Wire.Reader(ok.value());
    int n = r.i32();
    Map<Integer, List<String>> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      int p = r.i32();
      int count = r.i32();
      if (count < 0 || count > MAX_SUSPECTS) {
        throw new IOException("a SUSPECTS answer names 0 to " + MAX_SUSPECTS
            + " backups of a partition, not " + count);
      }
      List<String> suspects = new ArrayList<>(count);
      for (int j = 0; j < count; j++) {
        suspects.add(r.utf());
      }
      out.put(p, suspects);
    }
    return new SuspectsReport(out);
  }
}
