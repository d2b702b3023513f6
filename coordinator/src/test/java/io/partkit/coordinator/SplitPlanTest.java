package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.HashSlots;
import io.partkit.spi.Member;
import io.partkit.spi.MembershipView;
import io.partkit.spi.Migration;
import io.partkit.spi.MigrationExecutor;
import io.partkit.spi.NodeId;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.Partitioner;
import io.partkit.spi.PartitionerConfig;
import io.partkit.spi.TokenRanges;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A scheme change that splits partitions: committed as metadata first, then moved. */
class SplitPlanTest {

  /** Each member's tokens: kept while it stays, so a join only splits ranges. */
  private static final Map<String, long[]> TOKENS = Map.of(
      "a", new long[] {-6_000_000_000_000_000_000L, 1_000_000_000_000_000_000L},
      "b", new long[] {-2_000_000_000_000_000_000L, 5_000_000_000_000_000_000L},
      "c", new long[] {-4_000_000_000_000_000_000L, 3_000_000_000_000_000_000L,
          8_000_000_000_000_000_000L});

  /** A ring strategy with fixed tokens per member, primary = the token's owner, one replica. */
  private static final Partitioner RING = new Partitioner() {
    @Override
    public String name() {
      return "test-ring";
    }

    @Override
    public PartitionerConfig config() {
      return PartitionerConfig.of();
    }

    @Override
    public int replicationFactor() {
      return 1;
    }

    @Override
    public PartitionAssignment place(MembershipView view, Optional<PartitionAssignment> prev,
        int replicas) {
      TreeMap<Long, NodeId> ring = new TreeMap<>();
      for (Member m : view.members()) {
        for (long t : TOKENS.get(m.id().value())) {
          ring.put(t, m.id());
        }
      }
      long[] tokens = ring.keySet().stream().mapToLong(Long::longValue).toArray();
      List<List<NodeId>> rows = ring.values().stream().map(List::of).toList();
      return PartitionAssignment.of(name(), 0, view.version(), TokenRanges.of(tokens), rows);
    }
  };

  private static MembershipView view(String... ids) {
    return MembershipView.of(ids.length, Stream.of(ids).map(Member::of).toList());
  }

  @Test
  void aJoinSplitsFirstThenMovesEachNewSubRange() {
    PartitionAssignment current = RING.assign(view("a", "b"), Optional.empty()).withEpoch(5);
    RebalancePlan plan = new RebalancePlanner(RING, 1, true)
        .plan(Optional.of(current), view("a", "b", "c"));
    PartitionAssignment raw = RING.assign(view("a", "b", "c"), Optional.of(current));
    PartitionAssignment split = RebalancePlanner.splitTable(current, raw);

    assertThat(split.epoch()).isEqualTo(6);
    assertThat(split.scheme()).isEqualTo(raw.scheme());
    TokenRanges ranges = (TokenRanges) split.scheme();
    for (int q = 0; q < split.partitionCount(); q++) {
      // each new range keeps the owner of the old range that holds it
      assertThat(split.primary(q)).as("new partition %d", q)
          .isEqualTo(current.primaryOfHash(ranges.token(q)));
    }
    assertThat(plan.migrations()).hasSize(3).allSatisfy(m -> {
      assertThat(m.target()).isEqualTo(NodeId.of("c"));
      assertThat(m.sourceReplicas()).isEqualTo(split.replicas(m.partition()));
      assertThat(raw.primary(m.partition())).isEqualTo(NodeId.of("c"));
    });
    assertThat(plan.migrations()).extracting(Migration::targetEpoch).containsExactly(7L, 8L, 9L);
    assertThat(plan.proposed().epoch()).isEqualTo(9);
    assertThat(plan.proposed().samePlacementAs(raw)).isTrue();
  }

