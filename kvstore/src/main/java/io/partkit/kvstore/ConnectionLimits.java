package io.partkit.kvstore;

import java.time.Duration;

/**
 * What one node spends on client connections, so that no client, buggy or hostile, can take the
 * node's memory or threads: at most {@code maxConnections} at once (a thread and two small
 * buffers each; more are closed at accept), and a connection that sends nothing for
 * {@code idleTimeout} is closed. Frame bodies are read as their bytes arrive, never allocated
 * whole from the length prefix, so memory follows what clients actually send.
 */
record ConnectionLimits(int maxConnections, Duration idleTimeout) {

  /**
   * 256 connections (a coordinator, its peers and a few hundred client connections) and 2
   * minutes of silence: the routing client reopens a connection idle for half that before using
   * it, so an idle close never turns a request into an unknown outcome.
   */
  static final ConnectionLimits DEFAULT = new ConnectionLimits(256, Duration.ofMinutes(2));

  ConnectionLimits {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1: " + maxConnections);
    }
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("idleTimeout must be positive: " + idleTimeout);
    }
  }
}
