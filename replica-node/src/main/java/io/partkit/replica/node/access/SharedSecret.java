package io.partkit.replica.node.access;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * The secret every node, control, coordinator and client of one cluster shares. A node that has
 * one admits a connection only after the peer proves it knows it (an HMAC-SHA256 of a fresh
 * challenge, {@link LoginHandshake}, so the secret itself never crosses the
 * network); without it any process that can reach the port could fence or drop partitions, make a
 * node import data from anywhere, or speak for another node or the control.
 *
 * <p>A node refuses to bind a non-loopback address without a secret. It authenticates peers to
 * the node, not the node to its peers, and does not encrypt: use it on a private network, or put
 * the cluster behind TLS.
 */
public final class SharedSecret {

  /** The fewest bytes a secret may have: 128 bits. */
  public static final int MIN_BYTES = 16;

  private final byte[] key;

  private SharedSecret(byte[] key) {
    this.key = key;
  }

  /**
   * A secret from its bytes.
   *
   * @throws IllegalArgumentException if shorter than {@link #MIN_BYTES}
   */
  public static SharedSecret of(byte[] key) {
    requireNonNull(key, "key");
    if (key.length < MIN_BYTES) {
      throw new IllegalArgumentException("a secret needs at least " + MIN_BYTES + " bytes, got "
          + key.length);
    }
    return new SharedSecret(key.clone());
  }

  /**
   * The secret in {@code file}: its bytes, without a trailing newline (so that
   * {@code head -c 32 /dev/urandom | base64 > FILE} makes a good one).
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if it holds fewer than {@link #MIN_BYTES} bytes
   */
  public static SharedSecret read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int n = bytes.length;
    while (n > 0 && (bytes[n - 1] == '\n' || bytes[n - 1] == '\r')) {
      n--;
    }
    if (n < MIN_BYTES) {
      throw new IllegalArgumentException("secret file " + file + " holds " + n + " bytes; at least "
          + MIN_BYTES + " expected (make one: head -c 32 /dev/urandom | base64 > " + file + ")");
    }
    return new SharedSecret(Arrays.copyOf(bytes, n));
  }

  /**
   * A new random secret written to {@code file} (readable by its owner only), for a new
   * cluster.
   */
  public static SharedSecret generate(Path file) throws IOException {
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    byte[] text = Base64.getEncoder().encode(random);
    Files.write(file, text);
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the caller's directory permissions are what protects it
    }
    return new SharedSecret(text);
  }

  public byte[] key() {
    return key;
  }

  /** Never the secret itself: this may end up in a log. */
  @Override
  public String toString() {
    return "SharedSecret[" + key.length + " bytes]";
  }
}
