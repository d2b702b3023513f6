package io.partkit.kvstore.node;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * Counts a node's connections against its {@link ConnectionLimits}: those still logging in, in
 * all and per source address, apart from those that logged in, so that connections that never
 * log in cannot take the slots of the cluster's own clients, replicas and coordinator.
 */
final class ConnectionGate {

  private final ConnectionLimits limits;
  private final Map<InetAddress, Integer> pendingFrom = new HashMap<>(); // guarded by this
  private int pending; // guarded by this
  private int admitted; // guarded by this

  ConnectionGate(ConnectionLimits limits) {
    this.limits = limits;
  }

  /** A connection from {@code from} starts to log in; false: over a budget, close it. */
  synchronized boolean enterLogin(InetAddress from) {
    int fromThere = pendingFrom.getOrDefault(from, 0);
    if (pending >= limits.maxUnauthenticated()
        || fromThere >= limits.maxUnauthenticatedPerAddress()) {
      return false;
    }
    pending++;
    pendingFrom.put(from, fromThere + 1);
    return true;
  }

  /** A connection from {@code from} has logged in or gone. */
  synchronized void leaveLogin(InetAddress from) {
    pending--;
    pendingFrom.computeIfPresent(from, (a, n) -> n == 1 ? null : n - 1);
  }

  /** A connection is admitted to serve requests; false: over the cap, refuse it. */
  synchronized boolean admit() {
    if (admitted >= limits.maxConnections()) {
      return false;
    }
    admitted++;
    return true;
  }

  /** An admitted connection closed. */
  synchronized void release() {
    admitted--;
  }

  synchronized int loggingIn() {
    return pending;
  }
}
