package io.partkit.replica.node;

import io.partkit.replica.node.access.SharedSecret;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client's connections, by address (a node's or a control's), shared by the threads of one
 * {@link ReplicaClient}: at most {@code perEndpoint} open to one address at once, each lent to one
 * call at a time. A call {@link #borrow}s an idle one (or opens one, while under the bound; else
 * waits for one to come back, up to its deadline), sends its request and reads the answer, then
 * {@link #release}s it, or, when it failed or its answer did not come (its stream may hold half
 * an answer, or a late one), {@link #discard}s it. Idle connections are reused most recent first,
 * and one idle for half the node's idle timeout is closed rather than used ({@link
 * ClientConnection#isStale}).
 */
final class ClientPool implements AutoCloseable {

  /**
   * The connections one client opens to one node at most by default: a node takes 256
   * ({@code ConnectionLimits.DEFAULT}) from all its clients and peers together.
   */
  static final int DEFAULT_PER_ENDPOINT = 16;

  /** No connection came back within the call's deadline: nothing was sent. */
  static final class Busy extends IOException {
    private static final long serialVersionUID = 1L;

    Busy(String message) {
      super(message);
    }
  }

  /** The client was closed: nothing was sent. */
  static final class Closed extends IOException {
    private static final long serialVersionUID = 1L;

    Closed() {
      super("the client is closed");
    }
  }

  /** One address's connections: the permits to open or hold one, and the idle ones. */
  private static final class Endpoint {
    final Semaphore permits;
    final ConcurrentLinkedDeque<ClientConnection> idle = new ConcurrentLinkedDeque<>();
    /** The connections open now, lent or idle. */
    final AtomicInteger open = new AtomicInteger();

    Endpoint(int permits) {
      this.permits = new Semaphore(permits, true);
    }
  }

  private final int perEndpoint;
  private final SharedSecret secret;
  private final Map<InetSocketAddress, Endpoint> endpoints = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param perEndpoint connections open to one address at most
   * @param secret what to prove to a node that asks (null: none)
   * @throws IllegalArgumentException when {@code perEndpoint} is below 1
   */
  ClientPool(int perEndpoint, SharedSecret secret) {
    if (perEndpoint < 1) {
      throw new IllegalArgumentException("a client needs at least 1 connection per node, got "
          + perEndpoint);
    }
    this.perEndpoint = perEndpoint;
    this.secret = secret;
  }

  /**
   * A connection to {@code address} for one call: an idle one, or a new one while fewer than
   * the bound are open, or the first to come back before {@code deadline}.
   *
   * @throws Busy when none came back within the deadline
   * @throws Closed when the client is closed
   * @throws IOException when a new connection cannot be opened or logged in
   */
  ClientConnection borrow(InetSocketAddress address, long deadline) throws IOException {
    if (closed) {
      throw new Closed();
    }
    Endpoint e = endpoints.computeIfAbsent(address, a -> new Endpoint(perEndpoint));
    try {
      if (!e.permits.tryAcquire(Math.max(0, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS)) {
        throw new Busy("all " + perEndpoint + " connections to " + address
            + " were busy for the whole timeout");
      }
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for a connection to " + address);
    }
    try {
      ClientConnection c;
      while ((c = e.idle.pollFirst()) != null) {
        if (!c.isStale()) {
          return c;
        }
        close(e, c);
      }
      if (closed) {
        throw new Closed();
      }
      c = ClientConnection.open(address, deadline, secret);
      e.open.incrementAndGet();
      return c;
    } catch (IOException | RuntimeException ex) {
      e.permits.release();
      throw ex;
    }
  }

  /** Takes back {@code c}, whose last request got its whole answer, for the next call. */
  void release(ClientConnection c) {
    Endpoint e = endpoints.get(c.address());
    if (closed) {
      close(e, c);
    } else {
      e.idle.offerFirst(c);
      if (closed && e.idle.remove(c)) {
        close(e, c); // closed meanwhile: close() may have missed it
      }
    }
    e.permits.release();
  }

  /** Closes {@code c}, which failed or whose answer did not come, and frees its place. */
  void discard(ClientConnection c) {
    Endpoint e = endpoints.get(c.address());
    close(e, c);
    e.permits.release();
  }

  private static void close(Endpoint e, ClientConnection c) {
    c.close();
    e.open.decrementAndGet();
  }

  /** The connections to {@code address} open now, idle or lent: for tests. */
  int open(InetSocketAddress address) {
    Endpoint e = endpoints.get(address);
    return e == null ? 0 : e.open.get();
  }

  /** Connections open to one address at most. */
  int perEndpoint() {
    return perEndpoint;
  }

  /**
   * Closes every idle connection; one lent now is closed when it comes back, and no call
   * borrows one from here on.
   */
  @Override
  public void close() {
    closed = true;
    for (Endpoint e : endpoints.values()) {
      ClientConnection c;
      while ((c = e.idle.pollFirst()) != null) {
        close(e, c);
      }
    }
  }
}
