package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Drain;
import io.partkit.replica.Message.Drained;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Suspect;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The coordinator's decisions alone, on a clock the test moves. */
class ControlTest {

  private final Control control = new Control(Timing.DEFAULT, 1, 3, List.of(0, 1, 2, 3));
  private long now;
  /** What the control sent, in order. */
  private final List<Envelope> sent = new java.util.ArrayList<>();

  /** Every node in {@code up} answers a heartbeat holding what the table says it holds. */
  private void beat(Set<Integer> up) {
    for (int n : up) {
      Configure c = control.configuration(0);
      Map<Integer, Long> held = c.members().contains(n) ? Map.of(0, c.epoch()) : Map.of();
      control.step(new Envelope(n, Control.ID, new Pong(0, held)));
    }
  }

  private void advance(long millis, Set<Integer> up) {
    for (long t = 0; t < millis; t += 10) {
      now += 10;
      beat(up);
      control.tick(now);
      sent.addAll(control.ready().messages());
    }
  }

  private void levelled() {
    Configure c = control.configuration(0);
    control.step(new Envelope(c.primary(), Control.ID, new Levelled(0, c.epoch())));
  }

  @Test
  void aDownPrimaryIsReplacedByALevelBackupOnly() {
    assertThat(control.configuration(0).members()).containsExactly(0, 1, 2);
    advance(100, Set.of(0, 1, 2, 3)); // the nodes hold nothing yet: nobody is level
    assertThat(control.levelMembers(0)).containsExactly(0, 1, 2); // they report the epoch
    advance(Timing.DEFAULT.downMillis() + 50, Set.of(1, 2, 3));
    Configure c = control.configuration(0);
    assertThat(c.primary()).isEqualTo(1);
    assertThat(c.members()).doesNotContain(0);
  }

  @Test
  void aDownPrimaryWhoseLevelBackupsAreAllLeavingIsReplacedByOneOfThem() {
    advance(100, Set.of(0, 1, 2, 3));
    control.leave(1);
    control.leave(2);
    advance(100, Set.of(0, 1, 2, 3)); // the spare joins, but nobody reports it level
    assertThat(control.configuration(0).members()).as("no spare is left to replace them: they"
        + " go only once the members that stay are level").containsExactly(0, 1, 2, 3);
    long before = control.configuration(0).epoch();
    advance(Timing.DEFAULT.downMillis() + 50, Set.of(1, 2, 3)); // the primary goes down for good
    Configure c = control.configuration(0);
    assertThat(c.epoch()).isGreaterThan(before);
    assertThat(c.primary()).as("a leaving level copy serves rather than none").isIn(1, 2);
    assertThat(c.members()).doesNotContain(0);
  }

  @Test
  void noMemberIsPromotedThatIsNotKnownToBeLevel() {
    advance(20, Set.of(0, 1, 2, 3));
    control.step(new Envelope(0, Control.ID, new Suspect(0, 1, Set.of(1, 2))));
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(0);
    levelled();
    advance(10, Set.of(0, 1, 2, 3)); // a spare joins: it holds nothing yet
    assertThat(control.configuration(0).members()).hasSize(2);
    advance(Timing.DEFAULT.downMillis() + 50, Set.of(1, 2, 3)); // the primary goes down
    assertThat(control.configuration(0).primary()).isEqualTo(0);
    assertThat(control.settled()).isFalse();
  }

