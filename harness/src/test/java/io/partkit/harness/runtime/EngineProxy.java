package io.partkit.harness.runtime;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A unix-socket relay in front of the Docker engine: a runtime pointed at it reaches the real
 * engine until {@link #close}, when every connection is cut at once. How the tests make the
 * engine stop answering in the middle of a run without stopping the engine other tests share.
 */
public final class EngineProxy implements AutoCloseable {

  private final Path socket;
  private final Path engine;
  private final ServerSocketChannel server;
  private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private EngineProxy(Path socket, Path engine) throws IOException {
    this.socket = socket;
    this.engine = engine;
    Files.deleteIfExists(socket);
    this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    Thread acceptor = new Thread(this::accept, "engine-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Relays {@code socket} to the engine's socket ({@code DOCKER_HOST} or the default one). */
  public static EngineProxy at(Path socket) throws IOException {
    String host = DockerEngine.host();
    if (!host.startsWith("unix://")) {
      throw new IllegalStateException("the proxy relays a unix socket, not " + host);
    }
    return new EngineProxy(socket, Path.of(host.substring("unix://".length())));
  }

  /** The engine host to give a runtime: {@code unix://<socket>}. */
  public String host() {
    return "unix://" + socket;
  }

  private void accept() {
    while (!closed) {
      try {
        SocketChannel client = server.accept();
        SocketChannel upstream = SocketChannel.open(UnixDomainSocketAddress.of(engine));
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(SocketChannel from, SocketChannel to) {
    Thread t = new Thread(() -> {
      ByteBuffer buf = ByteBuffer.allocate(16 * 1024);
      try {
        while (from.read(buf) >= 0) {
          buf.flip();
          while (buf.hasRemaining()) {
            to.write(buf);
          }
          buf.clear();
        }
        to.shutdownOutput();
      } catch (IOException e) {
        // one side went away: so does the other
        closeQuietly(to);
        closeQuietly(from);
      }
    }, "engine-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Cuts every connection and stops accepting: the engine is gone for whoever used the proxy. */
  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (SocketChannel c : open) {
      closeQuietly(c);
    }
    Files.deleteIfExists(socket);
  }

  private static void closeQuietly(SocketChannel c) {
    try {
      c.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
