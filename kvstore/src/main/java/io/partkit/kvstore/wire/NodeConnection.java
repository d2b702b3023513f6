package io.partkit.kvstore.wire;

import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * One blocking connection to a node: a request, then its response. Calls on one connection are
 * serialized. Every call has a read timeout, so a paused or partitioned node makes the caller
 * fail instead of hanging; a timed-out connection is closed (its answer may still be in flight).
 */
public final class NodeConnection implements AutoCloseable {

  private final InetSocketAddress address;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private volatile long lastUsed = System.nanoTime();

  private NodeConnection(InetSocketAddress address, Socket socket) throws IOException {
    this.address = address;
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
  }

  /**
   * Connects within {@code timeout} and answers the node's greeting, proving the shared secret
   * when the node asks for it ({@code secret} may be null where no node asks); every later call
   * may wait for its answer that long. A node that closes the connection before answering the
   * login (it made room for a newer connection, see the node's ConnectionGate, or it was at a
   * limit) is asked again, within the same {@code timeout}: no request was sent. A definite
   * answer (a wrong secret, the node at its limit of connections) is not.
   *
   * @throws ConnectException if nothing listens there, or the handshake failed (no
   *     request was sent)
   */
  public static NodeConnection open(InetSocketAddress address, Duration timeout,
      SharedSecret secret)
      throws IOException {
    return open(address, null, timeout, secret);
  }

  /**
   * As {@link #open(InetSocketAddress, Duration, SharedSecret)}, from the local address {@code
   * local} (null: the system's choice), as a client on another host would come from its own.
   */
  public static NodeConnection open(InetSocketAddress address, java.net.InetAddress local,
      Duration timeout, SharedSecret secret) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long backoffMillis = 1;
    while (true) {
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      EndWatch end = new EndWatch();
      try {
        return openOnce(address, local, Math.min(left, timeout.toMillis()), timeout, secret,
            end);
      } catch (ConnectException e) {
        if (!end.seen || System.nanoTime() + backoffMillis * 1_000_000 >= deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(backoffMillis); // a short pause before logging in again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ConnectException("interrupted while logging in to " + address);
      }
      backoffMillis = Math.min(50, backoffMillis * 2);
    }
  }

  /** Whether the node ended the connection (end of stream or a reset) during the handshake. */
  private static final class EndWatch {
    boolean seen;
  }

  private static NodeConnection openOnce(InetSocketAddress address, java.net.InetAddress local,
      long handshakeMillis, Duration timeout, SharedSecret secret, EndWatch end)
      throws IOException {
    Socket socket = new Socket();
    try {
      if (local != null) {
        socket.bind(new InetSocketAddress(local, 0));
      }
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(Math.toIntExact(handshakeMillis));
      socket.connect(address, Math.toIntExact(handshakeMillis));
      NodeConnection c = new NodeConnection(address, socket);
      try {
        Handshake.answer(watching(c.in, end), c.out, secret, address);
      } catch (ConnectException e) {
        throw e;
      } catch (IOException e) {
        // a timeout or a broken connection before any request: still "not sent"
        ConnectException notSent = new ConnectException("handshake with "
            + address + " failed: " + e.getMessage());
        notSent.initCause(e);
        throw notSent;
      }
      socket.setSoTimeout(Math.toIntExact(timeout.toMillis()));
      return c;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /** {@code in}, noting in {@code end} a read that finds the stream ended or reset. */
  private static InputStream watching(InputStream in, EndWatch end) {
    return new java.io.FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        try {
          return noted(super.read());
        } catch (java.net.SocketException e) {
          end.seen = true; // reset by the node
          throw e;
        }
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        try {
          return noted(super.read(b, off, len));
        } catch (java.net.SocketException e) {
          end.seen = true;
          throw e;
        }
      }

      private int noted(int n) {
        if (n < 0) {
          end.seen = true;
        }
        return n;
      }
    };
  }

  /**
   * Sends one request and waits for its answer.
   *
   * @throws IOException if the connection broke or timed out: the request may or may not have
   *     been applied
   */
  public synchronized KvReply call(byte[] request) throws IOException {
    try {
      Wire.writeFrame(out, request);
      byte[] body = Wire.readFrame(in);
      if (body == null) {
        throw new EOFException("node " + address + " closed the connection");
      }
      lastUsed = System.nanoTime();
      return decode(body);
    } catch (IOException e) {
      close();
      throw e;
    }
  }

  static KvReply decode(byte[] body) throws IOException {
    Wire.Reader r = new Wire.Reader(body);
    int code = r.i8();
    KvReply.Status[] statuses = KvReply.Status.values();
    if (code < 0 || code >= statuses.length) {
      throw new IOException("unknown reply status: " + code);
    }
    long epoch = r.i64();
    byte[] value = r.bytes();
    String message = r.utf();
    return new KvReply(statuses[code], epoch, value, message);
  }

  public static byte[] encode(KvReply reply) {
    return new Wire.Writer().i8(reply.status().ordinal()).i64(reply.epoch()).bytes(reply.value())
        .utf(reply.message()).toBytes();
  }

  public static Wire.Writer request(byte op, int partition, long epoch) {
    return new Wire.Writer().i8(op).i32(partition).i64(epoch);
  }

  boolean isClosed() {
    return socket.isClosed();
  }

  /**
   * Whether to open a new connection rather than use this one: closed, or idle for half the
   * node's default idle timeout ({@link ConnectionLimits#reopenAfter}), after which the node may
   * close it at any moment, and a request sent just then would end with an unknown outcome it never
   * had.
   */
  boolean isStale() {
    long idle = System.nanoTime() - lastUsed;
    return isClosed() || idle > ConnectionLimits.reopenAfter().toNanos();
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a broken socket: nothing left to release
    }
  }
}
