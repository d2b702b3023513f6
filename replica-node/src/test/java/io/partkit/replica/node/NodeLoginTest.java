package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.replica.Timing;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.test.support.LoginFlood;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica node in this process, with a secret and small limits: what a peer must prove to be
 * let in, that connections which never log in cannot keep a real peer out (a few, a trickle of
 * bytes, or a flood from several addresses), and that a logged-in connection left idle is
 * closed.
 */
class NodeLoginTest {

  /** Generous: these tests wait for the node to act, on machines that may be busy. */
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final List<ReplicaNode> nodes = new ArrayList<>();

  @AfterEach
  void close() {
    nodes.forEach(ReplicaNode::close);
  }

  private ReplicaNode node(SharedSecret secret, ConnectionLimits limits) throws IOException {
    // its control is nowhere: the node's link to it fails and retries, which is no matter here
    ReplicaNode n = ReplicaNode.node(0, List.of(new InetSocketAddress("127.0.0.1", 0)),
        List.of(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort())),
        dir.resolve("data-" + nodes.size()), Timing.DEFAULT, Wal.COMPACT_BYTES,
        new ConnectionPolicy(secret, limits), line -> { },
        (why, status) -> {
          throw new AssertionError("the node stopped: " + why);
        });
    nodes.add(n);
    return n;
  }

  private SharedSecret secret(String name) throws IOException {
    return SharedSecret.generate(dir.resolve(name));
  }

  /** Logs in to {@code node} from {@code from} with {@code secret}; the connection, logged in. */
  private static Socket login(ReplicaNode node, String from, SharedSecret secret)
      throws IOException {
    return PeerLogins.login(from, node.address(), secret, DEADLINE);
  }

  private static Socket openFrom(String from, ReplicaNode node) throws IOException {
    return PeerLogins.openFrom(from, node.address(), DEADLINE);
  }

  /** Whether the node closes {@code s} (after its greeting, which is read and skipped). */
  private static boolean closedByNode(Socket s) throws IOException {
    s.setSoTimeout(Math.toIntExact(DEADLINE.toMillis()));
    InputStream in = s.getInputStream();
    try {
      while (in.read() >= 0) {
        // the greeting
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset
    }
  }

  @Test
  void aPeerWithTheSecretLogsInAndOthersGetANamedRefusal() throws Exception {
    SharedSecret secret = secret("s");
    ReplicaNode node = node(secret, ConnectionLimits.DEFAULT);
    login(node, "127.0.0.1", secret).close();
    assertThatThrownBy(() -> login(node, "127.0.0.1", secret("other")))
        .isInstanceOf(ConnectException.class).hasMessageContaining("the secrets differ");
    assertThatThrownBy(() -> login(node, "127.0.0.1", null))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("requires the cluster's shared secret");
  }

  @Test
  void aNodeWithoutASecretAsksForNoneAndListensOnLoopbackOnly() throws Exception {
    ReplicaNode node = node(null, ConnectionLimits.DEFAULT);
    login(node, "127.0.0.1", secret("s")).close(); // not asked for: nothing to refuse
    login(node, "127.0.0.1", null).close();
    assertThatThrownBy(() -> ReplicaNode.node(0, List.of(new InetSocketAddress("0.0.0.0", 0)),
        List.of(new InetSocketAddress("127.0.0.1", 1)), dir.resolve("open"), Timing.DEFAULT,
        Wal.COMPACT_BYTES, ConnectionPolicy.OPEN, line -> { }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no shared secret")
        .hasMessageContaining("--secret-file");
  }

  @Test
  void connectionsThatNeverLogInDoNotKeepARealPeerOut() throws Exception {
    SharedSecret secret = secret("s");
    ReplicaNode node = node(secret, new ConnectionLimits(16, Duration.ofMinutes(10), 4, 2,
        Duration.ofMinutes(10)));
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 6; i++) { // over every budget: 2 per address, 4 in all
        idle.add(openFrom(i % 2 == 0 ? "127.0.0.2" : "127.0.0.3", node));
      }
      assertThat(closedByNode(idle.get(0))).as("the oldest of 127.0.0.2, closed").isTrue();
      for (int i = 0; i < 3; i++) {
        login(node, "127.0.0.1", secret).close(); // each takes the place of an idle one
      }
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }

  @Test
  void aConnectionThatDoesNotLogInWithinTheDeadlineIsClosed() throws Exception {
    ReplicaNode node = node(secret("s"), new ConnectionLimits(16, Duration.ofMinutes(10), 16,
        8, Duration.ofMillis(300)));
    try (Socket slow = openFrom("127.0.0.1", node)) {
      assertThat(closedByNode(slow)).as("closed at its login deadline").isTrue();
    }
  }

  @Test
  void aFrameLargerThanAProofIsRefusedBeforeLogin() throws Exception {
    ReplicaNode node = node(secret("s"), new ConnectionLimits(16, Duration.ofMinutes(10), 16,
        8, Duration.ofMinutes(10)));
    try (Socket big = openFrom("127.0.0.1", node)) {
      OutputStream out = big.getOutputStream();
      out.write(new byte[] {0x00, 0x10, 0, 0}); // 1 MiB, within a frame's limit after login
      out.write(new byte[4096]);
      out.flush();
      assertThat(closedByNode(big)).as("closed at once, not read").isTrue();
    }
  }

  @Test
  void loggedInConnectionsOverTheCapAreRefusedWithADefiniteAnswer() throws Exception {
    SharedSecret secret = secret("s");
    ReplicaNode node = node(secret, new ConnectionLimits(2, Duration.ofMinutes(10), 16, 8,
        Duration.ofMinutes(10)));
    try (Socket a = login(node, "127.0.0.1", secret);
        Socket b = login(node, "127.0.0.1", secret)) {
      assertThatThrownBy(() -> login(node, "127.0.0.1", secret))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("at its limit of connections");
    }
    // both closed: their slots are free again, once the node has seen them go
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (true) {
      try {
        login(node, "127.0.0.1", secret).close();
        break;
      } catch (ConnectException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(10);
      }
    }
  }

  @Test
  void aPeerThatSendsOneByteAtATimeIsClosedAtTheLoginDeadline() throws Exception {
    ReplicaNode node = node(secret("s"), new ConnectionLimits(16, Duration.ofMinutes(10), 16,
        8, Duration.ofSeconds(1)));
    try (Socket slow = openFrom("127.0.0.1", node)) {
      OutputStream out = slow.getOutputStream();
      out.write(new byte[] {0, 0, 0, 64}); // a 64-byte frame, sent a byte at a time
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      boolean closed = false;
      for (int sent = 0; !closed && sent < 63 && System.nanoTime() < deadline; sent++) {
        try {
          out.write(7);
          out.flush();
          Thread.sleep(200); // slower than the login deadline allows: a trickle, never idle
        } catch (SocketException e) {
          closed = true;
        }
      }
      assertThat(closed || closedByNode(slow)).as("closed while it kept sending").isTrue();
    }
  }

  @Test
  void aLoggedInConnectionLeftIdleIsClosed() throws Exception {
    SharedSecret secret = secret("s");
    ReplicaNode node = node(secret, new ConnectionLimits(16, Duration.ofMillis(300)));
    try (Socket idle = login(node, "127.0.0.1", secret)) {
      assertThat(closedByNode(idle)).as("closed once idle past the idle timeout").isTrue();
    }
  }

  /**
   * Connections that never log in, from four addresses, each opened again as soon as the node
   * closes it, fill the login budget many times over while real peers from the same addresses
   * log in: none of them is refused, since the node makes room by closing the oldest connection
   * still logging in, and a peer closed that way is never one that sent its proof.
   */
  @Test
  void realLoginsFromFloodedAddressesAreNeverRefused() throws Exception {
    SharedSecret secret = secret("s");
    ReplicaNode node = node(secret, ConnectionLimits.DEFAULT);
    List<InetAddress> from = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      from.add(InetAddress.getByName("127.0.0." + (2 + i)));
    }
    try (LoginFlood flood = new LoginFlood(node.address(), from, 64)) {
      ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
      ExecutorService peers = Executors.newFixedThreadPool(from.size());
      try {
        List<Future<?>> done = new ArrayList<>();
        for (InetAddress a : from) {
          done.add(peers.submit(() -> {
            for (int i = 0; i < 10; i++) {
              String failed = PeerLogins.loginAsAClientDoes(a.getHostAddress(),
                  node.address(), secret, DEADLINE);
              if (failed != null) {
                refused.add(a + ": " + failed);
              }
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        peers.shutdownNow();
      }
      assertThat(refused).as("real logins refused of 40").isEmpty();
      assertThat(flood.closedByNode()).as("flood connections the node closed").isPositive();
    }
  }
}