  @Test
  void aLeaveMergesRangesAndIsRefusedNamingWhatIsSupported() {
    PartitionAssignment current = RING.assign(view("a", "b", "c"), Optional.empty());
    RebalancePlanner planner = new RebalancePlanner(RING, 2, true);
    assertThatThrownBy(() -> planner.plan(Optional.of(current), view("a", "b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("only when it splits partitions").hasMessageContaining("merge");
  }

  @Test
  void hashSlotsDoublingIsASplitAndARecutIsNot() {
    List<List<NodeId>> four = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      four.add(List.of(NodeId.of("n" + p)));
    }
    PartitionAssignment current = PartitionAssignment.of("t", 3, 1, HashSlots.of(4), four);
    PartitionAssignment eight = PartitionAssignment.of("t", 4, 1, HashSlots.of(8),
        java.util.Collections.nCopies(8, List.of(NodeId.of("x"))));
    PartitionAssignment split = RebalancePlanner.splitTable(current, eight);
    for (int q = 0; q < 8; q++) {
      assertThat(split.primary(q)).isEqualTo(NodeId.of("n" + q / 2));
    }
    PartitionAssignment six = PartitionAssignment.of("t", 4, 1, HashSlots.of(6),
        java.util.Collections.nCopies(6, List.of(NodeId.of("x"))));
    assertThatThrownBy(() -> RebalancePlanner.splitTable(current, six))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("spans old partitions");
  }

  /** Delegates to a recording executor and also records (and accepts) split preparations. */
  private static class SplittingExecutor implements MigrationExecutor.SplitsPartitions {
    final RecordingMigrationExecutor recording = new RecordingMigrationExecutor();
    final List<String> calls = new ArrayList<>();

    @Override
    public CompletionStage<Migration> migrate(Migration m) {
      synchronized (calls) {
        calls.add("migrate " + m.partition() + "@" + m.targetEpoch());
      }
      return recording.migrate(m);
    }

    @Override
    public CompletionStage<Void> activate(PartitionAssignment committed) {
      synchronized (calls) {
        calls.add("activate " + committed.epoch() + "/" + committed.partitionCount());
      }
      return recording.activate(committed);
    }

    @Override
    public CompletionStage<Migration> resume(Migration m, PartitionAssignment committed) {
      return recording.resume(m, committed);
    }

    @Override
    public CompletionStage<Void> prepareSplit(PartitionAssignment committed,
        PartitionAssignment split) {
      synchronized (calls) {
        calls.add("prepare " + committed.epoch() + "->" + split.epoch() + "/"
            + split.partitionCount());
      }
      return CompletableFuture.completedFuture(null);
    }
  }

  private static ClusterCoordinator coordinator(MetadataStore store, MigrationExecutor e) {
    return Coordinators.builder().store(store).partitioner(RING).clock(new ManualClock())
        .migrationExecutor(e).maxConcurrentMigrations(2).build();
  }

  @Test
  void theCoordinatorPreparesAndCommitsTheSplitBeforeTheWaves() {
    SplittingExecutor e = new SplittingExecutor();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.rebalance(); // epoch 1: 4 ranges
      c.join(Member.of("c"));
      RebalancePlan plan = c.rebalance();
      assertThat(plan.migrations()).extracting(Migration::targetEpoch)
          .containsExactly(3L, 3L, 4L);
      assertThat(e.calls).containsSubsequence("prepare 1->2/7", "activate 2/7",
          "activate 3/7", "activate 4/7");
      assertThat(e.calls.indexOf("prepare 1->2/7")).isLessThan(e.calls.indexOf("activate 2/7"));
      assertThat(e.calls.stream().filter(s -> s.startsWith("migrate")))
          .allSatisfy(s -> assertThat(e.calls.indexOf(s))
              .isGreaterThan(e.calls.indexOf("activate 2/7")));
      PartitionAssignment table = c.table().orElseThrow();
      assertThat(table.epoch()).isEqualTo(4);
      assertThat(table.samePlacementAs(RING.assign(view("a", "b", "c"), Optional.empty())))
          .isTrue();
    }
  }

  @Test
  void anExecutorThatCannotSplitLeavesTheTableAsItWasAndTheDryRunSaysSo() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor(); // no SplitsPartitions
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.rebalance();
      c.join(Member.of("c"));
      int activations = e.activated().size();
      assertThatThrownBy(c::plan).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot renumber partitions")
          .hasMessageContaining("SplitsPartitions");
      assertThatThrownBy(c::rebalance).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot renumber partitions")
          .hasMessageContaining("the table stays at epoch 1");
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(1);
      assertThat(c.table().orElseThrow().partitionCount()).isEqualTo(4);
      assertThat(e.migrated()).isEmpty();
      assertThat(e.activated()).as("nothing was fenced, so nothing to lift").hasSize(activations);
    }
  }

  @Test
  void aSplitThatTheExecutorFailsToPrepareIsLiftedAndLeavesTheTableAsItWas() {
    SplittingExecutor e = new SplittingExecutor() {
      @Override
      public CompletionStage<Void> prepareSplit(PartitionAssignment committed,
          PartitionAssignment split) {
        super.prepareSplit(committed, split);
        return CompletableFuture.failedFuture(new IllegalStateException("node n9 refused"));
      }
    };
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.rebalance();
      c.join(Member.of("c"));
      assertThatThrownBy(c::rebalance).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("could not prepare the split")
          .hasMessageContaining("node n9 refused");
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(1);
      assertThat(e.calls).containsSubsequence("prepare 1->2/7", "activate 1/4");
      assertThat(e.recording.migrated()).isEmpty();
    }
  }
}
