package io.partkit.kvstore.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.KvSecret;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
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
  void realLoginsFromFloodedAddressesAreNeverRefused() throws Exception {
    KvSecret secret = KvSecret.generate(dir.resolve("secret"));
    List<InetAddress> from = new ArrayList<>();
    for (int i = 0; i < ADDRESSES; i++) {
      from.add(InetAddress.getByName("127.0.0." + (2 + i)));
    }
    try (TcpKvNode node = TcpKvNode.start(NodeId.of("n1"), dir.resolve("n1"),
            new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE,
            ConnectionLimits.DEFAULT, secret);
        LoginFlood flood = new LoginFlood(node.address(), from, FLOOD_PER_ADDRESS)) {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (node.loggingIn() < ConnectionLimits.DEFAULT.maxUnauthenticated()
          && System.nanoTime() < deadline) {
        Thread.sleep(10); // waiting for the flood to fill the budget, within a deadline
      }
      assertThat(node.loggingIn()).as("the flood fills the login budget")
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
