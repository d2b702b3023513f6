package io.partkit.kvstore.wire;

import io.partkit.kvstore.KvSecret;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The first frames of every connection. The node speaks first, so a client learns at once
 * whether the node wants proof of the shared secret:
 *
 * <pre>
 * node -> client   HELLO  = int8 version (1), int8 auth (0 or 1), bytes challenge (16 random)
 * client -> node   PROOF  = bytes HMAC-SHA256(secret, "partkit-kv-auth-v1" || challenge)  (auth 1)
 * node -> client   RESULT = int8 accepted (0 or 1), utf message                          (auth 1)
 * </pre>
 *
 * <p>A node with a secret closes a connection whose proof is missing, wrong or followed by other
 * bytes in its frame, before reading any request; the client waits for the result, so a wrong
 * secret is a clear, definite failure rather than a request with an unknown outcome. The
 * challenge is fresh per connection, so a recorded proof cannot be replayed. Every failure of the
 * handshake is a {@link java.net.ConnectException} on the client: no request was sent.
 */
public final class Handshake {

  private static final int VERSION = 1;
  private static final int CHALLENGE_BYTES = 16;
  private static final byte[] CONTEXT = "partkit-kv-auth-v1".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();
  /**
   * The largest frame read before login: a proof is 36 bytes. A peer that has not proved the
   * secret must not make the node read (or hold) megabytes.
   */
  static final int MAX_FRAME = 1024;

  private Handshake() {}

  /**
   * The node's side: sends HELLO and, with a secret, checks the proof.
   *
   * @throws IOException if the peer does not prove it knows the secret (close the connection)
   */
  public static void greet(InputStream in, OutputStream out, KvSecret secret) throws IOException {
    greet(in, out, secret, () -> true);
  }

  /**
   * {@link #greet(InputStream, OutputStream, KvSecret)}, asking {@code admit} once the proof is
   * right whether the node takes one more connection: if not, the peer is told so (a definite
   * refusal, as a wrong secret is) and the connection is to be closed.
   */
  public static void greet(InputStream in, OutputStream out, KvSecret secret,
      java.util.function.BooleanSupplier admit) throws IOException {
    byte[] challenge = new byte[CHALLENGE_BYTES];
    RANDOM.nextBytes(challenge);
    Wire.writeFrame(out, new Wire.Writer().i8(VERSION).i8(secret == null ? 0 : 1)
        .bytes(challenge).toBytes());
    if (secret == null) {
      return;
    }
    byte[] frame = Wire.readFrame(in, MAX_FRAME);
    if (frame == null) {
      throw new EOFException("the peer left before proving it knows the secret");
    }
    Wire.Reader login = new Wire.Reader(frame);
    byte[] proof;
    try {
      proof = login.bytes();
    } catch (IOException e) {
      proof = null; // a frame too short for its own length: no proof
    }
    // The PROOF frame is the proof and nothing else: bytes after it are not part of any login,
    // and accepting them would let a peer smuggle content past the check.
    if (proof == null || !login.atEnd()
        || !MessageDigest.isEqual(proof, proof(secret, challenge))) {
      Wire.writeFrame(out, new Wire.Writer().i8(0)
          .utf("wrong proof of the cluster's shared secret").toBytes());
      throw new IOException("a peer's proof of the shared secret is wrong");
    }
    if (!admit.getAsBoolean()) {
      Wire.writeFrame(out, new Wire.Writer().i8(0)
          .utf("the node is at its limit of connections; try again later").toBytes());
      throw new IOException("over the limit of connections");
    }
    Wire.writeFrame(out, new Wire.Writer().i8(1).utf("").toBytes());
  }

  /**
   * The client's side: reads HELLO and, when the node asks, sends the proof.
   *
   * @throws IOException if the node asks for a secret this client does not have, or speaks
   *     another protocol
   */
  static void answer(InputStream in, OutputStream out, KvSecret secret, Object node)
      throws IOException {
    byte[] frame = Wire.readFrame(in);
    if (frame == null) {
      throw refused("node " + node + " closed the connection before its greeting"
          + " (over its connection limit?)");
    }
    Wire.Reader hello = new Wire.Reader(frame);
    int version = hello.i8();
    if (version != VERSION) {
      throw refused("node " + node + " speaks handshake version " + version + ", this client "
          + VERSION);
    }
    boolean auth = hello.i8() == 1;
    byte[] challenge = hello.bytes();
    if (!auth) {
      return;
    }
    if (secret == null) {
      throw refused("node " + node + " requires the cluster's shared secret, and this client"
          + " has none (configure one: secret(KvSecret.read(file)), or --secret-file FILE)");
    }
    Wire.writeFrame(out, new Wire.Writer().bytes(proof(secret, challenge)).toBytes());
    byte[] result = Wire.readFrame(in);
    Wire.Reader r = result == null ? null : new Wire.Reader(result);
    if (r == null) {
      throw refused("node " + node + " closed the connection instead of answering this"
          + " client's proof of the shared secret (over its limits, or the secrets differ)");
    }
    if (r.i8() != 1) {
      String why = r.utf();
      throw refused("node " + node + " refused this client's login (" + why + ")"
          + (why.contains("secret") ? ": the secrets differ" : ""));
    }
  }

  private static ConnectException refused(String message) {
    return new ConnectException(message);
  }

  private static byte[] proof(KvSecret secret, byte[] challenge) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
      mac.update(CONTEXT);
      return mac.doFinal(challenge);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java runtime", e);
    }
  }
}
