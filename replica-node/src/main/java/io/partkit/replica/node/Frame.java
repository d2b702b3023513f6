package io.partkit.replica.node;

import io.partkit.replica.Replica;
import io.partkit.replica.node.access.FrameBody;
import io.partkit.replica.node.access.LoginHandshake;
import io.partkit.replica.node.load.CopiesReceived;
import io.partkit.replica.node.load.NodeLoad;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;

/**
 * The driver's own frames beside the core's envelopes, and how any frame goes over a stream: a
 * four-byte length, then that many bytes of {@link Codec} form, the length at most {@link
 * Codec#MAX_FRAME} ({@link LoginHandshake#MAX_FRAME} before login), the bytes read as they arrive.
 *
 * <p>A connection begins with the {@link LoginHandshake} in these frames (the node that accepted
 * it speaks first: {@link LoginHandshake.Hello}, then, when it has a secret, the peer's {@link
 * Proof} and the node's {@link LoginHandshake.Result}), then the peer's {@link Hello}.
 */
interface Frame {

  /** The endpoint number a client's hello carries: the node gives it one of its own. */
  int CLIENT = Integer.MIN_VALUE;

  /**
   * The first frame on a connection once logged in: who opened it (a node, the control, or
   * {@link #CLIENT}).
   */
  record Hello(int id) implements Frame {}

  /** A peer's proof of the shared secret ({@link LoginHandshake}). */
  record Proof(byte[] proof) implements Frame {}

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

  /**
   * A node's answer to a {@link LoadRequest}: its load view, and what it received from other
   * nodes to create or level its copies ({@link ReceivedCounts}); {@code received} is null in the
   * answer of a node of an earlier build, which did not count it.
   */
  record Load(long id, NodeLoad view, CopiesReceived received) implements Frame {

    /** An answer that does not say what the node received (an earlier build's). */
    Load(long id, NodeLoad view) {
      this(id, view, null);
    }
  }

  /**
   * A client to a node: which partitions do you know of, and where does each stand? {@code
   * partition} below 0 asks for all of them, else for that one alone.
   */
  record PartitionsRequest(long id, int partition) implements Frame {}

  /**
   * A node's answer to a {@link PartitionsRequest}: its number, and the status of each partition
   * asked for that it knows of, in partition order ({@link Replica#status}: one it knows nothing
   * of is absent at epoch 0). Each status is a length-prefixed entry in the wire form, so that a
   * later build appends fields to an entry and this build's reader skips them, and a later
   * reader takes an entry of this build's without them.
   */
  record Partitions(long id, int node, List<Replica.Status> partitions) implements Frame {
    public Partitions {
      partitions = List.copyOf(partitions);
    }
  }

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
    return read(in, Codec.MAX_FRAME);
  }

  /** Reads one frame of at most {@code max} bytes, as {@link #read(DataInputStream)}. */
  private static Object read(DataInputStream in, int max) throws IOException {
    int length = in.readInt();
    if (length < 9 || length > max) {
      throw new Codec.Malformed("a frame length of " + length + " (at most " + max + ")");
    }
    return Codec.decode(FrameBody.read(in, length));
  }

  /** The accepting node's frames of the {@link LoginHandshake} on one connection. */
  static LoginHandshake.NodeFrames nodeFrames(DataInputStream in, DataOutputStream out) {
    return new LoginHandshake.NodeFrames() {
      @Override
      public void hello(LoginHandshake.Hello hello) throws IOException {
        write(out, hello);
        out.flush();
      }

      @Override
      public byte[] proof() throws IOException {
        Object f;
        try {
          f = read(in, LoginHandshake.MAX_FRAME);
        } catch (Codec.Malformed e) {
          return null; // not a proof alone
        }
        return f instanceof Proof p ? p.proof() : null;
      }

      @Override
      public void result(LoginHandshake.Result result) throws IOException {
        write(out, result);
        out.flush();
      }
    };
  }

  /** The connecting peer's frames of the {@link LoginHandshake} on one connection. */
  static LoginHandshake.PeerFrames peerFrames(DataInputStream in, DataOutputStream out) {
    return new LoginHandshake.PeerFrames() {
      @Override
      public LoginHandshake.Hello hello() throws IOException {
        return expect(LoginHandshake.Hello.class);
      }

      @Override
      public void proof(byte[] proof) throws IOException {
        write(out, new Proof(proof));
        out.flush();
      }

      @Override
      public LoginHandshake.Result result() throws IOException {
        return expect(LoginHandshake.Result.class);
      }

      /** The next frame, of {@code type}; null when the node closed the connection first. */
      private <T> T expect(Class<T> type) throws IOException {
        Object f;
        try {
          f = read(in, LoginHandshake.MAX_FRAME);
        } catch (EOFException e) {
          return null;
        }
        if (!type.isInstance(f)) {
          throw new Codec.Malformed("the node sent " + f + " where its login's "
              + type.getSimpleName() + " goes");
        }
        return type.cast(f);
      }
    };
  }
}
