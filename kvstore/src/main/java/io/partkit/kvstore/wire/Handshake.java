package io.partkit.kvstore.wire;

import io.partkit.replica.node.access.LoginHandshake;
import io.partkit.replica.node.access.SharedSecret;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The first frames of every connection: the {@link LoginHandshake} (what is said and checked) in
 * the kvstore's {@link Wire} frames:
 *
 * <pre>
 * node -> client   HELLO  = int8 version (1), int8 auth (0 or 1), bytes challenge (16 random)
 * client -> node   PROOF  = bytes HMAC-SHA256(secret, "partkit-kv-auth-v1" || challenge)  (auth 1)
 * node -> client   RESULT = int8 accepted (0 or 1), utf message                          (auth 1)
 * </pre>
 *
 * <p>Every failure of the handshake is a {@link java.net.ConnectException} on the client: no
 * request was sent.
 */
public final class Handshake {

  private Handshake() {}

  /** The node's frames of the handshake on {@code in} and {@code out} (for {@code Admission}). */
  public static LoginHandshake.NodeFrames nodeFrames(InputStream in, OutputStream out) {
    return new LoginHandshake.NodeFrames() {
      @Override
      public void hello(LoginHandshake.Hello hello) throws IOException {
        Wire.writeFrame(out, new Wire.Writer().i8(hello.version()).i8(hello.auth() ? 1 : 0)
            .bytes(hello.challenge()).toBytes());
      }

      @Override
      public byte[] proof() throws IOException {
        byte[] frame = Wire.readFrame(in, LoginHandshake.MAX_FRAME);
        if (frame == null) {
          throw new EOFException("the peer left before proving it knows the secret");
        }
        Wire.Reader login = new Wire.Reader(frame);
        try {
          byte[] proof = login.bytes();
          return login.atEnd() ? proof : null;
        } catch (IOException e) {
          return null; // a frame too short for its own length: no proof
        }
      }

      @Override
      public void result(LoginHandshake.Result result) throws IOException {
        Wire.writeFrame(out, new Wire.Writer().i8(result.accepted() ? 1 : 0).utf(result.why())
            .toBytes());
      }
    };
  }

  /**
   * The client's side: reads HELLO and, when the node asks, sends the proof.
   *
   * @throws java.net.ConnectException if the node asks for a secret this client does not have,
   *     refuses it, or speaks another protocol
   */
  static void answer(InputStream in, OutputStream out, SharedSecret secret, Object node)
      throws IOException {
    LoginHandshake.answer(new LoginHandshake.PeerFrames() {
      @Override
      public LoginHandshake.Hello hello() throws IOException {
        Wire.Reader hello = next(in);
        return hello == null ? null
            : new LoginHandshake.Hello(hello.i8(), hello.i8() == 1, hello.bytes());
      }

      @Override
      public void proof(byte[] proof) throws IOException {
        Wire.writeFrame(out, new Wire.Writer().bytes(proof).toBytes());
      }

      @Override
      public LoginHandshake.Result result() throws IOException {
        Wire.Reader r = next(in);
        return r == null ? null : new LoginHandshake.Result(r.i8() == 1, r.utf());
      }
    }, secret, node);
  }

  /** The next frame's reader; null when the node closed the connection first. */
  private static Wire.Reader next(InputStream in) throws IOException {
    byte[] frame = Wire.readFrame(in);
    return frame == null ? null : new Wire.Reader(frame);
  }
}
