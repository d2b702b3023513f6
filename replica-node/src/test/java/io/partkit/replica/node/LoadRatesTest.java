package io.partkit.replica.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LoadRatesTest {

  /** A load view of {@code counts}: partition, node, count, partition, node, count, ... */
  static SortedMap<Integer, SortedMap<Integer, Long>> view(long... counts) {
    TreeMap<Integer, SortedMap<Integer, Long>> v = new TreeMap<>();
    for (int i = 0; i < counts.length; i += 3) {
      v.computeIfAbsent((int) counts[i], p -> new TreeMap<>()).put((int) counts[i + 1],
          counts[i + 2]);
    }
    return v;
  }

  static final long SECOND = 1_000_000_000L;

  @Test
  void ratesAreTheRequestsEachPartitionsPrimariesAnsweredASecond() {
    LoadRates.Sample before = new LoadRates.Sample(SECOND, view(0, 1, 100, 1, 2, 50));
    LoadRates.Sample after = new LoadRates.Sample(3 * SECOND, view(0, 1, 300, 1, 2, 50, 2, 0, 9));
    assertThat(LoadRates.between(before, after, 3)).containsExactly(100.0, 0.0, 0.0);
  }

  @Test
  void aPrimaryThatMovedCountsOnBothNodesAndARestartedOneCountsFromZero() {
    // partition 0 moved from node 1 to node 2 within the window; node 3 restarted
    LoadRates.Sample before = new LoadRates.Sample(0, view(0, 1, 100, 0, 2, 10, 1, 3, 500));
    LoadRates.Sample after = new LoadRates.Sample(SECOND, view(0, 1, 130, 0, 2, 40, 1, 3, 20));
    assertThat(LoadRates.between(before, after, 2)).containsExactly(60.0, 20.0);
  }

  @Test
  void partitionsPastTheTableAreLeftOutAndTimeMustMoveOn() {
    LoadRates.Sample before = new LoadRates.Sample(0, view(7, 0, 1));
    LoadRates.Sample after = new LoadRates.Sample(SECOND, view(7, 0, 9));
    assertThat(LoadRates.between(before, after, 2)).containsExactly(0.0, 0.0);
    assertThatThrownBy(() -> LoadRates.between(after, before, 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not after");
  }
}
