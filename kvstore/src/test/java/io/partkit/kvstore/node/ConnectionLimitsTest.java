package io.partkit.kvstore.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.spi.NodeId;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node bounds what clients can make it spend: memory per frame, connections, idle time. */
class ConnectionLimitsTest {

  /** Generous: these tests wait for the node to act, on machines that may be busy. */
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aFrameThatDeclares64MiBButSendsAFewBytesCostsAFewBytes() {
    byte[] prefix = {0x04, 0x00, 0x00, 0x00}; // 64 MiB
    InputStream in = new SequenceInputStream(new ByteArrayInputStream(prefix),
        new ByteArrayInputStream(new byte[1000]));
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    // the same path once with a small frame first: alone in a fresh JVM, loading the classes of
    // the reader and of the assertion counted 5 MB against the frame
    assertThatThrownBy(() -> Wire.readFrame(new ByteArrayInputStream(new byte[] {0, 0, 0, 9})))
        .isInstanceOf(EOFException.class);
    long before = threads.getCurrentThreadAllocatedBytes();
    assertThatThrownBy(() -> Wire.readFrame(in)).isInstanceOf(EOFException.class)
        .hasMessage("frame ended after 1000 of 67108864 bytes");
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).as("bytes allocated to read the prefix").isLessThan(1 << 20);
  }

  @Test
  void connectionsOverTheLimitAreClosedAndAFreedSlotIsReused() throws Exception {
    ConnectionLimits limits = new ConnectionLimits(4, Duration.ofMinutes(5));
    try (TcpKvNode node = TcpKvNode.start(NodeId.of("n1"), dir,
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, limits, null)) {
      List<TcpNodeClient> clients = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          TcpNodeClient c = new TcpNodeClient(node.address(), DEADLINE);
          clients.add(c);
          assertThat(c.admin(Wire.STATUS, 0, 0).status()).isEqualTo(Status.OK);
        }
        try (Socket fifth = open(node)) {
          assertThat(fifth.getInputStream().read()).as("the node closed the fifth").isEqualTo(-1);
        }
        clients.remove(0).close();
        assertThat(statusWithinDeadline(node)).as("a slot freed by a closed client").isTrue();
      } finally {
        clients.forEach(TcpNodeClient::close);
      }
    }
  }

  @Test
  void anIdleConnectionIsClosed() throws Exception {
    ConnectionLimits limits = new ConnectionLimits(16, Duration.ofMillis(300));
    try (TcpKvNode node = TcpKvNode.start(NodeId.of("n1"), dir,
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, limits, null);
        Socket idle = open(node)) {
      InputStream in = idle.getInputStream();
      int greeting = 0;
      while (in.read() >= 0) {
        greeting++; // the node's HELLO, then nothing until it closes
      }
      assertThat(greeting).as("bytes before the close: the greeting alone").isBetween(1, 64);
    }
  }

  private static Socket open(TcpKvNode node) throws IOException {
    Socket s = new Socket();
    s.setSoTimeout(Math.toIntExact(DEADLINE.toMillis())); // a hang fails instead of blocking
    s.connect(node.address());
    return s;
  }

  /** The node closes a slot when it notices the client is gone: poll until it serves again. */
  private static boolean statusWithinDeadline(TcpKvNode node) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() < deadline) {
      try (TcpNodeClient c = new TcpNodeClient(node.address(), DEADLINE)) {
        if (c.admin(Wire.STATUS, 0, 0).status() == Status.OK) {
          return true;
        }
      } catch (IOException e) {
        // closed at accept: the slot is not free yet
      }
      Thread.sleep(20); // polling interval
    }
    return false;
  }
}
