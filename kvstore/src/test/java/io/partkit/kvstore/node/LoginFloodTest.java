package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.spi.NodeId;
import io.partkit.test.support.LoginFlood;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections that never log in, from several addresses, each opened again as soon as the node
 * closes it, fill the login budget (128 in all, 32 per address) many times over while real
 * clients from the same addresses log in: none of them is refused. The node makes room by
 * closing the oldest connection still logging in rather than the new one, and a client whose
 * login was closed that way logs in again (on the earlier code 26 of 28 logins were refused by
 * four such addresses).
 */
class LoginFloodTest {

  /** Generous: a busy, shared machine; no timing is asserted. */
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final int ADDRESSES = 4;
  private static final int FLOOD_PER_ADDRESS = 64; // 256: over both budgets
  private static final int LOGINS_PER_ADDRESS = 10;

  @TempDir Path dir;

  @Test
  void aRestartedBackupUnderTheFloodIsLevelledAndItsPrimaryServesEveryWrite() throws Exception {
    SharedSecret secret = SharedSecret.generate(dir.resolve("secret"));
    // the nodes and the client come from 127.0.0.1 too: the flood shares their address
    List<InetAddress> from = new ArrayList<>();
    for (int i = 0; i < ADDRESSES; i++) {
      from.add(InetAddress.getByName("127.0.0." + (1 + i)));
    }
    int partition = 7;
    ReplicaAdmin admin = new ReplicaAdmin(DEADLINE, DEADLINE, secret);
    try (TcpKvNode a = TcpKvNode.start(NodeId.of("a"), dir.resolve("a"),
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        secret)) {
      TcpKvNode b = TcpKvNode.start(NodeId.of("b"), dir.resolve("b"),
          new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
          secret);
      InetSocketAddress bAddress = b.address();
      try {
        admin.create(partition, 1, a.hostAndPort(), List.of(b.hostAndPort()));
        try (TcpNodeClient c = new TcpNodeClient(a.address(), DEADLINE, secret)) {
          for (int i = 0; i < 20; i++) {
            assertThat(c.put(partition, 1, b("k" + i), new byte[] {1}).status())
                .isEqualTo(Status.OK);
          }
        }
      } finally {
        b.close();
      }
      // b restarts with its copy, and the flood arrives with it: a's replica link to b must
      // log in again among connections that never do
      try (TcpKvNode b2 = TcpKvNode.start(NodeId.of("b"), dir.resolve("b"), bAddress,
              UnsafeTestFault.NONE, ConnectionLimits.DEFAULT, secret);
          LoginFlood flood = new LoginFlood(bAddress, from, FLOOD_PER_ADDRESS)) {
        assertThat(mostLoggingIn(b2)).as("the flood fills b's login budget")
            .isEqualTo(ConnectionLimits.DEFAULT.maxUnauthenticated());
        List<String> notOk = new ArrayList<>();
        try (TcpNodeClient c = new TcpNodeClient(a.address(), DEADLINE, secret)) {
          // The first write after b's restart meets a's connection to b's previous process and
          // fails on it with or without a flood (UNAVAILABLE, "closed the connection"): that one
          // is not a login's doing. Every later write logs a's link in again, under the flood.
          KvReply first = c.put(partition, 1, b("k20"), new byte[] {1});
          if (first.status() != Status.OK) {
            assertThat(first.message()).as("the first write after b's restart")
                .contains("closed the connection");
          }
          for (int i = 21; i < 40; i++) {
            KvReply r = c.put(partition, 1, b("k" + i), new byte[] {1});
            if (r.status() != Status.OK) {
              notOk.add("k" + i + ": " + r);
            }
          }
        }
        assertThat(notOk).as("writes through a primary whose backup is flooded").isEmpty();
        assertThat(b2.status(partition).state()).isEqualTo(PartitionState.BACKUP);
        assertThat(b2.status(partition).keys()).as("b levelled with every write of a")
            .isEqualTo(a.status(partition).keys()).isGreaterThanOrEqualTo(39);
        assertThat(flood.closedByNode()).as("flood connections b closed").isGreaterThan(0);
      }
    }
  }

  /**
   * Waits (within the deadline) for the flood to fill the node's login budget: the most
   * connections seen logging in at once. The most, as a slot the login deadline frees is taken
   * again by the flood at once, but may be seen free at that instant.
   */
  private static int mostLoggingIn(TcpKvNode node) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    int most = node.loggingIn();
    while (most < ConnectionLimits.DEFAULT.maxUnauthenticated()
        && System.nanoTime() < deadline) {
      Thread.sleep(10); // waiting for a condition, within a deadline
      most = Math.max(most, node.loggingIn());
    }
    return most;
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void realLoginsFromFloodedAddressesAreNeverRefused() throws Exception {
    SharedSecret secret = SharedSecret.generate(dir.resolve("secret"));
    List<InetAddress> from = new ArrayList<>();
    for (int i = 0; i < ADDRESSES; i++) {
      from.add(InetAddress.getByName("127.0.0." + (2 + i)));
    }
    try (TcpKvNode node = TcpKvNode.start(NodeId.of("n1"), dir.resolve("n1"),
            new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE,
            ConnectionLimits.DEFAULT, secret);
        LoginFlood flood = new LoginFlood(node.address(), from, FLOOD_PER_ADDRESS)) {
      assertThat(mostLoggingIn(node)).as("the flood fills the login budget")
          .isEqualTo(ConnectionLimits.DEFAULT.maxUnauthenticated());

      ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
      ExecutorService clients = Executors.newFixedThreadPool(ADDRESSES);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (InetAddress a : from) {
          done.add(clients.submit(() -> {
            for (int i = 0; i < LOGINS_PER_ADDRESS; i++) {
              try (NodeConnection c = NodeConnection.open(node.address(), a, DEADLINE, secret)) {
                KvReply r = c.call(NodeConnection.request(Wire.STATUS, 0, 0).toBytes());
                if (r.status() != Status.OK) {
                  refused.add(a + ": " + r);
                }
              } catch (IOException e) {
                refused.add(a + ": " + e.getMessage());
              }
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        clients.shutdownNow();
      }
      assertThat(refused).as("real logins refused of " + ADDRESSES * LOGINS_PER_ADDRESS)
          .isEmpty();
      assertThat(flood.closedByNode()).as("flood connections the node closed")
          .isGreaterThan(0);
    }
  }
}
