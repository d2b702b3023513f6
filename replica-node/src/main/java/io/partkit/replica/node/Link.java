package io.partkit.replica.node;

import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Snapshot;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One direction of traffic to one endpoint: a bounded queue of frames and a writer thread, so that
 * no thread of the state machine ever blocks on a slow or stopped peer. A full queue drops the
 * frame, as a lossy network would: the protocol resends what matters, and a client whose reply is
 * lost times out (an unknown outcome, which is honest).
 *
 * <p>A snapshot (a whole partition) queued while the same one, of the same partition, epoch, level
 * and write, still waits to be written is dropped: the core sends a snapshot again when it is not
 * answered in time, and one that takes longer to write than that would otherwise queue copies of
 * itself behind itself. Dropping the copy is a message lost, which the protocol tolerates.
 *
 * <p>An outbound link connects on demand and again after a failure, and opens each connection
 * with a {@link Frame.Hello}; while its peer cannot be reached, what is queued is dropped. A
 * client's link writes on the connection the client opened and ends with it.
 */
final class Link implements AutoCloseable {

  static final int CAPACITY = 4096;
  private static final int CONNECT_TIMEOUT_MILLIS = 1000;
  private static final int RETRY_MILLIS = 50;

  private final String name;
  private final InetSocketAddress address;
  private final int self;
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
  /** The snapshots queued and not yet taken by the writer. */
  private final Set<SnapshotOf> queuedSnapshots = ConcurrentHashMap.newKeySet();
  private final Thread writer;
  private final Consumer<String> log;
  private volatile Socket socket;
  private volatile boolean closed;

  private Link(String name, InetSocketAddress address, int self, Socket socket,
      Consumer<String> log) {
    this.name = name;
    this.address = address;
    this.self = self;
    this.socket = socket;
    this.log = log;
    this.writer = new Thread(this::writeLoop, "link-" + name);
    this.writer.setDaemon(true);
  }

  /** A link that connects to {@code address} and says it is {@code self}. */
  static Link outbound(String name, InetSocketAddress address, int self, Consumer<String> log) {
    Link l = new Link(name, address, self, null, log);
    l.writer.start();
    return l;
  }

  /** A link that writes on a connection a client opened. */
  static Link onAccepted(String name, Socket socket, Consumer<String> log) {
    Link l = new Link(name, null, 0, socket, log);
    l.writer.start();
    return l;
  }

  /** What a snapshot levels: two with the same are the same copy. */
  private record SnapshotOf(int partition, long epoch, long level, long seq) {

    /** What {@code frame} levels, or null when it is no snapshot. */
    static SnapshotOf of(Object frame) {
      return frame instanceof Envelope e && e.message() instanceof Snapshot s
          ? new SnapshotOf(s.partition(), s.epoch(), s.level(), s.seq()) : null;
    }
  }

  /**
   * Queues {@code frame}; false when it was dropped (queue full, link closed). A copy of a
   * snapshot still queued is not queued again: true, as it is on its way.
   */
  boolean send(Object frame) {
    SnapshotOf snapshot = SnapshotOf.of(frame);
    if (snapshot != null && !queuedSnapshots.add(snapshot)) {
      return true;
    }
    boolean queued = !closed && queue.offer(frame);
    if (!queued && snapshot != null) {
      queuedSnapshots.remove(snapshot);
    }
    return queued;
  }

  private void writeLoop() {
    DataOutputStream out = null;
    boolean warned = false;
    while (!closed) {
      Object frame;
      try {
        frame = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      SnapshotOf snapshot = SnapshotOf.of(frame);
      if (snapshot != null) {
        queuedSnapshots.remove(snapshot);
      }
      try {
        if (out == null) {
          if (address == null) {
            out = stream(socket);
          } else {
            Socket s = new Socket();
            s.connect(address, CONNECT_TIMEOUT_MILLIS);
            socket = s;
            out = stream(s);
            Frame.write(out, new Frame.Hello(self));
            if (warned) {
              log.accept("link to " + name + " connected again");
              warned = false;
            }
          }
        }
        Frame.write(out, frame);
        if (queue.isEmpty()) {
          out.flush();
        }
      } catch (IOException e) {
        out = null;
        closeSocket();
        if (address == null) {
          closed = true; // the client went away: its replies have nowhere to go
          return;
        }
        if (!warned) {
          log.accept("link to " + name + " at " + address + " failed: " + e.getMessage()
              + " (dropping what is queued while it is down)");
          warned = true;
        }
        dropQueued();
        try {
          Thread.sleep(RETRY_MILLIS); // a peer that is down is retried at this pace
        } catch (InterruptedException ie) {
          return;
        }
        dropQueued();
      }
    }
  }

  private void dropQueued() {
    queue.clear();
    queuedSnapshots.clear();
  }

  private static DataOutputStream stream(Socket s) throws IOException {
    s.setTcpNoDelay(true);
    return new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 64 << 10));
  }

  private void closeSocket() {
    Socket s = socket;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // closing what failed already
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    writer.interrupt();
    closeSocket();
  }
}
