package io.partkit.kvstore.wire;

import java.io.IOException;

/**
 * A node's answer to RECEIVED: what it has received from other nodes, since it started, to
 * create copies of partitions it did not hold. Every path that creates a copy counts: a
 * migration's pull (its pre-copy, drains, delta and snapshot pages) and a new backup's catch-up.
 * A backup promoted to primary, or a split renumbering keys in place, receives nothing.
 *
 * <p>Body: int64 entries, int64 bytes, int64 partitions.
 *
 * @param entries key-value entries received in copy pages (a key sent twice, as a pre-copied
 *     key written again before the fence, counts twice)
 * @param bytes key and value bytes of those entries
 * @param partitions partition copies completed here (a moved partition once it is RECEIVED, a
 *     backup once it is caught up)
 */
public record ReceivedCopies(long entries, long bytes, long partitions) {

  public ReceivedCopies {
    if (entries < 0 || bytes < 0 || partitions < 0) {
      throw new IllegalArgumentException("received copies are counted from 0: " + entries
          + " entries, " + bytes + " bytes, " + partitions + " partitions");
    }
  }

  /** The node's answer. */
  public KvReply reply() {
    return KvReply.ok(0, new Wire.Writer().i64(entries).i64(bytes).i64(partitions).toBytes());
  }

  /**
   * Asks {@code node} for its counts.
   *
   * @throws IOException if the node could not be reached, did not answer in time or refused
   */
  public static ReceivedCopies read(TcpNodeClient node) throws IOException {
    KvReply reply = node.admin(Wire.RECEIVED, 0, 0);
    if (!reply.isOk()) {
      throw new IOException("RECEIVED at " + node.address() + ": " + reply);
    }
    return of(reply);
  }

  /**
   * Reads an OK answer to RECEIVED.
   *
   * @throws IOException if its body is cut short or holds a negative count
   */
  public static ReceivedCopies of(KvReply ok) throws IOException {
    if (ok.value() == null) {
      throw new IOException("RECEIVED answer without a body");
    }
    Wire.Reader r = new Wire.Reader(ok.value());
    long entries = r.i64();
    long bytes = r.i64();
    long partitions = r.i64();
    if (entries < 0 || bytes < 0 || partitions < 0) {
      throw new IOException("a RECEIVED answer counts from 0, not " + entries + " entries, "
          + bytes + " bytes, " + partitions + " partitions");
    }
    return new ReceivedCopies(entries, bytes, partitions);
  }
}
