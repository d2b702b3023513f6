package io.partkit.replica.node;

import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;

/**
 * Whom a process of the cluster lets in and proves itself to: the cluster's {@code secret} (null:
 * none, and then it listens on loopback only) and what its accepted connections may cost ({@code
 * limits}).
 */
record ConnectionPolicy(SharedSecret secret, ConnectionLimits limits) {

  /** No secret (loopback only), the default limits. */
  static final ConnectionPolicy OPEN = new ConnectionPolicy(null, ConnectionLimits.DEFAULT);

  ConnectionPolicy {
    java.util.Objects.requireNonNull(limits, "limits");
  }

  /** {@code secret} (null: none) with the default limits. */
  static ConnectionPolicy of(SharedSecret secret) {
    return new ConnectionPolicy(secret, ConnectionLimits.DEFAULT);
  }
}
