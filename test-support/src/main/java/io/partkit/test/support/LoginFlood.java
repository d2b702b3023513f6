package io.partkit.test.support;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connections that never log in, from several source addresses, each opened again at once when
 * the node closes it: the flood a node's login budget must not let lock out real clients. One
 * thread and a selector drive them all, so a flood of thousands costs the test few threads.
 */
public final class LoginFlood implements AutoCloseable {

  private final SocketAddress node;
  private final Selector selector;
  private final Thread thread;
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong closedByNode = new AtomicLong();
  private volatile boolean stop;

  /** Starts {@code perAddress} connections from each of {@code from}. */
  public LoginFlood(SocketAddress node, List<InetAddress> from, int perAddress)
      throws IOException {
    this.node = node;
    this.selector = Selector.open();
    for (InetAddress a : from) {
      for (int i = 0; i < perAddress; i++) {
        open(a);
      }
    }
    thread = new Thread(this::run, "login-flood");
    thread.setDaemon(true);
    thread.start();
  }

  private void open(InetAddress from) throws IOException {
    SocketChannel c = SocketChannel.open();
    try {
      c.configureBlocking(false);
      c.bind(new InetSocketAddress(from, 0));
      opened.incrementAndGet();
      if (c.connect(node)) {
        c.register(selector, SelectionKey.OP_READ, from);
      } else {
        c.register(selector, SelectionKey.OP_CONNECT, from);
      }
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private void run() {
    ByteBuffer scratch = ByteBuffer.allocate(4096);
    while (!stop) {
      try {
        selector.select(100);
        for (SelectionKey k : selector.selectedKeys()) {
          SocketChannel c = (SocketChannel) k.channel();
          InetAddress from = (InetAddress) k.attachment();
          boolean ended;
          try {
            if (k.isConnectable()) {
              c.finishConnect();
              k.interestOps(SelectionKey.OP_READ);
              ended = false;
            } else {
              scratch.clear();
              ended = c.read(scratch) < 0; // the greeting is read and ignored: never a proof
            }
          } catch (IOException e) {
            ended = true; // reset or refused
          }
          if (ended) {
            closedByNode.incrementAndGet();
            k.cancel();
            c.close();
            open(from); // at once
          }
        }
        selector.selectedKeys().clear();
      } catch (IOException e) {
        if (!stop) {
          System.err.println("login flood: " + e); // out of ports, say: keep going
        }
      }
    }
  }

  /** Connections opened so far, reconnections included. */
  public long opened() {
    return opened.get();
  }

  /** Connections the node closed (evicted, past the login deadline, or refused). */
  public long closedByNode() {
    return closedByNode.get();
  }

  @Override
  public void close() throws IOException {
    stop = true;
    selector.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (SelectionKey k : selector.keys()) {
      k.channel().close();
    }
    selector.close();
  }
}
