package io.partkit.replica.node;

import io.partkit.replica.Envelope;
import io.partkit.replica.Message;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.LoginHandshake;
import io.partkit.replica.node.access.SharedSecret;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.function.Predicate;

/**
 * A client's connection to one node or the control, one request at a time: a request is written,
 * then frames are read up to its answer. Used by one thread at a time ({@link ClientPool} lends
 * it to one call, and takes it back only after a whole answer). It is reopened rather than used
 * once idle for half the node's idle timeout ({@link ConnectionLimits#reopenAfter}): a request
 * written as the node closes it would have an unknown outcome it never had.
 */
final class ClientConnection {

  private final InetSocketAddress address;
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;
  private long lastUsed = System.nanoTime();
  /** Whether a request was written on it before. */
  private boolean used;

  private ClientConnection(InetSocketAddress address, Socket socket) throws IOException {
    this.address = address;
    this.socket = socket;
    socket.setTcpNoDelay(true);
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
  }

  /**
   * Connects, logs in (proving {@code secret} when the node asks) and says it is a client.
   *
   * @throws java.net.ConnectException when the login failed: nothing was sent
   */
  static ClientConnection open(InetSocketAddress address, long deadline, SharedSecret secret)
      throws IOException {
    Socket s = new Socket();
    try {
      s.connect(address, (int) Math.max(1, millisLeft(deadline)));
      ClientConnection c = new ClientConnection(address, s);
      s.setSoTimeout((int) Math.max(1, millisLeft(deadline)));
      LoginHandshake.answer(Frame.peerFrames(c.in, c.out), secret, address);
      Frame.write(c.out, new Frame.Hello(Frame.CLIENT));
      c.out.flush();
      return c;
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }

  /** Where it connects to. */
  InetSocketAddress address() {
    return address;
  }

  /**
   * Whether it carried a request before: a failure on it may be the peer's restart since, which
   * a new connection would not meet.
   */
  boolean used() {
    return used;
  }

  /** Whether it was idle long enough that the node may be closing it: not to be used. */
  boolean isStale() {
    return System.nanoTime() - lastUsed > ConnectionLimits.reopenAfter().toNanos();
  }

  /** The answer to {@code request} numbered {@code id}: a {@link Reply} or a {@link Page}. */
  Message call(Envelope request, long id, long deadline) throws IOException {
    lastUsed = System.nanoTime();
    used = true;
    Frame.write(out, request);
    out.flush();
    while (true) {
      Object f = read(deadline);
      // a late answer to an earlier request on this connection is skipped
      if (f instanceof Envelope e && (e.message() instanceof Reply r && r.id() == id
          || e.message() instanceof Page p && p.id() == id)) {
        return e.message();
      }
    }
  }

  /** The control's table. */
  Frame.Table table(long id, long deadline) throws IOException {
    return ask(new Frame.TableRequest(id), Frame.Table.class, t -> t.id() == id, deadline);
  }

  /** A node's load view. */
  Frame.Load load(long id, long deadline) throws IOException {
    return ask(new Frame.LoadRequest(id), Frame.Load.class, l -> l.id() == id, deadline);
  }

  /** A node's listing of its partitions ({@code partition} below 0: all). */
  Frame.Partitions partitions(long id, int partition, long deadline) throws IOException {
    return ask(new Frame.PartitionsRequest(id, partition), Frame.Partitions.class,
        p -> p.id() == id, deadline);
  }

  /** Sends {@code request} and reads up to its answer, a {@code type} that {@code is} it. */
  <F> F ask(Object request, Class<F> type, Predicate<F> is, long deadline) throws IOException {
    lastUsed = System.nanoTime();
    used = true;
    Frame.write(out, request);
    out.flush();
    while (true) {
      Object f = read(deadline);
      if (type.isInstance(f) && is.test(type.cast(f))) {
        return type.cast(f);
      }
    }
  }

  private Object read(long deadline) throws IOException {
    long left = millisLeft(deadline);
    if (left <= 0) {
      throw new SocketTimeoutException("deadline passed");
    }
    socket.setSoTimeout((int) left);
    return Frame.read(in);
  }

  static long millisLeft(long deadline) {
    return (deadline - System.nanoTime()) / 1_000_000;
  }

  void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }
}
