package io.partkit.kvstore.wire;

import io.partkit.replica.node.access.SharedSecret;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Idle connections to nodes, by address, for callers that send many requests from many threads
 * (the routing client; a primary's replication): a connection serves one request at a time, so
 * a caller borrows one, and gives it back only after a complete answer (a connection that failed
 * mid-request is closed instead: its stream may hold half an answer).
 */
public final class NodeConnectionPool implements AutoCloseable {

  private final Duration timeout;
  private final SharedSecret secret;
  private final Map<String, Queue<NodeConnection>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param timeout every call's read timeout on a new connection
   * @param secret what to prove to nodes that ask (null: no node asks)
   */
  public NodeConnectionPool(Duration timeout, SharedSecret secret) {
    this.timeout = timeout;
    this.secret = secret;
  }

  /**
   * An idle connection to {@code address}, or a new one. Stale idle ones are closed on the way:
   * the node may be closing them just now, and a request sent then would have an unknown outcome.
   *
   * @throws IOException if a new connection cannot be opened (nothing was sent)
   * @throws IllegalArgumentException if {@code address} is not host:port
   */
  public NodeConnection borrow(String address) throws IOException {
    NodeConnection c = borrowIdle(address);
    return c != null ? c : open(address);
  }

  /** An idle connection to {@code address} that is not stale, or null when there is none. */
  NodeConnection borrowIdle(String address) {
    Queue<NodeConnection> pool = idle.computeIfAbsent(address, a -> new ConcurrentLinkedQueue<>());
    NodeConnection c;
    while ((c = pool.poll()) != null) {
      if (!c.isStale()) {
        return c;
      }
      c.close();
    }
    return null;
  }

  /**
   * A new connection to {@code address}, to give back by {@link #release} like a borrowed one.
   *
   * @throws IOException if it cannot be opened (nothing was sent)
   * @throws IllegalArgumentException if {@code address} is not host:port
   */
  NodeConnection open(String address) throws IOException {
    return NodeConnection.open(Wire.parseAddress(address), timeout, secret);
  }

  /** Work done over one connection: one request, or a series of them (a copy's pages). */
  public interface ConnectionWork<T> {
    T run(NodeConnection connection) throws IOException;
  }

  /**
   * Runs {@code work} on an idle connection to {@code address}, or on a new one, and gives the
   * connection back once the work is done (a connection the work failed on is closed). Work
   * whose reused connection broke, rather than timed out, runs once more on a new connection:
   * the node may have restarted since that connection last served. So only for work that may
   * run twice; a timeout is never retried, since the node may still be at it.
   *
   * @throws IOException if the work failed on a new connection, timed out, or no connection
   *     could be opened
   */
  public <T> T withConnection(String address, ConnectionWork<T> work) throws IOException {
    NodeConnection idle = borrowIdle(address);
    if (idle != null) {
      try {
        T result = work.run(idle);
        release(address, idle);
        return result;
      } catch (SocketTimeoutException e) {
        idle.close();
        throw e;
      } catch (IOException e) {
        idle.close(); // and run it again, below, on a new connection
      } catch (RuntimeException e) {
        idle.close();
        throw e;
      }
    }
    NodeConnection fresh = open(address);
    try {
      T result = work.run(fresh);
      release(address, fresh);
      return result;
    } catch (IOException | RuntimeException e) {
      fresh.close();
      throw e;
    }
  }

  /** Gives back a connection whose last request got its whole answer. */
  public void release(String address, NodeConnection connection) {
    if (closed) {
      connection.close();
    } else {
      idle.computeIfAbsent(address, a -> new ConcurrentLinkedQueue<>()).add(connection);
    }
  }

  /** Closes every idle connection; connections given back later are closed then. */
  @Override
  public void close() {
    closed = true;
    for (Queue<NodeConnection> pool : idle.values()) {
      NodeConnection c;
      while ((c = pool.poll()) != null) {
        c.close();
      }
    }
  }
}
