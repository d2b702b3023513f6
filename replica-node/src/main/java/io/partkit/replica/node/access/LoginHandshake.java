package io.partkit.replica.node.access;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.function.BooleanSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The first frames of every connection to a node, whatever its framing (each framing gives its
 * own {@link NodeFrames} and {@link PeerFrames}). The node
 * speaks first, so a peer learns at once whether the node wants proof of the shared secret:
 *
 * <pre>
 * node -> peer   HELLO  = version (1), auth (whether the node has a secret), challenge (16 random)
 * peer -> node   PROOF  = HMAC-SHA256(secret, "partkit-kv-auth-v1" || challenge)        (auth)
 * node -> peer   RESULT = accepted, why not                                              (auth)
 * </pre>
 *
 * <p>A node with a secret closes a connection whose proof is missing, wrong or followed by other
 * bytes in its frame, before reading any request; the peer waits for the result, so a wrong
 * secret is a clear, definite failure rather than a request with an unknown outcome. The
 * challenge is fresh per connection, so a recorded proof cannot be replayed. Every failure of the
 * handshake is a {@link ConnectException} on the peer: no request was sent.
 */
public final class LoginHandshake {

  /** The handshake's version, the first thing a node says. */
  public static final int VERSION = 1;
  /**
   * The largest frame read before login: a proof is 32 bytes and its framing a few more. A peer
   * that has not proved the secret must not make the node read (or hold) megabytes.
   */
  public static final int MAX_FRAME = 1024;
  private static final int CHALLENGE_BYTES = 16;
  /**
   * Binds a proof to this handshake, so an HMAC the secret makes elsewhere is no proof here.
   * Never changed, so that nodes and clients of any build agree.
   */
  private static final byte[] CONTEXT = "partkit-kv-auth-v1".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String WRONG_PROOF = "wrong proof of the cluster's shared secret";
  private static final String AT_LIMIT =
      "the node is at its limit of connections; try again later";

  /** The node's first frame. */
  public record Hello(int version, boolean auth, byte[] challenge) {}

  /** The node's answer to a proof: accepted, or why not. */
  public record Result(boolean accepted, String why) {}

  /** How a node's framing carries the handshake's frames. */
  public interface NodeFrames {

    /** Sends the greeting (and flushes). */
    void hello(Hello hello) throws IOException;

    /**
     * The peer's proof: its frame of at most {@link #MAX_FRAME} bytes, null when that frame is not
     * exactly one proof (too short for its own length, or with bytes after it).
     *
     * @throws EOFException when the peer left before sending it
     */
    byte[] proof() throws IOException;

    /** Sends the result (and flushes). */
    void result(Result result) throws IOException;
  }

  /** How a peer's framing carries the handshake's frames. */
  public interface PeerFrames {

    /** The node's greeting; null when the node closed the connection first. */
    Hello hello() throws IOException;

    /** Sends the proof (and flushes). */
    void proof(byte[] proof) throws IOException;

    /** The node's result; null when the node closed the connection first. */
    Result result() throws IOException;
  }

  private LoginHandshake() {}

  /**
   * The node's side: greets and, with a secret (null: none), checks the proof, asking {@code
   * admit} once the proof is right whether the node takes one more connection: if not, the peer
   * is told so (a definite refusal, as a wrong secret is).
   *
   * @throws IOException if the peer does not prove it knows the secret, or is not admitted: close
   *     the connection
   */
  public static void greet(NodeFrames frames, SharedSecret secret, BooleanSupplier admit)
      throws IOException {
    byte[] challenge = new byte[CHALLENGE_BYTES];
    RANDOM.nextBytes(challenge);
    frames.hello(new Hello(VERSION, secret != null, challenge));
    if (secret == null) {
      return;
    }
    byte[] proof = frames.proof();
    // The PROOF frame is the proof and nothing else: bytes after it are not part of any login,
    // and accepting them would let a peer smuggle content past the check.
    if (proof == null || !MessageDigest.isEqual(proof, proof(secret, challenge))) {
      frames.result(new Result(false, WRONG_PROOF));
      throw new IOException("a peer's proof of the shared secret is wrong");
    }
    if (!admit.getAsBoolean()) {
      frames.result(new Result(false, AT_LIMIT));
      throw new IOException("over the limit of connections");
    }
    frames.result(new Result(true, ""));
  }

  /**
   * The peer's side: reads the greeting and, when the node asks, sends the proof of {@code
   * secret} (null: none) and reads the result.
   *
   * @throws LoginRefusedException if the node asks for a secret this peer does not have, refuses
   *     the proof or the connection, or speaks another version (nothing was sent but the proof)
   * @throws ConnectException if the node closes the connection without an answer (nothing was
   *     sent but the proof; another attempt may be let in)
   */
  public static void answer(PeerFrames frames, SharedSecret secret, Object node)
      throws IOException {
    Hello hello = frames.hello();
    if (hello == null) {
      throw new ConnectException("node " + node + " closed the connection before its greeting"
          + " (over its connection limit?)");
    }
    if (hello.version() != VERSION) {
      throw new LoginRefusedException("node " + node + " speaks handshake version "
          + hello.version() + ", this peer " + VERSION);
    }
    if (!hello.auth()) {
      return;
    }
    if (secret == null) {
      throw new LoginRefusedException("node " + node + " requires the cluster's shared secret,"
          + " and this peer has none (give it the secret: --secret-file FILE, or"
          + " secret(SharedSecret.read(file)))");
    }
    frames.proof(proof(secret, hello.challenge()));
    Result result = frames.result();
    if (result == null) {
      throw new ConnectException("node " + node + " closed the connection instead of answering"
          + " this peer's proof of the shared secret (it made room for newer connections, or is"
          + " closing)");
    }
    if (!result.accepted()) {
      throw new LoginRefusedException("node " + node + " refused this peer's login ("
          + result.why() + ")" + (result.why().equals(WRONG_PROOF) ? ": the secrets differ" : ""));
    }
  }

  private static byte[] proof(SharedSecret secret, byte[] challenge) {
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
