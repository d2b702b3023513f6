package io.partkit.kvstore.node;

import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.replica.node.access.SharedSecret;
import io.partkit.spi.NodeId;
import io.partkit.test.support.LoginFlood;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures logins under a flood, a measurement rather than a test (no timing is asserted
 * anywhere): a node with the default limits, {@code flood} connections that never log in from
 * {@code addresses} loopback addresses (127.0.0.2 on), each opened again at once when the node
 * closes it, and {@code logins} real logins (a login and one STATUS request, 10 s to log in)
 * from the same addresses, one thread per address. Prints how many were refused and the
 * latency of the rest.
 *
 * <pre>
 * java -cp ... io.partkit.kvstore.node.LoginFloodMeasure [flood 2000] [addresses 8] [logins 400]
 * </pre>
 */
public final class LoginFloodMeasure {

  private LoginFloodMeasure() {}

  public static void main(String[] args) throws Exception {
    int flood = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int addresses = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int logins = args.length > 2 ? Integer.parseInt(args[2]) : 400;
    Path dir = Files.createTempDirectory("login-flood");
    SharedSecret secret = SharedSecret.generate(dir.resolve("secret"));
    List<InetAddress> from = new ArrayList<>();
    for (int i = 0; i < addresses; i++) {
      from.add(InetAddress.getByName("127.0.0." + (2 + i)));
    }
    try (TcpKvNode node = TcpKvNode.start(NodeId.of("n1"), dir.resolve("n1"),
            new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE,
            ConnectionLimits.DEFAULT, secret);
        LoginFlood f = new LoginFlood(node.address(), from, flood / addresses)) {
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
      long[] nanos = new long[logins];
      AtomicLong next = new AtomicLong();
      ExecutorService clients = Executors.newFixedThreadPool(addresses);
      List<Future<?>> done = new ArrayList<>();
      for (InetAddress a : from) {
        done.add(clients.submit(() -> {
          for (int i = (int) next.getAndIncrement(); i < logins;
              i = (int) next.getAndIncrement()) {
            long t0 = System.nanoTime();
            try (NodeConnection c =
                NodeConnection.open(node.address(), a, Duration.ofSeconds(10), secret)) {
              KvReply r = c.call(NodeConnection.request(Wire.STATUS, 0, 0).toBytes());
              if (r.status() != Status.OK) {
                refused.add(a + ": " + r);
              }
            } catch (IOException e) {
              refused.add(a + ": " + e.getMessage());
            }
            nanos[i] = System.nanoTime() - t0;
          }
          return null;
        }));
      }
      for (Future<?> d : done) {
        d.get();
      }
      clients.shutdown();
      double seconds = (System.nanoTime() - start) / 1e9;
      long closed = f.closedByNode() - closedBefore;
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      System.out.printf(Locale.ROOT, "flood %d connections from %d addresses (%.0f closed by the"
              + " node per second, %d evictions); %d real logins: %d refused, p50 %.1f ms,"
              + " p99 %.1f ms, max %.1f ms%n", flood, addresses, closed / seconds,
          node.loginEvictions() - evictionsBefore, logins, refused.size(),
          sorted[logins / 2] / 1e6, sorted[Math.min(logins - 1, logins * 99 / 100)] / 1e6,
          sorted[logins - 1] / 1e6);
      refused.stream().limit(5).forEach(r -> System.out.println("refused: " + r));
    }
  }
}
