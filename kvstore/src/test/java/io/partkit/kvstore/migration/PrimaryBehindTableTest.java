package io.partkit.kvstore.migration;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.kvstore.wire.NodeConnection;
import io.partkit.kvstore.wire.Wire;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.TokenRanges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state a removal on suspicion can leave after a heal (seen in the harness's seed 3): the
 * coordinator committed epoch 2 (row unchanged), the primary could not move the backup it was to
 * keep and stayed at epoch 1, and that move landed later, so the backup is at epoch 2 and
 * refuses every write of its primary. Nothing is suspected any more (every backup answers), so
 * only the review's restore pass can see it: on real nodes, it brings the replicas to the row at
 * the table's epoch, and the partition serves again with every replica holding its writes.
 */
class PrimaryBehindTableTest {

  /** Also {@link RestorePassTest}'s: the same three nodes, the same row. */
  static final Duration TIMEOUT = Duration.ofSeconds(30);
  static final NodeId N1 = NodeId.of("n1");
  static final NodeId N2 = NodeId.of("n2");
  static final NodeId N3 = NodeId.of("n3");
  static final List<NodeId> ROW = List.of(N1, N2, N3);
  /** One partition, led by n1 with backups n2 and n3. */
  private static final PartitionAssignment T1 = PartitionAssignment.of("t", 1, 1,
      TokenRanges.of(0), List.of(ROW));
  private static final int P = 0;

  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static Map<NodeId, String> address(KvNode n1, KvNode n2, KvNode n3) {
    return Map.of(N1, n1.hostAndPort(), N2, n2.hostAndPort(), N3, n3.hostAndPort());
  }

  @Test
  void aBackupPastItsPrimaryBehindTheTableIsRepairedByRestore() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    try (KvNode n3 = KvNode.start(N3, dir.resolve("n3"), 0)) {
      try (KvNode n1 = KvNode.start(N1, dir.resolve("n1"), 0);
          KvNode n2 = KvNode.start(N2, dir.resolve("n2"), 0);
          KvMigrationExecutor executor = KvMigrationExecutor.builder()
              .addresses(address(n1, n2, n3)::get).nodes(address(n1, n2, n3)::keySet)
              .onEvent(events::add).build();
          KvNodeClient client = KvNodeClient.connect(n1.hostAndPort(), TIMEOUT)) {
        Map<NodeId, String> addresses = address(n1, n2, n3);
        executor.assignInitial(T1);
        assertThat(client.put(P, 1, b("k"), b("v1")).status()).isEqualTo(Status.OK);

        // the coordinator commits epoch 2; the primary's move of n2 lands after it gave up
        PartitionAssignment t2 = T1.withEpoch(2);
        try (NodeConnection c = NodeConnection.open(Wire.parseAddress(n2.hostAndPort()),
            TIMEOUT, null)) {
          KvReply moved = c.call(NodeConnection.request(Wire.CONFIGURE, P, 2)
              .i8(Wire.ROLE_BACKUP).toBytes());
          assertThat(moved.status()).isEqualTo(Status.OK);
        }
        assertThat(client.put(P, 2, b("k"), b("v2")).status())
            .as("n1, at epoch 1, cannot write: n2 refuses it").isNotEqualTo(Status.OK);
        assertThat(executor.suspectedReplicas(t2, addresses.keySet()))
            .as("no suspicion: every backup answers").isEmpty();

        // the review's pass with nothing suspected, until it sees every replica whole
        int notWhole = executor.restoreReplicas(t2);
        for (int pass = 0; notWhole > 0 && pass < 5; pass++) {
          notWhole = executor.restoreReplicas(t2);
        }
        assertThat(notWhole).as("every replica whole at the table's epoch").isZero();
        assertThat(events).as("the coordinator's line for the repair").anySatisfy(line ->
            assertThat(line).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"
                + " coordinator partition 0 epoch 2: RESTORE n2 is at epoch 2, past its primary"
                + " n1 at epoch 1: reconfiguring to the row \\[n1, n2, n3\\]: done"));
        assertThat(n1.status(P).state()).isEqualTo(PartitionState.OWNED);
        assertThat(n1.status(P).epoch()).isEqualTo(2);
        for (KvNode backup : List.of(n2, n3)) {
          assertThat(backup.status(P).state()).isEqualTo(PartitionState.BACKUP);
          assertThat(backup.status(P).epoch()).isEqualTo(2);
        }
        assertThat(client.put(P, 2, b("k"), b("v3")).status()).isEqualTo(Status.OK);
        assertThat(client.get(P, 2, b("k")).value()).isEqualTo(b("v3"));
      }
      // every replica of the row holds what was acknowledged: n3 alone serves it after a
      // failover to it (n1 and n2 are closed)
      new ReplicaAdmin(TIMEOUT, TIMEOUT, null).failOver(P, 3, n3.hostAndPort(),
          List.of(n3.hostAndPort()));
      try (KvNodeClient c3 = KvNodeClient.connect(n3.hostAndPort(), TIMEOUT)) {
        assertThat(c3.get(P, 3, b("k")).value()).isEqualTo(b("v3"));
      }
    }
  }
}
