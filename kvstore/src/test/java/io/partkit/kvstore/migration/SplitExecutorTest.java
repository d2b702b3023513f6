package io.partkit.kvstore.migration;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.kvstore.PartitionState;
import io.partkit.kvstore.client.KvClient;
import io.partkit.kvstore.node.KvNode;
import io.partkit.kvstore.wire.KvNodeClient;
import io.partkit.kvstore.wire.KvReply.Status;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.TokenRanges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor's side of a split, with the coordinator's crashes played by hand: a split
 * prepared but never committed is aborted by the next activation of the old table; one
 * committed but not activated is applied by a new executor's activation (the next leader).
 */
class SplitExecutorTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  /** n1 owns (MIN, -2^62] and the wrap-around above 2^62, n2 (-2^62, 2^62]. */
  private static final PartitionAssignment OLD = PartitionAssignment.of("t", 1, 1,
      TokenRanges.of(-(1L << 62), 1L << 62), List.of(List.of(N1), List.of(N2)));
  /** Each range cut in two, the old owners kept: the coordinator's split table. */
  private static final PartitionAssignment SPLIT = PartitionAssignment.of("t", 2, 2,
      TokenRanges.of(-(1L << 62), 0, 1L << 62, Long.MAX_VALUE),
      List.of(List.of(N1), List.of(N2), List.of(N2), List.of(N1)));

  @TempDir Path dir;

  private static void await(java.util.concurrent.CompletionStage<?> stage) throws Exception {
    stage.toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  private void run(boolean commit) throws Exception {
    try (KvNode n1 = KvNode.start(N1, dir.resolve("n1"), 0);
        KvNode n2 = KvNode.start(N2, dir.resolve("n2"), 0)) {
      Map<NodeId, String> addresses = Map.of(N1, n1.hostAndPort(), N2, n2.hostAndPort());
      AtomicReference<PartitionAssignment> table = new AtomicReference<>(OLD);
      KvMigrationExecutor first = KvMigrationExecutor.builder().addresses(addresses::get)
          .nodes(addresses::keySet).build();
      first.assignInitial(OLD);
      try (KvClient client = KvClient.builder().tables(table::get).addresses(addresses::get)
          .retryBudget(TIMEOUT).build()) {
        for (int i = 0; i < 100; i++) {
          client.put(("k" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8));
        }
        await(first.prepareSplit(OLD, SPLIT));
        byte[] k0 = "k0".getBytes(UTF_8);
        try (KvNodeClient c = KvNodeClient.connect(addresses.get(OLD.primaryOf(k0)),
            TIMEOUT)) {
          assertThat(c.get(OLD.partitionOf(k0), OLD.epoch(), k0).status())
              .as("fenced once prepared").isEqualTo(Status.MOVING);
        }
        first.close(); // the coordinator dies here (before or after its commit)
        KvMigrationExecutor next = KvMigrationExecutor.builder().addresses(addresses::get)
            .nodes(addresses::keySet).build();
        try (next) {
          if (commit) {
            await(next.activate(SPLIT)); // committed: the next leader activates it
            table.set(SPLIT);
          } else {
            await(next.activate(OLD)); // never committed: the next leader activates the old
          }
          PartitionAssignment now = table.get();
          for (int q = 0; q < now.partitionCount(); q++) {
            assertThat(n1.status(q).state() == PartitionState.OWNED)
                .as("partition %d on n1 in %s numbering", q, commit ? "the new" : "the old")
                .isEqualTo(now.primary(q).equals(N1));
          }
          for (int i = 0; i < 100; i++) {
            assertThat(client.get(("k" + i).getBytes(UTF_8))).isEqualTo(("v" + i)
                .getBytes(UTF_8));
          }
          client.put(k0, "after".getBytes(UTF_8));
          assertThat(client.get(k0)).isEqualTo("after".getBytes(UTF_8));
        }
      }
    }
  }

  @Test
  void aSplitPreparedButNeverCommittedIsAbortedByTheNextActivation() throws Exception {
    run(false);
  }

  @Test
  void aSplitCommittedButNotActivatedIsAppliedByTheNextLeader() throws Exception {
    run(true);
  }

  @Test
  void aClientOnTheOldTableIsRedirectedAndRefreshes() throws Exception {
    try (KvNode n1 = KvNode.start(N1, dir.resolve("n1"), 0);
        KvNode n2 = KvNode.start(N2, dir.resolve("n2"), 0);
        KvMigrationExecutor executor = KvMigrationExecutor.builder()
            .addresses(Map.of(N1, n1.hostAndPort(), N2, n2.hostAndPort())::get).build()) {
      Map<NodeId, String> addresses = Map.of(N1, n1.hostAndPort(), N2, n2.hostAndPort());
      executor.assignInitial(OLD);
      AtomicReference<PartitionAssignment> store = new AtomicReference<>(OLD);
      try (KvClient old = KvClient.builder().tables(store::get).addresses(addresses::get)
          .retryBudget(TIMEOUT).build()) {
        old.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));
        await(executor.prepareSplit(OLD, SPLIT));
        store.set(SPLIT); // the commit
        await(executor.activate(SPLIT));
        assertThat(old.tableEpoch()).as("the client still holds the old table").isEqualTo(1);
        assertThat(old.get("k".getBytes(UTF_8))).isEqualTo("v".getBytes(UTF_8));
        assertThat(old.tableEpoch()).as("redirected, it refreshed").isEqualTo(2);
      }
    }
  }
}