  @Test
  void aMigrationJoinsItsTargetAndCutsOverOnceItIsLevelAndTheSourceDrained() {
    advance(20, Set.of(0, 1, 2, 3));
    assertThat(control.migrate(0, 3)).isTrue();
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(0, 1, 2, 3);
    advance(50, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).primary()).isEqualTo(0); // not level yet
    levelled();
    sent.clear();
    advance(10, Set.of(0, 1, 2, 3));
    long epoch = control.configuration(0).epoch();
    assertThat(sent).filteredOn(e -> e.message() instanceof Drain)
        .containsExactly(new Envelope(Control.ID, 0, new Drain(0, epoch)));
    assertThat(control.configuration(0).primary()).as("the source drains first").isEqualTo(0);
    control.step(new Envelope(0, Control.ID, new Drained(0, epoch - 1))); // an older epoch's
    control.step(new Envelope(1, Control.ID, new Drained(0, epoch))); // not the primary
    assertThat(control.configuration(0).epoch()).isEqualTo(epoch);
    control.step(new Envelope(0, Control.ID, new Drained(0, epoch)));
    assertThat(control.configuration(0).members()).as("at once, without a tick")
        .containsExactly(3, 1, 2);
    assertThat(control.moving(0)).isFalse();
    assertThat(control.ready().messages()).extracting(Envelope::message)
        .contains(control.configuration(0));
  }

  @Test
  void aCutOverGoesAheadAResendIntervalAfterAskingASourceThatDoesNotAnswer() {
    advance(20, Set.of(0, 1, 2, 3));
    control.migrate(0, 3);
    advance(10, Set.of(0, 1, 2, 3));
    levelled();
    advance(10, Set.of(0, 1, 2, 3)); // asks the source to drain
    advance(Timing.DEFAULT.resendMillis() - 10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).primary()).isEqualTo(0);
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(3, 1, 2);
  }

  /** Node 0, the primary, leaves: the control asks it to drain; the epoch it asked at. */
  private long primaryLeavesAndIsAskedToDrain() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    control.leave(0);
    sent.clear();
    advance(10, Set.of(0, 1, 2, 3));
    long epoch = control.configuration(0).epoch();
    assertThat(sent).extracting(Envelope::message).contains(new Drain(0, epoch));
    return epoch;
  }

  @Test
  void aLeavingPrimaryHandsOverOnceDrained() {
    long epoch = primaryLeavesAndIsAskedToDrain();
    assertThat(control.configuration(0).primary()).isEqualTo(0);
    control.step(new Envelope(0, Control.ID, new Drained(0, epoch)));
    assertThat(control.configuration(0).members()).containsExactly(1, 2, 0);
  }

  @Test
  void aLeavingPrimaryHandsOverOnlyOnceNoBackupIsJoining() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    control.step(new Envelope(0, Control.ID, new Suspect(0, 1, Set.of(1))));
    advance(10, Set.of(0, 1, 2, 3));
    levelled();
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(0, 2, 3);
    assertThat(control.levelMembers(0)).as("3 is joining: its copy comes from 0")
        .containsExactly(0, 2);
    control.leave(0);
    sent.clear();
    advance(Timing.DEFAULT.resendMillis() * 4, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).as("a handover now would have 3 refuse the"
        + " new primary's level by name, and be sent its copy whole again")
        .containsExactly(0, 2, 3);
    assertThat(sent).extracting(Envelope::message).noneMatch(m -> m instanceof Drain);
    levelled();
    advance(10, Set.of(0, 1, 2, 3));
    long epoch = control.configuration(0).epoch();
    assertThat(sent).extracting(Envelope::message).contains(new Drain(0, epoch));
    control.step(new Envelope(0, Control.ID, new Drained(0, epoch)));
    assertThat(control.configuration(0).primary()).isEqualTo(2);
  }

  @Test
  void aDrainForAHandOverCalledOffIsFollowedByResumeAndNoChange() {
    long epoch = primaryLeavesAndIsAskedToDrain();
    control.join(0); // the leave is withdrawn before the primary answered
    sent.clear();
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(sent).extracting(Envelope::message).contains(new Message.Resume(0, epoch))
        .noneMatch(m -> m instanceof Drain);
    assertThat(control.configuration(0).epoch()).isEqualTo(epoch);
    sent.clear();
    control.step(new Envelope(0, Control.ID, new Drained(0, epoch))); // a late answer
    advance(Timing.DEFAULT.resendMillis(), Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).epoch()).as("no change came of the late answer")
        .isEqualTo(epoch);
    assertThat(sent).extracting(Envelope::message)
        .noneMatch(m -> m instanceof Drain || m instanceof Message.Resume);
  }

  @Test
  void aMigrationWhoseTargetGoesDownIsRolledBack() {
    advance(20, Set.of(0, 1, 2, 3));
    control.migrate(0, 3);
    advance(10, Set.of(0, 1, 2, 3));
    advance(Timing.DEFAULT.downMillis() + 50, Set.of(0, 1, 2));
    assertThat(control.configuration(0).members()).containsExactly(0, 1, 2);
    assertThat(control.moving(0)).isFalse();
  }

  @Test
  void aLeavingBackupGoesOnlyOnceItsReplacementIsLevel() {
    advance(20, Set.of(0, 1, 2, 3));
    control.leave(2);
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(0, 1, 2, 3);
    advance(50, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).contains(2);
    levelled();
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(0, 1, 3);
  }

  /**
   * A table of key ranges splits at the cut it is given (or its midpoint), routes by the new
   * ranges, refuses a cut outside the partition, and a restored control numbers as it did.
   */
  @Test
  void aTableOfKeyRangesSplitsAtItsCutsAndARestoredControlNumbersAlike() {
    Control ranges = new Control(Timing.DEFAULT,
        io.partkit.spi.KeyRanges.of(Bytes.ofLong(100).toArray()), 3, List.of(0, 1, 2));
    assertThat(ranges.partitionOf(Bytes.ofLong(99))).isZero();
    assertThat(ranges.partitionOf(Bytes.ofLong(100))).isEqualTo(1);
    assertThat(ranges.split(1, Bytes.ofLong(150))).contains(3); // 1 + modulus 2
    assertThat(ranges.partitionOf(Bytes.ofLong(149))).isEqualTo(1);
    assertThat(ranges.partitionOf(Bytes.ofLong(150))).isEqualTo(3);
    assertThat(ranges.configuration(3).numbering()).isEqualTo(ranges.configuration(1).numbering())
        .isInstanceOf(Numbering.KeySpans.class);
    assertThat(ranges.split(0)).as("at the midpoint of [, 100)").contains(2);
    assertThat(ranges.partitionOf(Bytes.ofLong(49))).isZero();
    assertThat(ranges.partitionOf(Bytes.ofLong(50))).isEqualTo(2);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
        () -> ranges.split(3, Bytes.ofLong(120))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly inside");
    Control restored = Control.restore(Timing.DEFAULT, 3, ranges.ready().records());
    for (long k = 0; k < 200; k += 7) {
      assertThat(restored.partitionOf(Bytes.ofLong(k))).as("key %d", k)
          .isEqualTo(ranges.partitionOf(Bytes.ofLong(k)));
    }
    assertThat(restored.configuration(3).numbering())
        .isEqualTo(ranges.configuration(3).numbering());
  }

  @Test
  void aSplitIsANewEpochAndANewPartitionWithTheSameLevelMembers() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    long before = control.configuration(0).epoch();
    assertThat(control.split(0)).contains(1);
    List<Envelope> told = control.ready().messages();
    Configure parent = control.configuration(0);
    Configure child = control.configuration(1);
    assertThat(parent.epoch()).isEqualTo(before + 1);
    assertThat(child.epoch()).isEqualTo(parent.epoch());
    assertThat(parent.numbering().modulus()).isEqualTo(2);
    assertThat(child.numbering().modulus()).isEqualTo(2);
    assertThat(child.members()).isEqualTo(parent.members());
    assertThat(control.levelMembers(1)).containsExactlyElementsOf(control.levelMembers(0));
    assertThat(told).extracting(Envelope::message).contains(parent, child);
    assertThat(control.partitionIds()).containsExactly(0, 1);
    for (long k = 0; k < 32; k++) {
      Bytes key = Bytes.ofLong(k);
      assertThat(control.partitionOf(key))
          .isEqualTo(new Numbering.Hashed(1, 2).holds(1, key) ? 1 : 0);
    }
    assertThat(control.split(1)).contains(3); // partition 1 at modulus 2 splits off 1 + 2
    assertThat(control.configuration(1).numbering().modulus()).isEqualTo(4);
    assertThat(control.configuration(0).numbering().modulus()).isEqualTo(2);
  }

  @Test
  void aSplitWaitsForAMoveAndANodeThatHasNotDividedItsCopyStaysLevel() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    control.migrate(0, 3);
    assertThat(control.split(0)).isEmpty();
    Control other = new Control(Timing.DEFAULT, 1, 3, List.of(0, 1, 2));
    other.split(0);
    other.ready();
    // node 2 answers a heartbeat from before the split: it holds the parent at the old epoch
    other.step(new Envelope(2, Control.ID, new Pong(0, Map.of(0, 1L))));
    assertThat(other.levelMembers(1)).contains(2);
    assertThat(other.ready().messages()).extracting(Envelope::message)
        .contains(other.configuration(0), other.configuration(1));
    other.step(new Envelope(2, Control.ID, new Pong(1, Map.of(0, 2L))));
    assertThat(other.levelMembers(1)).doesNotContain(2); // it held the split and lost the half
  }

  @Test
  void aBackupTakenOutOnSuspicionIsNotTheNextSpareWhileAnotherIsUp() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    control.step(new Envelope(0, Control.ID, new Suspect(0, 1, Set.of(1))));
    advance(10, Set.of(0, 1, 2, 3));
    assertThat(control.configuration(0).members()).containsExactly(0, 2);
    levelled();
    advance(10, Set.of(0, 1, 2, 3)); // node 1 still answers the control's heartbeats
    assertThat(control.configuration(0).members()).containsExactly(0, 2, 3);
  }

  @Test
  void downBackupsStayWhileThePrimaryIsDownTooSoTheyCanTakeOverOnceBack() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    advance(Timing.DEFAULT.downMillis() + 50, Set.of(3)); // every member down at once
    assertThat(control.configuration(0).members()).containsExactly(0, 1, 2);
    advance(20, Set.of(1, 3));
    assertThat(control.configuration(0).primary()).isEqualTo(1);
  }

  @Test
  void theLoadViewHoldsWhatEachNodeLastReportedItServed() {
    control.step(new Envelope(1, Control.ID, new Pong(0, Map.of(), Map.of(0, 5L, 3, 1L))));
    control.step(new Envelope(2, Control.ID, new Pong(0, Map.of(), Map.of(0, 9L))));
    control.step(new Envelope(1, Control.ID, new Pong(1, Map.of(), Map.of(0, 7L))));
    assertThat(control.served()).isEqualTo(Map.of(0, Map.of(1, 7L, 2, 9L), 3, Map.of(1, 1L)));
    control.step(new Envelope(9, Control.ID, new Pong(0, Map.of(), Map.of(0, 1L))));
    assertThat(control.served().get(0)).as("a node the control does not know")
        .doesNotContainKey(9);
  }
  @Test
  void aPrimaryBackWithAnEmptyDiskIsNotConfiguredToServeButReplacedByALevelBackup() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    long before = control.configuration(0).epoch();
    // node 0 restarted on a wiped disk before the control found it down: it holds nothing
    control.step(new Envelope(0, Control.ID, new Pong(0, Map.of())));
    assertThat(control.levelMembers(0)).doesNotContain(0);
    assertThat(control.ready().messages()).as("no configuration that has node 0 serve its empty"
        + " copy").noneMatch(e -> e.to() == 0 && e.message() instanceof Configure c
            && c.primary() == 0);
    now += 10;
    control.tick(now);
    Configure c = control.configuration(0);
    assertThat(c.epoch()).isGreaterThan(before);
    assertThat(c.primary()).as("a level backup takes over").isIn(1, 2);
    assertThat(control.levelMembers(0)).contains(c.primary()).doesNotContain(0);
  }

  @Test
  void aPrimaryThatLostItsCopyWithNoLevelBackupIsNeverConfiguredAgainNorSplit() {
    Control alone = new Control(Timing.DEFAULT, 1, 1, List.of(0, 1));
    alone.tick(10);
    alone.ready();
    alone.step(new Envelope(0, Control.ID, new Pong(0, Map.of(0, 1L))));
    alone.step(new Envelope(0, Control.ID, new Pong(1, Map.of()))); // back on a wiped disk
    for (long t = 20; t < 2_000; t += 10) {
      alone.step(new Envelope(0, Control.ID, new Pong(t, Map.of())));
      alone.step(new Envelope(1, Control.ID, new Pong(t, Map.of())));
      alone.tick(t);
      assertThat(alone.ready().messages()).as("at " + t + " ms").noneMatch(e -> e.message()
          instanceof Configure);
    }
    assertThat(alone.configuration(0).members()).containsExactly(0);
    assertThat(alone.settled()).isFalse();
    assertThat(alone.split(0)).as("a split would configure it at a new epoch").isEmpty();
  }

  @Test
  void aForgottenNodeThatJoinsAgainUnderItsNumberIsNoLevelCopy() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    // every member down at once, so the rows keep node 2; then node 2 is lost for good
    advance(Timing.DEFAULT.downMillis() + 50, Set.of(3));
    control.forget(2);
    control.join(2); // a new, empty node in its place
    assertThat(control.levelMembers(0)).doesNotContain(2);
    advance(20, Set.of(2, 3));
    assertThat(control.configuration(0).primary()).as("the only member up is empty").isEqualTo(0);
    advance(20, Set.of(1, 2, 3));
    assertThat(control.configuration(0).primary()).isEqualTo(1);
  }
  @Test
  void aNodeTakenOutAndAddedAgainIsNoLostCopyOnceLevelledAgain() {
    Control c = new Control(Timing.DEFAULT, 1, 2, List.of(0, 1, 2));
    long[] t = {0};
    Runnable tick = () -> {
      t[0] += 10;
      for (int n = 0; n < 3; n++) {
        Configure conf = c.configuration(0);
        c.step(new Envelope(n, Control.ID, new Pong(t[0], conf.members().contains(n)
            ? Map.of(0, conf.epoch()) : Map.of())));
      }
      c.tick(t[0]);
      c.ready();
    };
    Runnable levelled = () -> {
      Configure conf = c.configuration(0);
      c.step(new Envelope(conf.primary(), Control.ID, new Levelled(0, conf.epoch())));
    };
    tick.run(); // nodes 0 and 1 are heard holding partition 0
    c.step(new Envelope(0, Control.ID, new Suspect(0, 1, Set.of(1))));
    tick.run();
    levelled.run();
    tick.run();
    assertThat(c.configuration(0).members()).containsExactly(0, 2);
    levelled.run();
    for (int i = 0; i < 2 * Control.QUARANTINE_DOWNS * Timing.DEFAULT.downMillis() / 10; i++) {
      tick.run(); // node 1's quarantine passes
    }
    c.step(new Envelope(0, Control.ID, new Suspect(0, c.configuration(0).epoch(), Set.of(2))));
    tick.run();
    levelled.run();
    c.tick(t[0] += 10);
    c.ready();
    assertThat(c.configuration(0).members()).containsExactly(0, 1);
    // node 1 has not received its new configuration: it answers without the partition
    c.step(new Envelope(1, Control.ID, new Pong(t[0], Map.of())));
    levelled.run(); // then its primary levels it
    for (long until = t[0] + Timing.DEFAULT.downMillis() + 50; t[0] < until; ) {
      t[0] += 10;
      c.step(new Envelope(1, Control.ID, new Pong(t[0], Map.of(0, c.configuration(0).epoch()))));
      c.step(new Envelope(2, Control.ID, new Pong(t[0], Map.of())));
      c.tick(t[0]); // node 0 is down
      c.ready();
    }
    assertThat(c.configuration(0).primary()).isEqualTo(1);
    levelled.run();
    for (long until = t[0] + Control.QUARANTINE_DOWNS * Timing.DEFAULT.downMillis();
        t[0] < until; ) { // node 2's quarantine passes
      t[0] += 10;
      c.step(new Envelope(1, Control.ID, new Pong(t[0], Map.of(0, c.configuration(0).epoch()))));
      c.step(new Envelope(2, Control.ID, new Pong(t[0], Map.of())));
      c.tick(t[0]);
      c.ready();
    }
    assertThat(c.configuration(0).members()).as("the new primary, level, gets a spare")
        .containsExactly(1, 2);
  }
  @Test
  void aBackupBackWithAnEmptyDiskIsLevelledAgainAtANewEpoch() {
    advance(20, Set.of(0, 1, 2, 3));
    levelled();
    long before = control.configuration(0).epoch();
    control.step(new Envelope(1, Control.ID, new Pong(0, Map.of()))); // node 1's disk was wiped
    assertThat(control.levelMembers(0)).doesNotContain(1);
    now += 10;
    control.tick(now);
    control.ready();
    Configure c = control.configuration(0);
    assertThat(c.epoch()).as("a new epoch, whose level its primary reports").isGreaterThan(before);
    assertThat(c.members()).containsExactly(0, 1, 2);
    levelled();
    assertThat(control.levelMembers(0)).containsExactly(0, 1, 2);
    assertThat(control.settled()).isTrue();
  }
}
