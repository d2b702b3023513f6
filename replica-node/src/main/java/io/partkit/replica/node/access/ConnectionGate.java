package io.partkit.replica.node.access;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Counts a node's connections against its {@link ConnectionLimits}: those still logging in, in
 * all and per source address, apart from those that logged in, so that connections that never
 * log in cannot take the slots of the cluster's own clients, replicas and coordinator.
 *
 * <p>A new connection is never refused for want of a login slot: when its address has its share,
 * the oldest connection of that address still logging in is closed (evicted) to make room, and
 * when all slots are taken, the oldest of the address that holds the most. A login is one round
 * trip, so a real client or replica link is through long before as many newer connections
 * arrive; connections that never log in are the old ones, and pass. An evicted peer sees its
 * connection closed before the login's answer, which a client takes as "not sent" and tries again.
 *
 * <p>Decisions only: {@link Admission} acts on them for a node's accepted sockets.
 */
final class ConnectionGate {

  /** A connection logging in, until it logged in, left, or was evicted. */
  static final class Login {
    final InetAddress from;
    private final Closeable connection;

    private Login(InetAddress from, Closeable connection) {
      this.from = from;
      this.connection = connection;
    }
  }

  private final ConnectionLimits limits;
  /** Every connection logging in, oldest first. Guarded by this. */
  private final LinkedHashSet<Login> pending = new LinkedHashSet<>();
  /** The same, per source address. Guarded by this. */
  private final Map<InetAddress, LinkedHashSet<Login>> pendingFrom = new HashMap<>();
  private int admitted; // guarded by this
  private long evicted; // guarded by this

  ConnectionGate(ConnectionLimits limits) {
    this.limits = limits;
  }

  /**
   * A connection from {@code from} starts to log in. If that takes a slot beyond a budget, an
   * older connection still logging in is closed first (its own thread finds it closed and ends).
   */
  synchronized Login enterLogin(InetAddress from, Closeable connection) {
    LinkedHashSet<Login> mine = pendingFrom.get(from);
    if (mine != null && mine.size() >= limits.maxUnauthenticatedPerAddress()) {
      evict(mine.iterator().next());
    } else if (pending.size() >= limits.maxUnauthenticated()) {
      evict(oldestOfTheBusiestAddress());
    }
    Login login = new Login(from, connection);
    pending.add(login);
    pendingFrom.computeIfAbsent(from, a -> new LinkedHashSet<>()).add(login);
    return login;
  }

  /** The address with the most connections logging in (the oldest first among equals). */
  private Login oldestOfTheBusiestAddress() {
    Login victim = null;
    int most = 0;
    for (Login l : pending) { // oldest first: the first of each size wins ties
      int n = pendingFrom.get(l.from).size();
      if (n > most) {
        most = n;
        victim = l;
      }
    }
    return victim;
  }

  private void evict(Login victim) {
    remove(victim);
    evicted++;
    try {
      // closed here, under the lock: once evicted, no login of it can complete
      victim.connection.close();
    } catch (IOException e) {
      // already closed
    }
  }

  private boolean remove(Login login) {
    if (!pending.remove(login)) {
      return false;
    }
    LinkedHashSet<Login> there = pendingFrom.get(login.from);
    there.remove(login);
    if (there.isEmpty()) {
      pendingFrom.remove(login.from);
    }
    return true;
  }

  /**
   * A connection has logged in or gone. False when it had been evicted already (then it must not
   * be admitted: its connection is closed).
   */
  synchronized boolean leaveLogin(Login login) {
    return remove(login);
  }

  /** A connection is admitted to serve requests; false: over the cap, refuse it. */
  synchronized boolean admit() {
    if (admitted >= limits.maxConnections()) {
      return false;
    }
    admitted++;
    return true;
  }

  /**
   * A connection that logged in ({@link #leaveLogin} true) is admitted, atomically with leaving
   * the login budget: null when it had been evicted (closed), else whether the cap took it.
   */
  synchronized Boolean loggedIn(Login login) {
    return remove(login) ? admit() : null;
  }

  /** An admitted connection closed. */
  synchronized void release() {
    admitted--;
  }

  synchronized int loggingIn() {
    return pending.size();
  }

  /** How many connections were closed to make room for newer ones, since the start. */
  synchronized long evictions() {
    return evicted;
  }
}
