package io.partkit.kvstore.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Before login a connection has its own, small budget: connections that never log in cannot
 * take the slots of the cluster's clients (2,000 of them locked every client out of a node), a
 * peer sending one byte now and then is closed at the login deadline (the idle timeout kept it
 * forever), and a frame larger than a proof is refused before it is read (a 64 MiB frame was
 * read before login). The idle connections come from 127.0.0.2, the real client from
 * 127.0.0.1, as an attacker's and a client's would from different hosts.
 */
class LoginLimitsTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path dir;

  private TcpKvNode node(ConnectionLimits limits) throws IOException {
    SharedSecret secret = SharedSecret.generate(dir.resolve("secret"));
    return TcpKvNode.start(NodeId.of("n1"), dir.resolve("n1"),
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, limits, secret);
  }

  private static Socket openFrom(String source, TcpKvNode node) throws IOException {
    Socket s = new Socket();
    s.setSoTimeout(Math.toIntExact(DEADLINE.toMillis())); // a hang fails instead of blocking
    s.bind(new InetSocketAddress(source, 0));
    s.connect(node.address());
    return s;
  }

  /** Reads until the node closes the connection: true if it did, false on a read timeout. */
  private static boolean closedByNode(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // the greeting
      }
      return true;
    } catch (SocketException e) {
      return true; // reset by the node
    } catch (java.net.SocketTimeoutException e) {
      return false;
    }
  }

  @Test
  void connectionsThatNeverLogInDoNotLockOutAClient() throws Exception {
    SharedSecret secret;
    try (TcpKvNode node = node(ConnectionLimits.DEFAULT)) {
      secret = SharedSecret.read(dir.resolve("secret"));
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < 400; i++) {
          idle.add(openFrom("127.0.0.2", node)); // more than the 256 connections a node takes
        }
        try (TcpNodeClient c = new TcpNodeClient(node.address(), DEADLINE, secret)) {
          assertThat(c.admin(Wire.ASSIGN, 0, 1).status()).isEqualTo(Status.OK);
          assertThat(c.get(0, 1, new byte[] {1}).status()).isEqualTo(Status.OK);
        }
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  @Test
  void aPeerThatSendsOneByteAtATimeIsClosedAtTheLoginDeadline() throws Exception {
    ConnectionLimits limits = new ConnectionLimits(16, Duration.ofMinutes(10), 16, 8,
        Duration.ofSeconds(1));
    try (TcpKvNode node = node(limits); Socket slow = openFrom("127.0.0.1", node)) {
      OutputStream out = slow.getOutputStream();
      out.write(new byte[] {0, 0, 0x03, (byte) 0xe8}); // a 1000-byte frame, a byte at a time
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      boolean closed = false;
      while (!closed && System.nanoTime() < deadline) {
        try {
          out.write(7);
          out.flush();
          Thread.sleep(200); // slower than the login deadline allows, faster than idle
        } catch (SocketException e) {
          closed = true;
        }
      }
      assertThat(closed || closedByNode(slow)).as("closed while it kept sending").isTrue();
    }
  }

  @Test
  void aFrameLargerThanAProofIsRefusedBeforeLogin() throws Exception {
    ConnectionLimits limits = new ConnectionLimits(16, Duration.ofMinutes(10), 16, 8,
        Duration.ofMinutes(10));
    try (TcpKvNode node = node(limits); Socket big = openFrom("127.0.0.1", node)) {
      OutputStream out = big.getOutputStream();
      out.write(new byte[] {0x04, 0, 0, 0}); // 64 MiB
      out.write(new byte[4096]);
      out.flush();
      assertThat(closedByNode(big)).as("closed at once, not read").isTrue();
    }
  }

  @Test
  void aNewConnectionTakesThePlaceOfTheOldestOfItsAddressAndOthersStillLogIn() throws Exception {
    ConnectionLimits limits = new ConnectionLimits(16, Duration.ofMinutes(10), 8, 2,
        Duration.ofMinutes(10));
    try (TcpKvNode node = node(limits)) {
      SharedSecret secret = SharedSecret.read(dir.resolve("secret"));
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          idle.add(openFrom("127.0.0.2", node));
        }
        idle.add(openFrom("127.0.0.2", node)); // over its address's share of 2
        assertThat(closedByNode(idle.get(0))).as("the oldest of that address, closed").isTrue();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (node.loginEvictions() < 1 && System.nanoTime() < deadline) {
          Thread.sleep(10); // the accept runs on the node's thread: wait for it, with a deadline
        }
        assertThat(node.loginEvictions()).isEqualTo(1);
        assertThat(node.loggingIn()).as("the second and the third, still logging in")
            .isEqualTo(2);
        try (TcpNodeClient c = new TcpNodeClient(node.address(), DEADLINE, secret)) {
          assertThat(c.admin(Wire.STATUS, 0, 0).status()).isEqualTo(Status.OK);
        }
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  @Test
  void whenEveryLoginSlotIsTakenTheBusiestAddressGivesUpItsOldest() throws Exception {
    ConnectionLimits limits = new ConnectionLimits(16, Duration.ofMinutes(10), 4, 3,
        Duration.ofMinutes(10));
    try (TcpKvNode node = node(limits)) {
      List<Socket> idle = new ArrayList<>();
      try {
        idle.add(openFrom("127.0.0.3", node)); // the oldest of all, but its address holds one
        for (int i = 0; i < 3; i++) {
          idle.add(openFrom("127.0.0.2", node));
        }
        awaitLoggingIn(node, 4);
        idle.add(openFrom("127.0.0.4", node)); // all 4 slots taken: 127.0.0.2 holds the most
        assertThat(closedByNode(idle.get(1))).as("the oldest of 127.0.0.2, closed").isTrue();
        awaitLoggingIn(node, 4);
        assertThat(node.loginEvictions()).isEqualTo(1);
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  private static void awaitLoggingIn(TcpKvNode node, int n) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (node.loggingIn() != n && System.nanoTime() < deadline) {
      Thread.sleep(10); // the node accepts on its own thread: wait for it, with a deadline
    }
    assertThat(node.loggingIn()).as("connections logging in").isEqualTo(n);
  }
}
