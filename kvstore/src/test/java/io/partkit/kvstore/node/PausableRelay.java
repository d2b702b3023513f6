package io.partkit.kvstore.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on loopback in front of one node, which a test can pause: while paused, the bytes
 * that reach it in either direction are held, not dropped, and delivered on resume, as for a
 * paused process or a network cut that heals (TCP delivers what was sent). Connections are
 * still accepted while paused, as a paused node's kernel accepts them. A test names {@link
 * #address()} instead of the node's own address where the node should look paused.
 */
final class PausableRelay implements AutoCloseable {

  private final InetSocketAddress target;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object gate = new Object();
  private boolean paused; // guarded by gate
  private int held; // guarded by gate: chunks that reached the relay while paused
  private volatile boolean closed;

  /** A relay to {@code hostAndPort} ({@code host:port}). */
  PausableRelay(String hostAndPort) throws IOException {
    int colon = hostAndPort.lastIndexOf(':');
    this.target = new InetSocketAddress(hostAndPort.substring(0, colon),
        Integer.parseInt(hostAndPort.substring(colon + 1)));
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon("relay-accept", this::acceptLoop);
  }

  /** Where to reach the node through this relay. */
  String address() {
    return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
  }

  /** Holds every byte from now on, in both directions, until {@link #resume}. */
  void pause() {
    synchronized (gate) {
      paused = true;
    }
  }

  /** Delivers what was held and relays again. */
  void resume() {
    synchronized (gate) {
      paused = false;
      gate.notifyAll();
    }
  }

  /**
   * Waits until bytes that reached the relay while paused are held: a request to the node
   * behind it is in flight and waiting (a condition; the deadline fails the test).
   */
  void awaitHeld(java.time.Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (gate) {
      while (held == 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("nothing reached the paused relay within " + within);
        }
        gate.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket in = server.accept();
        Socket out = new Socket();
        sockets.add(in);
        sockets.add(out);
        out.connect(target, 10_000);
        daemon("relay-pump", () -> pump(in, out));
        daemon("relay-pump", () -> pump(out, in));
      } catch (IOException e) {
        // closed, or the node is gone: the caller's connection fails as it would without us
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[8192];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        synchronized (gate) {
          if (paused && !closed) {
            held++;
            gate.notifyAll();
          }
          while (paused && !closed) {
            gate.wait();
          }
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // one side closed: close both below
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void daemon(String name, Runnable task) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    closed = true;
    resume();
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    sockets.forEach(PausableRelay::closeQuietly);
  }
}
