package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A key's first turn, and the steps before its reduction, grow with the key: four steps per
 * event, so that a key of the 1,000 in the long keyed history (about 1,500 events, decided in
 * 0.9 to 6 steps per event) is decided in its first turn; never fewer than the 1,024 steps that
 * small histories were tuned with, never more than 65,536 however long the key.
 */
class ReduceAfterTest {
  @Test
  void smallKeysKeepTheStepsTheSmallCorpusWasTunedWith() {
    assertThat(Linearizability.reduceAfter(0)).isEqualTo(Linearizability.REDUCE_AFTER);
    assertThat(Linearizability.reduceAfter(100)).isEqualTo(1024);
    assertThat(Linearizability.reduceAfter(256)).isEqualTo(1024);
  }

  @Test
  void aKeyOfIssue22sLongHistoryGetsFourStepsPerEvent() {
    assertThat(Linearizability.reduceAfter(257)).isEqualTo(1028);
    assertThat(Linearizability.reduceAfter(1_500)).isEqualTo(6_000);
  }

  @Test
  void aVeryLongKeyIsReducedAfterAtMost65536Steps() {
    assertThat(Linearizability.reduceAfter(16_384)).isEqualTo(65_536);
    assertThat(Linearizability.reduceAfter(2_000_000)).isEqualTo(65_536);
    assertThat(Linearizability.reduceAfter(Long.MAX_VALUE / 2)).isEqualTo(65_536);
  }
}
