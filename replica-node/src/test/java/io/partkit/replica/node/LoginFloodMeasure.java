package io.partkit.replica.node;

import io.partkit.replica.Timing;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.test.support.LatencySamples;
import io.partkit.test.support.LoginFlood;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures logins under a flood, a measurement rather than a test (no timing is asserted
 * anywhere): a replica node with a secret and the default limits, {@code flood} connections
 * that never log in from {@code addresses} loopback addresses (127.0.0.2 on), each opened again
 * at once when the node closes it, and {@code logins} real logins from the same addresses, one
 * thread per address, each opened again when the node closes it before answering, after a
 * pause of 1 ms doubling to 50 ms, for 10 s (a peer whose connection was closed without an
 * answer tries again). Prints how many were refused and the
 * latency of the rest.
 *
 * <pre>
 * java -cp ... io.partkit.replica.node.LoginFloodMeasure flood=2000 addresses=8 logins=2000
 * </pre>
 */
public final class LoginFloodMeasure {

  private static final Duration DEADLINE = Duration.ofSeconds(10);

  private LoginFloodMeasure() {}

  public static void main(String[] args) throws Exception {
    int flood = LatencySamples.arg(args, "flood", 2000);
    int addresses = LatencySamples.arg(args, "addresses", 8);
    int logins = LatencySamples.arg(args, "logins", 2000);
    Path dir = Files.createTempDirectory("login-flood");
    SharedSecret secret = SharedSecret.generate(dir.resolve("secret"));
    List<InetAddress> from = new ArrayList<>();
    for (int i = 0; i < addresses; i++) {
      from.add(InetAddress.getByName("127.0.0." + (2 + i)));
    }
    // its control is nowhere: the node's link to it fails and retries, which is no matter here
    ReplicaNode node = ReplicaNode.node(0, List.of(new InetSocketAddress("127.0.0.1", 0)),
        List.of(new InetSocketAddress("127.0.0.1", ReplicaClusterTest.freePort())),
        dir.resolve("data"), Timing.DEFAULT, Wal.COMPACT_BYTES,
        new ConnectionPolicy(secret, ConnectionLimits.DEFAULT), line -> { },
        (why, status) -> {
          throw new IllegalStateException("the node stopped: " + why);
        });
    try (LoginFlood f = new LoginFlood(node.address(), from, flood / addresses)) {
      long fillDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (node.loggingIn() < ConnectionLimits.DEFAULT.maxUnauthenticated()
          && System.nanoTime() < fillDeadline) {
        Thread.sleep(10);
      }
      Thread.sleep(2000); // the flood at full churn before the first login
      long closedBefore = f.closedByNode();
      long evictionsBefore = node.loginEvictions();
      long start = System.nanoTime();
      ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
      LatencySamples latencies = new LatencySamples();
      AtomicInteger next = new AtomicInteger();
      ExecutorService peers = Executors.newFixedThreadPool(addresses);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (InetAddress a : from) {
          done.add(peers.submit(() -> {
            while (next.getAndIncrement() < logins) {
              long t0 = System.nanoTime();
              String failed = PeerLogins.loginAsAClientDoes(a.getHostAddress(), node.address(),
                  secret, DEADLINE);
              if (failed == null) {
                latencies.add(System.nanoTime() - t0);
              } else {
                refused.add(a.getHostAddress() + ": " + failed);
              }
            }
            return null;
          }));
        }
        for (Future<?> d : done) {
          d.get();
        }
      } finally {
        peers.shutdownNow();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("flood %d connections from %d addresses; %d logins in %.1f s%n", flood,
          addresses, logins, seconds);
      System.out.printf("refused %d%s%n", refused.size(),
          refused.isEmpty() ? "" : " (first: " + refused.peek() + ")");
      System.out.println("logged in: " + latencies.summary());
      System.out.printf("flood connections the node closed: %d; logins evicted: %d%n",
          f.closedByNode() - closedBefore, node.loginEvictions() - evictionsBefore);
    } finally {
      node.close();
    }
  }
}
