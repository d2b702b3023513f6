package io.partkit.replica.node;

import io.partkit.replica.node.load.NodeLoad;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;

/**
 * The driver's own frames beside the core's envelopes, and how any frame goes over a stream: a
 * four-byte length, then that many bytes of {@link Codec} form, the length at most {@link
 * Codec#MAX_FRAME}.
 */
interface Frame {

  /** The endpoint number a client's hello carries: the node gives it one of its own. */
  int CLIENT = Integer.MIN_VALUE;

  /** The first frame on a connection: who opened it (a node, the control, or {@link #CLIENT}). */
  record Hello(int id) implements Frame {}

  /** A client to the control: which node is primary of each partition? */
  record TableRequest(long id) implements Frame {}

  /**
   * The control's answer: each partition of its table in partition order (its number, modulus,
   * primary and epoch), and whether the cluster is settled (every partition with its copies, all
   * level and up), else what keeps it from being so.
   */
  record Table(long id, boolean settled, List<ReplicaClient.Row> rows, String unsettled)
      implements Frame {
    public Table {
      rows = List.copyOf(rows);
    }
  }

  /** A client to a node: what have you served? ({@link RequestMeters}) */
  record LoadRequest(long id) implements Frame {}

  /** A node's answer to a {@link LoadRequest}: its load view. */
  record Load(long id, NodeLoad view) implements Frame {}

  /** Writes one frame (not flushed). */
  static void write(DataOutputStream out, Object frame) throws IOException {
    byte[] bytes = Codec.encode(frame);
    if (bytes.length > Codec.MAX_FRAME) {
      throw new IOException("a frame of " + bytes.length + " bytes is over the limit of "
          + Codec.MAX_FRAME);
    }
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  /**
   * Reads one frame.
   *
   * @throws EOFException at the end of the stream
   * @throws Codec.Malformed for a length over the limit or bytes that do not decode
   */
  static Object read(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 9 || length > Codec.MAX_FRAME) {
      throw new Codec.Malformed("a frame length of " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return Codec.decode(bytes);
  }
}
