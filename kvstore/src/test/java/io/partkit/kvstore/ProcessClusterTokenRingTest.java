package io.partkit.kvstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.kvstore.wire.KvReply;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.TokenRanges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token ring on the coordinator with data: three node processes and a coordinator process
 * with strategy {@code tokenring}, then a fourth node joins while client threads write. The
 * join adds tokens, so ranges split: the coordinator commits the split (the nodes renumber
 * their keys), then moves the joiner's new sub-ranges. Every acknowledged write must then be
 * readable at its final owner.
 */
class ProcessClusterTokenRingTest {

  private static final List<String> THREE = List.of("n1", "n2", "n3");
  private static final List<String> FOUR = List.of("n1", "n2", "n3", "n4");
  private static final String[] RING = {"--strategy", "tokenring", "--vnodes", "4"};

  @TempDir Path dir;

  @Test
  void aJoinSplitsRangesAndMovesTheJoinersSubRangesUnderLoad() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(dir, 0)) {
      cluster.startNodes(FOUR.toArray(String[]::new)); // n4 idles until it joins
      assertThat(cluster.coordinator(THREE, RING).await("DONE", 120)).isEqualTo("DONE 1");
      PartitionAssignment before = cluster.table();
      assertThat(before.scheme()).isInstanceOf(TokenRanges.class);
      assertThat(before.partitionCount()).isEqualTo(12);

      Map<String, String> acked;
      int indeterminate;
      try (KvClient client = cluster.client()) {
        ProcessWriters writers = new ProcessWriters(client, 3);
        writers.awaitAcks(200); // writing before the join...
        assertThat(cluster.coordinator(FOUR, RING).await("DONE", 180)).startsWith("DONE");
        acked = writers.stopAfter(300); // ...and after it
        indeterminate = writers.indeterminate.get();
      }

      PartitionAssignment after = cluster.table();
      assertThat(after.scheme()).isInstanceOf(TokenRanges.class);
      assertThat(after.partitionCount()).as("n4's tokens split ranges").isEqualTo(16);
      assertThat(after.primaryPartitionsOf(NodeId.of("n4"))).as("n4 owns sub-ranges").hasSize(4);
      assertThat(after.epoch()).as("the split, then at least one wave of moves")
          .isGreaterThanOrEqualTo(before.epoch() + 2);
      int moved = 0;
      try (KvClient reader = cluster.client()) {
        for (Map.Entry<String, String> e : acked.entrySet()) {
          byte[] key = e.getKey().getBytes(UTF_8);
          byte[] v = reader.get(key);
          assertThat(v == null ? null : new String(v, UTF_8))
              .as("acknowledged %s at its final owner %s", e.getKey(), after.primaryOf(key))
              .isEqualTo(e.getValue());
          NodeId old = before.primaryOf(key);
          if (old.equals(after.primaryOf(key)) || moved >= 20) {
            continue;
          }
          moved++;
          // a client still on the old table, old numbering, old owner: redirected, not applied
          try (KvNodeClient c = KvNodeClient.connect(cluster.address(old),
              Duration.ofSeconds(10))) {
            KvReply late = c.put(before.partitionOf(key), before.epoch(), key,
                "late".getBytes(UTF_8));
            assertThat(late.status()).as("a write of %s sent to its old owner %s", e.getKey(),
                old).isEqualTo(Status.REDIRECT);
            assertThat(late.epoch()).isGreaterThan(before.epoch());
          }
          assertThat(new String(reader.get(key), UTF_8)).isEqualTo(e.getValue());
        }
      }
      assertThat(moved).as("some acknowledged keys live in sub-ranges that moved").isPositive();
      System.out.printf("token ring: acknowledged %d writes (%d indeterminate), %d -> %d"
          + " ranges, table epoch %d -> %d%n", acked.size(), indeterminate,
          before.partitionCount(), after.partitionCount(), before.epoch(), after.epoch());
    }
  }
}
