package io.partkit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.partkit.bench.BenchResult.LookupRow;
import org.junit.jupiter.api.Test;

/** How a lookup row summarizes its rounds, and when it is flagged. */
class LookupRowTest {

  @Test
  void theRatioIsTheMedianOfPerRoundRatiosSoLoadBetweenRoundsCancels() {
    // the machine got 10x slower from round 2 on: both figures of a round slow down together
    LookupRow row = LookupRow.of("fixed", 100, new double[] {12, 120, 121, 119, 120},
        new double[] {10, 100, 101, 99, 100}, "test");
    assertThat(row.ratio()).isCloseTo(1.2, within(0.01));
    assertThat(row.ratioMax() - row.ratioMin()).isLessThan(0.05);
    assertThat(row.nanosPerLookup()).isEqualTo(120);
    assertThat(row.lookupMin()).isEqualTo(12);
    assertThat(row.lookupMax()).isEqualTo(121);
    assertThat(row.bareHashMin()).isEqualTo(10);
    assertThat(row.rounds()).isEqualTo(5);
    assertThat(row.flagged()).as(row.flags()).isFalse();
  }

  @Test
  void roundsThatDisagreeBeyondTheLimitAreFlagged() {
    LookupRow row = LookupRow.of("tokenring-random", 1000, new double[] {20, 30, 60},
        new double[] {10, 10, 10}, "test");
    assertThat(row.ratio()).isEqualTo(3.0);
    assertThat(row.flagged()).isTrue();
    assertThat(row.flags()).contains("rounds disagree: ratio spread 133% > 20%");
  }

  @Test
  void aLookupFasterThanTheBareHashIsFlaggedAsAnArtifact() {
    LookupRow row = LookupRow.of("rendezvous-bounded", 1000, new double[] {6.2, 6.3, 6.1},
        new double[] {10, 10, 10}, "test");
    assertThat(row.flags()).contains("faster than the bare hash (0.62x)")
        .doesNotContain("disagree");
  }
}
