package io.partkit.replica.node.access;

import java.time.Duration;

/**
 * What one node spends on client connections, so that no client, buggy or hostile, can take the
 * node's memory or threads, or lock others out: at most {@code maxConnections} connections that
 * logged in (proved the cluster's secret) at once, a thread and two small buffers each; more are
 * refused with a definite answer. Before login, on a node with a secret, a connection has its
 * own budget: at most {@code maxUnauthenticated} at once and {@code maxUnauthenticatedPerAddress}
 * from one source address (beyond them a new connection takes the place of the oldest one still
 * logging in, of its own address first, which is closed: see {@link Admission}), {@code
 * loginTimeout} to prove the secret from its accept, however slowly it sends, and frames of at
 * most {@link LoginHandshake#MAX_FRAME} bytes. A connection that sends nothing for {@code
 * idleTimeout} is closed. Frame bodies are read as their bytes arrive, never allocated whole
 * from the length prefix ({@link FrameBody}).
 *
 * <p>A node without a secret (loopback only) admits every connection at once, so there only
 * {@code maxConnections} bounds them.
 */
public record ConnectionLimits(int maxConnections, Duration idleTimeout, int maxUnauthenticated,
    int maxUnauthenticatedPerAddress, Duration loginTimeout) {

  /**
   * 256 connections (a coordinator, its peers and a few hundred client connections) and 2
   * minutes of silence: the clients (and a replica node's links) reopen a connection idle for
   * half that before using it ({@link #reopenAfter}), so an idle close never turns a request into
   * an unknown outcome. Before login: 128
   * connections, 32 per source address (a harness's or an application's clients share one
   * address, and a node resumed after a pause accepts their queued connections at once), 3
   * seconds (a login is one round trip; the rest is margin for a loaded machine; a connection
   * that does not log in holds its thread no longer than that even where nothing evicts it).
   */
  public static final ConnectionLimits DEFAULT = new ConnectionLimits(256,
      Duration.ofMinutes(2));

  public ConnectionLimits {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1: " + maxConnections);
    }
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idleTimeout must be positive: " + idleTimeout);
    }
    if (maxUnauthenticated < 1 || maxUnauthenticatedPerAddress < 1) {
      throw new IllegalArgumentException("maxUnauthenticated and maxUnauthenticatedPerAddress"
          + " must be >= 1: " + maxUnauthenticated + ", " + maxUnauthenticatedPerAddress);
    }
    if (loginTimeout.isNegative() || loginTimeout.isZero()) {
      throw new IllegalArgumentException("loginTimeout must be positive: " + loginTimeout);
    }
  }

  /** The given cap and idle time, with the default budget before login. */
  public ConnectionLimits(int maxConnections, Duration idleTimeout) {
    this(maxConnections, idleTimeout, 128, 32, Duration.ofSeconds(3));
  }

  /**
   * How long a peer's connection to a node with the {@link #DEFAULT} limits may have been idle
   * before the peer reopens it instead of using it: half the idle timeout, so the node never
   * closes it under a request.
   */
  public static Duration reopenAfter() {
    return DEFAULT.idleTimeout().dividedBy(2);
  }
}
