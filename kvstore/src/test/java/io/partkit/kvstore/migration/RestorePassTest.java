package io.partkit.kvstore.migration;

import static io.partkit.kvstore.migration.PrimaryBehindTableTest.N1;
import static io.partkit.kvstore.migration.PrimaryBehindTableTest.N2;
import static io.partkit.kvstore.migration.PrimaryBehindTableTest.N3;
import static io.partkit.kvstore.migration.PrimaryBehindTableTest.ROW;
import static io.partkit.kvstore.migration.PrimaryBehindTableTest.TIMEOUT;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.spi.HashSlots;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's restore pass after removals on suspicion whose backups their primaries still
 * cannot reach, while the coordinator can (the harness's cuts are between nodes): each failed
 * join costs the pass the primary's probe of the joiner (the suspicion deadline, 1 s), and the
 * review reads no suspicion while the pass runs. So a pass ends at its first failed join, and
 * the next pass goes on one partition further. Before, one pass tried every such backup in turn
 * (seen in the harness, seed 3: two of them held the review 2 s, and the suspicions of the next
 * cut were read only after it healed). Real nodes; the primary reaches the removed backup
 * through an address that accepts connections and never answers (as a cut, or a paused node,
 * does), while the executor's glances reach it directly.
 */
class RestorePassTest {

  /** Two partitions, each led by n1 with backups n2 and n3; epoch 2 after n3 was taken out. */
  private static final PartitionAssignment T2 = PartitionAssignment.of("t", 2, 1,
      HashSlots.of(2), List.of(ROW, ROW));

  @TempDir Path dir;

  @Test
  void aPassEndsAtItsFirstFailedJoinAndTheNextGoesOnFurther() throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    try (KvNode n1 = KvNode.start(N1, dir.resolve("n1"), 0);
        KvNode n2 = KvNode.start(N2, dir.resolve("n2"), 0);
        KvNode n3 = KvNode.start(N3, dir.resolve("n3"), 0);
        ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        KvNodeClient client = KvNodeClient.connect(n1.hostAndPort(), TIMEOUT)) {
      Map<NodeId, String> direct = Map.of(N1, n1.hostAndPort(), N2, n2.hostAndPort(), N3,
          n3.hostAndPort());
      ReplicaAdmin admin = new ReplicaAdmin(TIMEOUT, TIMEOUT, null);
      for (int p = 0; p < 2; p++) {
        admin.create(p, 1, n1.hostAndPort(), List.of(n2.hostAndPort(), n3.hostAndPort()));
        assertThat(client.put(p, 1, b("k"), b("v1")).status()).isEqualTo(Status.OK);
        // the removal on suspicion of n3 at epoch 2: n3 stays a backup of epoch 1
        admin.shrink(p, 2, n1.hostAndPort(), List.of(n2.hostAndPort()));
      }
      // what the primaries are told to reach n3 at: it accepts and never answers
      Map<NodeId, String> told = new ConcurrentHashMap<>(direct);
      told.put(N3, "127.0.0.1:" + silent.getLocalPort());
      try (NodeCalls calls = new NodeCalls(direct::get, TIMEOUT, TIMEOUT, TIMEOUT, null)) {
        ReplicaSuspicions suspicions = new ReplicaSuspicions(told::get,
            node -> calls.client(node, false), calls::glance, admin, p -> false, events::add);

        assertThat(suspicions.restore(T2)).as("n3 is whole in neither partition").isPositive();
        assertThat(failedJoins(events)).as("one failed join ends the pass: " + events)
            .containsExactly(0);
        assertThat(suspicions.restore(T2)).isPositive();
        assertThat(failedJoins(events)).as("the next pass starts further: " + events)
            .containsExactly(0, 1);

        // healed: n3 reachable, and joined again in both once their backoff has passed
        told.put(N3, n3.hostAndPort());
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (suspicions.restore(T2) > 0) {
          assertThat(System.nanoTime()).as("n3 joined again in both: " + events)
              .isLessThan(deadline);
          TimeUnit.MILLISECONDS.sleep(100); // polling a condition (the backoff is 1 s)
        }
        for (int p = 0; p < 2; p++) {
          assertThat(n3.status(p).state()).isEqualTo(PartitionState.BACKUP);
          assertThat(n3.status(p).epoch()).isEqualTo(2);
          assertThat(client.put(p, 2, b("k"), b("v2")).status()).isEqualTo(Status.OK);
        }
      }
    }
  }

  /** The partitions of the event lines that say a join failed, in order. */
  private static List<Integer> failedJoins(List<String> events) {
    return events.stream().filter(l -> l.contains(": RESTORE n3 not joined again"))
        .map(l -> Integer.parseInt(l.replaceFirst(".* partition (\\d+) epoch .*", "$1")))
        .toList();
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }
}
