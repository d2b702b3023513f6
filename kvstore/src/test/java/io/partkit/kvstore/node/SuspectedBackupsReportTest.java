package io.partkit.kvstore.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.partkit.kvstore.migration.ReplicaAdmin;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.SuspectsReport;
import io.partkit.kvstore.wire.TcpNodeClient;
import io.partkit.kvstore.wire.Wire;
import io.partkit.replica.node.access.ConnectionLimits;
import io.partkit.spi.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary's request to take out a backup it cannot reach (SUSPECTS), on real nodes over TCP:
 * a write or a read's CONFIRM that goes unanswered names the backup, a backup that answers (even
 * with a refusal) is not named, and a new configuration starts with no suspicion.
 */
class SuspectedBackupsReportTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final int P = 3;

  @TempDir Path dir;
  @RegisterExtension final TestNodes nodes = new TestNodes(() -> dir);
  private final ReplicaAdmin admin = new ReplicaAdmin(TIMEOUT, TIMEOUT, null);

  private static Map<Integer, List<String>> suspects(TcpNodeClient c) throws IOException {
    KvReply reply = c.admin(Wire.SUSPECTS, 0, 0);
    assertThat(reply.status()).isEqualTo(Status.OK);
    return SuspectsReport.of(reply).byPartition();
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void aWriteThatABackupDoesNotAnswerNamesItUntilANewConfiguration() throws IOException {
    KvNode a = nodes.start("a");
    KvNode b = nodes.start("b");
    KvNode c = nodes.start("c");
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = TestNodes.client(a)) {
      assertThat(ca.put(P, 1, b("k"), b("v1")).status()).isEqualTo(Status.OK);
      assertThat(suspects(ca)).as("every backup answered").isEmpty();
      c.close(); // gone: its connections are refused
      assertThat(ca.put(P, 1, b("k"), b("v2")).status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(suspects(ca)).isEqualTo(Map.of(P, List.of(c.hostAndPort())));

      // what the coordinator does on that report: the next epoch without c
      admin.reconfigure(P, 2, List.of(a.hostAndPort(), b.hostAndPort(), c.hostAndPort()),
          List.of(a.hostAndPort(), b.hostAndPort()));
      assertThat(suspects(ca)).as("a new configuration starts with no suspicion").isEmpty();
      assertThat(ca.put(P, 2, b("k"), b("v3")).status()).isEqualTo(Status.OK);
      assertThat(ca.get(P, 2, b("k")).value()).isEqualTo(b("v3"));
    }
    assertThat(b.status(P).epoch()).isEqualTo(2);
  }

  @Test
  void aReadWhoseConfirmGoesUnansweredNamesTheBackupARefusalDoesNot() throws IOException {
    KvNode a = nodes.start("a");
    KvNode b = nodes.start("b");
    KvNode c = nodes.start("c");
    admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
    try (TcpNodeClient ca = TestNodes.client(a)) {
      assertThat(ca.put(P, 1, b("k"), b("v")).status()).isEqualTo(Status.OK);
      c.close();
      assertThat(ca.get(P, 1, b("k")).status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(suspects(ca)).isEqualTo(Map.of(P, List.of(c.hostAndPort())));
    }

    KvNode d = nodes.start("d");
    KvNode e = nodes.start("e");
    admin.create(P + 1, 1, d.hostAndPort(), List.of(e.hostAndPort()));
    // e moves on to a newer epoch (a failover elsewhere): it answers d's CONFIRM with a refusal
    admin.failOver(P + 1, 2, e.hostAndPort(), List.of(e.hostAndPort()));
    try (TcpNodeClient cd = TestNodes.client(d)) {
      assertThat(cd.get(P + 1, 1, b("k")).status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(suspects(cd)).as("a backup that answers is not suspected").isEmpty();
    }
  }

  @Test
  void aPrimaryStartedWithAShortReplicaTimeoutSuspectsABackupThatHangsAfterThatTimeout()
      throws Exception {
    Duration shortTimeout = Duration.ofMillis(300);
    KvNode a = TcpKvNode.start(NodeId.of("a"), dir.resolve("a"),
        new InetSocketAddress("127.0.0.1", 0), UnsafeTestFault.NONE, ConnectionLimits.DEFAULT,
        null, new SimpleMeterRegistry(), shortTimeout);
    KvNode b = nodes.start("b");
    KvNode c = nodes.start("c");
    try (a) {
      admin.create(P, 1, a.hostAndPort(), List.of(b.hostAndPort(), c.hostAndPort()));
      try (TcpNodeClient ca = TestNodes.client(a)) {
        assertThat(ca.put(P, 1, b("k"), b("v1")).status()).isEqualTo(Status.OK);
        String cAddress = c.hostAndPort();
        int port = Integer.parseInt(cAddress.substring(cAddress.lastIndexOf(':') + 1));
        c.close();
        // c's port now accepts and never answers: a backup that hangs, not one that refuses
        try (ServerSocket hung = new ServerSocket()) {
          hung.setReuseAddress(true);
          hung.bind(new InetSocketAddress("127.0.0.1", port));
          KvReply put = ca.put(P, 1, b("k"), b("v2")); // the client waits up to 20 s
          assertThat(put.status()).isEqualTo(Status.UNAVAILABLE);
          if (!put.message().contains(" in time (")) {
            // the primary's pooled connection to the closed c was broken: that call failed at
            // once, without a suspicion that stops the next one; the next connects to the port
            put = ca.put(P, 1, b("k"), b("v2"));
            assertThat(put.status()).isEqualTo(Status.UNAVAILABLE);
          }
          assertThat(put.message()).as("the node's own timeout, not the default's, ran out")
              .contains(c.hostAndPort() + " did not answer in time (" + shortTimeout.toMillis()
                  + " ms)");
          assertThat(suspects(ca)).isEqualTo(Map.of(P, List.of(c.hostAndPort())));
        }
      }
    }
  }
}
