package io.partkit.kvstore.migration;

import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.SchemeCodec;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.PartitionScheme;
import java.io.IOException;

/**
 * The SPLIT requests the migration side sends and the QUERY answer it reads, in the layout
 * {@link NodeSplits#split} decodes: the request header (op SPLIT, partition 0, the split's
 * epoch), an int8 phase, and for PREPARE the new scheme's bytes ({@link SchemeCodec}) and the
 * partitions the node owns in it.
 */
final class SplitRequests {

  private SplitRequests() {}

  /** A split a node holds prepared: its epoch and the scheme it renumbers into. */
  record Pending(long epoch, PartitionScheme scheme) {}

  /** PREPARE at {@code epoch}: fence the old numbering, remember the new scheme and the owned. */
  static byte[] prepare(long epoch, byte[] scheme, int[] owned) {
    Wire.Writer w = NodeConnection.request(Wire.SPLIT, 0, epoch)
        .i8(Wire.SPLIT_PREPARE).bytes(scheme).i32(owned.length);
    for (int q : owned) {
      w.i32(q);
    }
    return w.toBytes();
  }

  /** A phase without a body: APPLY, ABORT (at the split's epoch) or QUERY (epoch 0). */
  static byte[] phase(int phase, long epoch) {
    return NodeConnection.request(Wire.SPLIT, 0, epoch).i8(phase).toBytes();
  }

  /**
   * The split a QUERY answer names, or null when the node holds none pending.
   *
   * @throws IOException if the answer cannot be read
   */
  static Pending readPending(byte[] answer) throws IOException {
    Wire.Reader r = new Wire.Reader(answer);
    long epoch = r.i64();
    if (epoch == 0) {
      return null;
    }
    return new Pending(epoch, SchemeCodec.decode(r.bytes()));
  }
}
