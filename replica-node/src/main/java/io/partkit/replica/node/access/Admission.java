package io.partkit.replica.node.access;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Who a node lets in, and at what cost: each accepted socket is counted against the node's
 * {@link ConnectionLimits} ({@link #enter}, on the accepting thread), logs in with the {@link
 * LoginHandshake} within the login deadline from its accept ({@link #login}, on the connection's
 * own thread, before any request is read), and gives its slot back when it ends ({@link #leave}).
 * The counting is {@link ConnectionGate}'s; this is the shell that acts on its decisions. The node
 * brings its own framing ({@link LoginHandshake.NodeFrames}).
 *
 * <p>A node without a secret listens on loopback only ({@link #Admission}) and admits every
 * connection at once, up to {@link ConnectionLimits#maxConnections}.
 */
public final class Admission implements AutoCloseable {

  /** An accepted connection, from its accept until it {@link #leave}s. */
  public static final class Entry {
    private final Socket socket;
    private final ConnectionGate.Login login; // null: no login (no secret)
    private boolean admitted; // its thread's, once the accepting thread handed it over
    private boolean left;

    private Entry(Socket socket, ConnectionGate.Login login, boolean admitted) {
      this.socket = socket;
      this.login = login;
      this.admitted = admitted;
    }
  }

  private final ConnectionLimits limits;
  private final SharedSecret secret; // null: admit every peer (loopback only)
  private final ConnectionGate gate;
  /** Closes connections that have not logged in within the limit (one thread per node). */
  private final ScheduledExecutorService loginDeadlines;

  /**
   * Admission to the node {@code name} listening on {@code bind}, with {@code secret} (null:
   * none).
   *
   * @throws IllegalArgumentException when {@code bind} is not a loopback address and there is no
   *     secret: anyone who reaches the port could act as a node, the control or a client
   */
  public Admission(String name, InetSocketAddress bind, ConnectionLimits limits,
      SharedSecret secret) {
    requireSecretOffLoopback(name, bind, secret);
    this.limits = limits;
    this.secret = secret;
    this.gate = new ConnectionGate(limits);
    this.loginDeadlines = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name + "-login-deadlines");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Refuses to let {@code name} listen on {@code bind} with no {@code secret} (null) unless
   * {@code bind} is a loopback address.
   *
   * @throws IllegalArgumentException saying so, and what to do
   */
  public static void requireSecretOffLoopback(String name, InetSocketAddress bind,
      SharedSecret secret) {
    if (secret == null && (bind.getAddress() == null
        || !bind.getAddress().isLoopbackAddress())) {
      throw new IllegalArgumentException(name + " would listen on " + bind
          + " with no shared secret: anyone who reaches it could fence, drop or overwrite"
          + " partitions; give it the cluster's secret (--secret-file FILE) or bind loopback");
    }
  }

  /**
   * Counts {@code socket}, just accepted: with a secret apart until it logs in, taking the place
   * of an older one still logging in when the budget is spent (see {@link ConnectionGate});
   * without one, admitted at once. Null when it is over the cap (then it is closed: the peer sees
   * the connection end, and may retry). Nothing after a non-null return can throw before the
   * caller hands the entry to the thread that will {@link #leave} it; a caller that cannot start
   * that thread leaves it itself.
   */
  public Entry enter(Socket socket) throws IOException {
    socket.setSoTimeout(Math.toIntExact((secret == null ? limits.idleTimeout()
        : limits.loginTimeout()).toMillis()));
    if (secret == null) {
      if (!gate.admit()) {
        socket.close();
        return null;
      }
      return new Entry(socket, null, true);
    }
    return new Entry(socket, gate.enterLogin(socket.getInetAddress(), socket), false);
  }

  /**
   * Greets the peer on {@code entry}'s connection and, with a secret, checks its proof within
   * the login deadline (which runs from the accept, however slowly the peer sends its bytes);
   * then closes the connection once it has been silent for the idle timeout. False: not one of
   * the cluster's, too slow, evicted by a newer connection, or over the cap; close the
   * connection, no request is to be read from it.
   */
  public boolean login(Entry entry, LoginHandshake.NodeFrames frames) {
    if (entry.login == null) {
      try {
        LoginHandshake.greet(frames, null, () -> true);
        return true;
      } catch (IOException e) {
        return false;
      }
    }
    ScheduledFuture<?> deadline;
    try {
      deadline = loginDeadlines.schedule(() -> closeQuietly(entry.socket),
          limits.loginTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return false; // the node is closing
    }
    try {
      LoginHandshake.greet(frames, secret, () -> {
        Boolean taken = gate.loggedIn(entry.login);
        if (taken == null) {
          // evicted as the proof arrived: closed, so the peer sees no answer and tries again
          throw new Evicted();
        }
        entry.admitted = taken;
        return taken;
      });
      entry.socket.setSoTimeout(Math.toIntExact(limits.idleTimeout().toMillis()));
      return true;
    } catch (IOException | Evicted e) {
      return false;
    } finally {
      deadline.cancel(false);
      gate.leaveLogin(entry.login); // a no-op once it logged in or was evicted
    }
  }

  /** {@code entry}'s connection ended (or its thread never started): its slot is free again. */
  public void leave(Entry entry) {
    if (entry.left) {
      return;
    }
    entry.left = true;
    if (entry.admitted) {
      gate.release();
    } else if (entry.login != null) {
      gate.leaveLogin(entry.login);
    }
  }

  /** How many connections are logging in now. */
  public int loggingIn() {
    return gate.loggingIn();
  }

  /** How many connections were closed to make room for newer ones, since the start. */
  public long evictions() {
    return gate.evictions();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  /** Stops the login deadlines' thread: the node is closing. */
  @Override
  public void close() {
    loginDeadlines.shutdownNow();
  }

  /** A connection evicted by a newer one while its proof was being checked (see login). */
  private static final class Evicted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Evicted() {
      super(null, null, false, false);
    }
  }
}
