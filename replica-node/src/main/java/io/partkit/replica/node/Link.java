package io.partkit.replica.node;

import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Snapshot;
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
 * <p>An outbound link connects on demand and again after a failure, logs in (proving the
 * cluster's secret when the peer asks, {@link LoginHandshake}) and opens each connection with a
 * {@link Frame.Hello}; while its peer cannot be reached, or refuses the login, what is queued is
 * dropped. It reconnects rather than write on a connection idle for half the peer's idle timeout
 * ({@link ConnectionLimits#reopenAfter}), which the peer may be closing. A client's link writes on
 * the connection the client opened and ends with it.
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
  private final SharedSecret secret; // null: none
  private volatile Socket socket;
  private volatile boolean closed;
  /**
   * A client's link: its stream, written under {@link #writeLock} by the writer and by {@link
   * #flushHeld}; frames queued and not yet written ({@link #pending}); frames held for its
   * reader to write ({@link #held}, under {@link #heldLock}; non-null while holding).
   */
  private DataOutputStream clientOut;
  private final Object writeLock = new Object();
  private final java.util.concurrent.atomic.AtomicInteger pending =
      new java.util.concurrent.atomic.AtomicInteger();
  private final Object heldLock = new Object();
  private java.util.List<Object> held;
  private volatile boolean holding;

  private Link(String name, InetSocketAddress address, int self, SharedSecret secret,
      Socket socket, Consumer<String> log) {
    this.name = name;
    this.secret = secret;
    this.address = address;
    this.self = self;
    this.socket = socket;
    this.log = log;
    this.writer = new Thread(this::writeLoop, "link-" + name);
    this.writer.setDaemon(true);
  }

  /**
   * A link that connects to {@code address}, proves {@code secret} (null: none) when asked, and
   * says it is {@code self}.
   */
  static Link outbound(String name, InetSocketAddress address, int self, SharedSecret secret,
      Consumer<String> log) {
    Link l = new Link(name, address, self, secret, null, log);
    l.writer.start();
    return l;
  }

  /** A link that writes on a connection a client opened. */
  static Link onAccepted(String name, Socket socket, Consumer<String> log) throws IOException {
    Link l = new Link(name, null, 0, null, socket, log);
    l.clientOut = stream(socket);
    l.writer.start();
    return l;
  }

  /**
   * A client's link: keeps {@code frame} for its reader to write with {@link #flushHeld} (the
   * reader's own reply, made while it held the machine, which must not wait on a socket), and
   * every frame sent after it until then, in order; or queues it as {@link #send} does when
   * frames are queued already (they go first). Only the link's {@code reader} starts holding;
   * others add to what it holds while it does ({@link #holding}), and queue otherwise.
   */
  boolean hold(Object frame, boolean reader) {
    synchronized (heldLock) {
      if (held == null && (!reader || pending.get() > 0 || clientOut == null)) {
        return send(frame);
      }
      if (held == null) {
        held = new java.util.ArrayList<>();
        holding = true;
      }
      held.add(frame);
      return true;
    }
  }

  /** Whether frames are held for the reader: sends go behind them ({@link #hold}). */
  boolean holding() {
    return holding;
  }

  /**
   * Writes what is held ({@link #hold}) on this thread, the link's reader's, then holds no
   * more: frames sent meanwhile were added to it, and frames sent after it are queued behind it
   * (the writer waits for this write). A client that does not read blocks only its own reader.
   */
  void flushHeld() {
    if (!holding) {
      return;
    }
    synchronized (writeLock) {
      while (true) {
        java.util.List<Object> frames;
        synchronized (heldLock) {
          frames = held;
          if (frames == null || frames.isEmpty() || closed) {
            held = null;
            holding = false;
            return;
          }
          held = new java.util.ArrayList<>();
        }
        try {
          for (Object f : frames) {
            Frame.write(clientOut, f);
          }
          clientOut.flush();
        } catch (IOException e) {
          closed = true; // the client went away: its replies have nowhere to go
          closeSocket();
          synchronized (heldLock) {
            held = null;
            holding = false;
          }
          return;
        }
      }
    }
  }

  /** What a snapshot's page levels: two with the same are the same page of the same copy. */
  private record SnapshotOf(int partition, long epoch, long level, long seq, int page) {

    /** What {@code frame} levels, or null when it is no snapshot. */
    static SnapshotOf of(Object frame) {
      return frame instanceof Envelope e && e.message() instanceof Snapshot s
          ? new SnapshotOf(s.partition(), s.epoch(), s.level(), s.seq(), s.page()) : null;
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
    pending.incrementAndGet();
    boolean queued = !closed && queue.offer(frame);
    if (!queued) {
      pending.decrementAndGet();
      if (snapshot != null) {
        queuedSnapshots.remove(snapshot);
      }
    }
    return queued;
  }

  private void writeLoop() {
    DataOutputStream out = null;
    long lastWrite = 0;
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
      if (address == null) {
        // a client's link: written under the lock its reader writes its own replies under
        synchronized (writeLock) {
          try {
            if (!closed) {
              Frame.write(clientOut, frame);
              if (queue.isEmpty()) {
                clientOut.flush();
              }
            }
          } catch (IOException e) {
            closeSocket();
            closed = true; // the client went away: its replies have nowhere to go
            return;
          } finally {
            pending.decrementAndGet();
          }
        }
        continue;
      }
      try {
        if (out != null && address != null
            && System.nanoTime() - lastWrite > ConnectionLimits.reopenAfter().toNanos()) {
          out = null; // the peer may be closing it as idle: a frame written now would be lost
          closeSocket();
        }
        if (out == null) {
          if (address == null) {
            out = stream(socket);
          } else {
            Socket s = new Socket();
            socket = s;
            s.connect(address, CONNECT_TIMEOUT_MILLIS);
            out = stream(s);
            // as long as the peer gives a login: at a cold start of every process at once the
            // first logins (the first HMAC, the first random challenge) took over a second
            s.setSoTimeout(Math.toIntExact(ConnectionLimits.DEFAULT.loginTimeout().toMillis()));
            LoginHandshake.answer(Frame.peerFrames(new DataInputStream(new BufferedInputStream(
                s.getInputStream(), 512)), out), secret, address);
            s.setSoTimeout(0);
            Frame.write(out, new Frame.Hello(self));
            if (warned) {
              log.accept("link to " + name + " connected again");
              warned = false;
            }
          }
        }
        Frame.write(out, frame);
        lastWrite = System.nanoTime();
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
