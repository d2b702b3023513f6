package io.partkit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.spi.Member;
import io.partkit.spi.Migration;
import io.partkit.spi.PartitionAssignment;
import io.partkit.spi.PartitionLoads;
import io.partkit.spi.PartitionerConfig;
import io.partkit.stats.LoadStatistics;
import io.partkit.test.support.ManualClock;
import io.partkit.test.support.RecordingMigrationExecutor;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A load-aware rebalance through {@link ClusterCoordinator}: the embedded store, the recording
 * migration executor, waves of K, the dry run equal to the rebalance, and the next plans.
 */
class LoadAwareRebalanceTest {

  private final AtomicReference<PartitionLoads> measured = new AtomicReference<>();

  private ClusterCoordinator coordinator(MetadataStore store, RecordingMigrationExecutor e) {
    return Coordinators.builder().store(store)
        .strategy("test-table", PartitionerConfig.of("partitions", 12, "replicas", 1))
        .clock(new ManualClock()).migrationExecutor(e).maxConcurrentMigrations(2)
        .loadSource(table -> Optional.ofNullable(measured.get()))
        .build();
  }

  @Test
  void aSkewedLoadIsRebalancedInWavesOfKAndTheStrategyKeepsTheResult() {
    RecordingMigrationExecutor e = new RecordingMigrationExecutor();
    try (MetadataStore store = MetadataStores.embedded();
        ClusterCoordinator c = coordinator(store, e)) {
      c.join(Member.of("a"));
      c.join(Member.of("b"));
      c.join(Member.of("c"));
      RebalancePlan first = c.rebalance(); // 0-3 on a, 4-7 on b, 8-11 on c
      assertThat(first.load().orElseThrow().reason()).startsWith("no table in force yet");
      PartitionAssignment before = c.table().orElseThrow();
      double[] skew = new double[12];
      for (int p = 0; p < 12; p++) {
        // a carries 40 of 48
        skew[p] = before.primary(p).equals(io.partkit.spi.NodeId.of("a")) ? 10 : 1;
      }
      PartitionLoads loads = PartitionLoads.of(before.epoch(), skew);
      measured.set(loads);

      RebalancePlan dryRun = c.plan();
      assertThat(c.table().orElseThrow()).isEqualTo(before); // a dry run changes nothing
      RebalancePlan done = c.rebalance();

      LoadPlan load = done.load().orElseThrow();
      assertThat(load.applied()).as(load.reason()).isTrue();
      assertThat(done.migrations()).isEqualTo(dryRun.migrations()).hasSize(load.moves());
      assertThat(dryRun.load()).isEqualTo(done.load());
      assertThat(load.before().orElseThrow().maxOverMean()).isEqualTo(2.5);
      assertThat(load.after().orElseThrow().maxOverMean()).isLessThanOrEqualTo(22.0 / 16);
      // waves of at most K = 2, one epoch each, and the last one is the table in force
      List<List<Migration>> waves = RebalancePlanner.waves(done.migrations());
      assertThat(waves).allSatisfy(w -> assertThat(w).hasSizeLessThanOrEqualTo(2));
      assertThat(waves.size()).isGreaterThan(1);
      PartitionAssignment after = c.table().orElseThrow();
      assertThat(after.epoch()).isEqualTo(before.epoch() + waves.size());
      assertThat(after.samePlacementAs(done.proposed())).isTrue();
      assertThat(e.maxInFlight()).isLessThanOrEqualTo(2);
      assertThat(e.migrated()).containsExactlyElementsOf(done.migrations());
      assertThat(e.activated()).extracting(PartitionAssignment::epoch)
          .contains(after.epoch());
      // the figures are those of the committed table under the measured loads
      assertThat(LoadStatistics.of(after, loads, c.membership()).maxOverMean())
          .isEqualTo(load.after().orElseThrow().maxOverMean());
      // swaps only: each node keeps the four partitions the strategy gives it
      for (var n : c.membership().ids()) {
        assertThat(after.primaryPartitionsOf(n)).as("%s", n).hasSize(4);
      }

      // the loads now describe an older table: ignored, and the strategy keeps the moves
      RebalancePlan stale = c.plan();
      assertThat(stale.load().orElseThrow().reason()).contains("measured under epoch 1")
          .contains("the table in force is epoch " + after.epoch());
      assertThat(stale.isNoOp()).isTrue();

      // measured again under the new table: nothing left that an allowed move improves
      measured.set(PartitionLoads.of(after.epoch(), skew));
      RebalancePlan again = c.rebalance();
      assertThat(again.isNoOp()).as(again.load().orElseThrow().reason()).isTrue();
      assertThat(c.table().orElseThrow().epoch()).isEqualTo(after.epoch());
    }
  }

  @Test
  void theBuilderRejectsBadLoadSettingsWithTheirRange() {
    Coordinators.Builder b = Coordinators.builder();
    assertThatThrownBy(() -> b.maxLoadMoves(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxLoadMoves must be >= 1: 0");
    assertThatThrownBy(() -> b.loadImbalanceThreshold(0.9))
        .hasMessageContaining("a finite number >= 1.0: 0.9");
    assertThatThrownBy(() -> b.loadImbalanceThreshold(Double.NaN))
        .hasMessageContaining(">= 1.0: NaN");
    assertThatThrownBy(() -> b.loadSource(null)).isInstanceOf(NullPointerException.class);
  }
}
