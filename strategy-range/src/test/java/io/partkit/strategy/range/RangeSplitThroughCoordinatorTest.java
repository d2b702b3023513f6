package io.partkit.strategy.range;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.coordinator.ClusterCoordinator;
import io.partkit.coordinator.Coordinators;
import io.partkit.coordinator.MetadataStore;
import io.partkit.coordinator.MetadataStores;
import io.partkit.coordinator.RebalancePlan;
import io.partkit.spi.KeyRanges;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.Partitioners;
import io.partkit.stats.Movement;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key-range split from measured sizes goes through the coordinator like a token-ring join:
 * committed as metadata first (both halves where the range was, the executor asked to prepare
 * the renumbering), then one half moved by an ordinary migration, in the new numbering; the
 * tables are persisted in the embedded store's file and read back.
 */
class RangeSplitThroughCoordinatorTest {

  private static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The range strategy, fed the table {@link RangeSplits} makes of the committed one once sizes
   * were measured for it: what a coordinator with size-driven splits does.
   */
  private static final class SplittingRange implements Partitioner {
    private final Partitioner range = Partitioners.load().create("range",
        PartitionerConfig.of("split-points", "m"));
    private final RangeSplits splits = RangeSplits.of(100, Double.POSITIVE_INFINITY, 5);
    private volatile PartitionLoads sizes;
    private volatile List<byte[]> medians;

    @Override
    public String name() {
      return range.name();
    }

    @Override
    public PartitionerConfig config() {
      return range.config();
    }

    @Override
    public int replicationFactor() {
      return 1;
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> previous,
        int replicas) {
      Optional<PartitionAssignment> base = previous;
      PartitionLoads measured = sizes;
      if (previous.isPresent() && measured != null && measured.describes(previous.get())) {
        base = Optional.of(splits.plan(previous.get(), measured, medians).table());
      }
      return range.place(view, base, replicas);
    }
  }

  /** Records the calls in order and accepts split preparations, which the recorder cannot do. */
  private static final class SplittingExecutor implements MigrationExecutor.SplitsPartitions {
    final RecordingMigrationExecutor recording = new RecordingMigrationExecutor();
    final List<String> calls = new ArrayList<>();

    @Override
    public CompletionStage<Migration> migrate(Migration m) {
      record("migrate " + m.partition() + "@" + m.targetEpoch());
      return recording.migrate(m);
    }

    @Override
    public CompletionStage<Void> activate(PartitionAssignment committed) {
      record("activate " + committed.epoch() + "/" + committed.partitionCount());
      return recording.activate(committed);
    }

    @Override
    public CompletionStage<Migration> resume(Migration m, PartitionAssignment committed) {
      return recording.resume(m, committed);
    }

    @Override
    public CompletionStage<Void> prepareSplit(PartitionAssignment committed,
        PartitionAssignment split) {
      record("prepare " + committed.epoch() + "->" + split.epoch() + "/"
          + split.partitionCount());
      return CompletableFuture.completedFuture(null);
    }

    private void record(String call) {
      synchronized (calls) {
        calls.add(call);
      }
    }
  }

  @Test
  void aSplitIsCommittedAsMetadataAndOneHalfMovesAsAMigration(@TempDir Path dir) {
    SplittingRange range = new SplittingRange();
    SplittingExecutor e = new SplittingExecutor();
    Path file = dir.resolve("metadata");
    PartitionAssignment first;
    PartitionAssignment table;
    try (MetadataStore store = MetadataStores.embedded(file);
        ClusterCoordinator c = Coordinators.builder().store(store).partitioner(range)
            .clock(new ManualClock()).migrationExecutor(e).maxConcurrentMigrations(2).build()) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      first = c.rebalance().proposed(); // epoch 1: [, m) on a, [m, ) on b
      assertThat(first.replicaTable()).extracting(r -> r.get(0).value())
          .containsExactly("a", "b");
      c.join(Member.of("c"));
      // b's range [m, ) holds 500 keys with median "t": over the threshold of 100
      range.medians = Arrays.asList(null, k("t"));
      range.sizes = PartitionLoads.of(first.epoch(), new double[] {10, 500});

      RebalancePlan plan = c.rebalance();

      assertThat(e.calls).containsSubsequence("prepare 1->2/3", "activate 2/3", "migrate 2@3",
          "activate 3/3");
      assertThat(plan.migrations()).containsExactly(
          new Migration(2, NodeId.of("b"), NodeId.of("c"), 3));
      table = c.table().orElseThrow();
    }
    assertThat(table.epoch()).isEqualTo(3);
    assertThat(table.scheme()).isEqualTo(KeyRanges.of(k("m"), k("t")));
    assertThat(table.primaryOf("apple")).isEqualTo(NodeId.of("a"));
    assertThat(table.primaryOf("n")).isEqualTo(NodeId.of("b")); // the lower half stayed
    assertThat(table.primaryOf("zebra")).isEqualTo(NodeId.of("c")); // the upper half moved
    // the split table (epoch 2) moved nothing; the migration moved [t, ) only
    PartitionAssignment split = e.recording.activated().stream()
        .filter(t -> t.epoch() == 2).findFirst().orElseThrow();
    assertThat(split.replicaTable()).extracting(r -> r.get(0).value())
        .containsExactly("a", "b", "b");
    assertThat(Movement.between(first, split).primaryMovedShare()).isZero();
    assertThat(Movement.between(first, table).primaryMovedShare())
        .isEqualTo(KeyRanges.of(k("m"), k("t")).share(2));
    // persisted as key ranges and read back by a new coordinator on the same file
    try (MetadataStore store = MetadataStores.embedded(file);
        ClusterCoordinator c = Coordinators.builder().store(store).partitioner(range)
            .clock(new ManualClock()).build()) {
      assertThat(c.table()).hasValue(table);
    }
  }
}
