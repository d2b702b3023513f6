package io.partkit.harness.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which replica index moves make a member receive a copy of a partition's data. */
class ReceivedCopiesTest {

  @Test
  void aMemberReceivesACopyOnlyWhenItNowHoldsDataItDidNotHold() {
    int backups = 1; // indexes 0 and 1 carry the data
    assertThat(ReceivedCopies.createsCopy(-1, 0, backups)).as("new primary").isTrue();
    assertThat(ReceivedCopies.createsCopy(-1, 1, backups)).as("new backup").isTrue();
    assertThat(ReceivedCopies.createsCopy(2, 1, backups)).as("up from a dataless index").isTrue();
    assertThat(ReceivedCopies.createsCopy(1, 0, backups)).as("backup to primary").isFalse();
    assertThat(ReceivedCopies.createsCopy(0, 1, backups)).as("primary to backup").isFalse();
    assertThat(ReceivedCopies.createsCopy(-1, 3, backups)).as("a dataless index").isFalse();
    assertThat(ReceivedCopies.createsCopy(4, 2, backups)).as("between dataless ones").isFalse();
  }
}
