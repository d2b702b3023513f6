package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Drain;
import io.partkit.replica.Message.Drained;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Level;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Page;
import io.partkit.replica.Message.Ping;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Refuse;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.Message.Suspect;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The replica core alone: messages in, records and messages out, no sockets or clock. */
class ReplicaTest {

  static final int CLIENT = 1_000_000;
  static final Bytes K = Bytes.ofLong(7);

  /** Node 0 primary, 1 and 2 backups of partition 0 at epoch 1, levelled. */
  private final Cluster c = new Cluster(3);

  ReplicaTest() {
    c.configure(0, 1, 0, List.of(1, 2));
    c.flush();
  }

  @Test
  void aWriteIsAcknowledgedOnlyOnceEveryBackupHoldsItAndItsRecordComesFirst() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(42)));
    Ready first = c.nodes.get(0).ready();
    // the replication leaves at once; the primary's own record follows in the next Ready, so that
    // its sync overlaps the backups'
    assertThat(first.records()).isEmpty();
    assertThat(first.messages()).extracting(Envelope::message)
        .allMatch(m -> m instanceof Replicate).hasSize(2);
    c.route(first);
    c.deliverTo(1); // backup 1 acknowledges
    c.deliverTo(0);
    assertThat(c.logs.get(0)).filteredOn(r -> r instanceof Record.Written).hasSize(1);
    assertThat(c.replies).isEmpty(); // backup 2 has not yet
    c.flush();
    assertThat(c.replies).singleElement().extracting(Reply::outcome).isEqualTo(Outcome.OK);
    assertThat(c.nodes.get(2).localValue(0, K)).contains(Bytes.ofLong(42));
  }

  @Test
  void aReadNeedsEveryBackupsConfirmationAndFailsOnceAMemberIsAtANewerEpoch() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(1)));
    c.flush();
    // the control promotes node 1; node 0 does not hear of it
    c.nodes.get(1).step(new Envelope(Control.ID, 1, new Configure(0, 2, 1, List.of(2))));
    c.nodes.get(2).step(new Envelope(Control.ID, 2, new Configure(0, 2, 1, List.of(2))));
    c.flush();
    c.replies.clear();
    c.request(0, new Request(2, 0, Kind.GET, K, null, null));
    c.flush();
    assertThat(c.replies).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(r.why()).contains("deposed");
    });
    c.replies.clear();
    c.request(1, new Request(3, 0, Kind.GET, K, null, null));
    c.flush();
    assertThat(c.replies).singleElement().extracting(Reply::value).isEqualTo(Bytes.ofLong(1));
  }

  @Test
  void aBackupRefusesReplicationOfAnOlderEpochAndBeforeItHoldsTheLevel() {
    Replica backup = c.nodes.get(1);
    backup.step(new Envelope(0, 1, new Replicate(0, 0, 1, 1, K, Bytes.ofLong(9))));
    assertThat(backup.ready().messages()).extracting(Envelope::message)
        .containsExactly(new Refuse(0, 1, true));
    Replica fresh = new Replica(5, Timing.DEFAULT);
    fresh.step(new Envelope(Control.ID, 5, new Configure(0, 3, 0, List.of(5))));
    fresh.ready();
    fresh.step(new Envelope(0, 5, new Replicate(0, 3, 1, 1, K, Bytes.ofLong(9))));
    assertThat(fresh.ready().messages()).extracting(Envelope::message)
        .containsExactly(new Refuse(0, 3, false));
  }

  @Test
  void aPongReportsTheRequestsThePrimaryAnsweredOkByPartition() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(1)));
    c.flush();
    c.request(0, new Request(2, 0, Kind.GET, K, null, null));
    c.flush();
    c.request(0, new Request(3, 0, Kind.CAS, K, Bytes.ofLong(5), Bytes.ofLong(6))); // fails
    c.flush();
    for (int n = 0; n < 2; n++) {
      Replica r = c.nodes.get(n);
      r.step(new Envelope(Control.ID, n, new Ping(7)));
      Pong pong = (Pong) r.ready().messages().stream().map(Envelope::message)
          .filter(m -> m instanceof Pong).findFirst().orElseThrow();
      assertThat(pong.served()).as("node %d", n).isEqualTo(n == 0 ? Map.of(0, 2L) : Map.of());
    }
  }

  @Test
  void aFailedCasChangesNothingAndNeedsNoRoundTrip() {
    c.request(0, new Request(1, 0, Kind.CAS, K, Bytes.ofLong(5), Bytes.ofLong(6)));
    Ready r = c.nodes.get(0).ready();
    assertThat(r.records()).isEmpty();
    assertThat(r.messages()).singleElement().extracting(e -> ((Reply) e.message()).outcome())
        .isEqualTo(Outcome.FAIL);
  }

  @Test
  void aFailedCasOfLargeValuesNamesTheirFirstBytesAndSizesOnly() {
    byte[] big = new byte[1 << 20];
    big[0] = 0x5a;
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.of(big)));
    c.flush();
    big[1] = 1;
    c.request(0, new Request(2, 0, Kind.CAS, K, Bytes.of(big), Bytes.ofLong(6)));
    c.flush();
    // spelled out whole, the two values would make a reply of 4 MiB (8 MiB values: over a frame)
    assertThat(c.replies.get(1).outcome()).isEqualTo(Outcome.FAIL);
    assertThat(c.replies.get(1).why()).hasSizeLessThan(256)
        .startsWith("expected 5a01" + "00".repeat(Replica.BRIEF_BYTES - 2) + "... (1048576 bytes)")
        .endsWith(", found 5a" + "00".repeat(Replica.BRIEF_BYTES - 1) + "... (1048576 bytes)");
  }

  @Test
  void aRestartedPrimaryReplaysItsRecordsAndLevelsItsBackupsBeforeServing() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(3)));
    c.flush();
    Replica again = Replica.restore(0, Timing.DEFAULT, c.logs.get(0));
    assertThat(again.role(0)).isEqualTo(Role.PRIMARY);
    assertThat(again.localValue(0, K)).contains(Bytes.ofLong(3));
    again.step(new Envelope(CLIENT, 0, new Request(2, 0, Kind.GET, K, null, null)));
    assertThat(again.ready().messages()).isEmpty(); // waits for its level
    again.tick(1);
    Ready level = again.ready();
    assertThat(level.records()).singleElement().isInstanceOf(Record.LevelBegun.class);
    // its backups hold the state it restarted with, of the level it had: offered by name
    assertThat(level.messages()).extracting(Envelope::message)
        .allMatch(m -> m instanceof Level l && l.seq() == 1).hasSize(2);
  }

  @Test
  void aPrimaryNamesBackupsThatDoNotAnswerAsSuspects() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(1)));
    Replica p = c.nodes.get(0);
    p.ready(); // the replication is lost
    p.tick(Timing.DEFAULT.suspectMillis() + 1);
    assertThat(p.ready().messages()).extracting(Envelope::message)
        .contains(new Suspect(0, 1, java.util.Set.of(1, 2)));
  }

  @Test
  void aSnapshotOfAnOlderLevelDeliveredLateDoesNotUndoWrites() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(8)));
    c.flush();
    Replica b = c.nodes.get(1);
    b.step(new Envelope(0, 1, new Snapshot(0, 1, 0, 0, new java.util.TreeMap<>())));
    assertThat(b.ready().records()).isEmpty();
    assertThat(b.localValue(0, K)).contains(Bytes.ofLong(8));
  }

  // ---- rounds: every request queued while the primary is busy is ordered as one

  private static Bytes v(long n) {
    return Bytes.ofLong(n);
  }

  private static List<Message> messagesTo(Ready r, int node) {
    return r.messages().stream().filter(e -> e.to() == node).map(Envelope::message).toList();
  }

  @Test
  void aRoundOfWritesIsLoggedInOneReadyAndAcknowledgedOnlyOnceEveryBackupHoldsItsLastWrite() {
    for (int i = 0; i < 3; i++) {
      c.request(0, new Request(i, 0, Kind.PUT, Bytes.ofLong(i), null, v(10 + i)));
    }
    Replica primary = c.nodes.get(0);
    Ready round = primary.ready();
    assertThat(round.records()).isEmpty(); // held back one Ready: see the next
    for (int b = 1; b <= 2; b++) {
      assertThat(messagesTo(round, b)).extracting(m -> ((Replicate) m).seq())
          .containsExactly(1L, 2L, 3L);
    }
    c.route(round);
    // backup 1 takes the three writes before its driver asks for a Ready: one Ack covers them
    Replica backup = c.nodes.get(1);
    c.inbox.get(1).forEach(backup::step);
    c.inbox.get(1).clear();
    Ready acked = backup.ready();
    assertThat(acked.records()).hasSize(3);
    assertThat(acked.messages()).extracting(Envelope::message)
        .containsExactly(new Message.Ack(0, 1, 1, 3));
    primary.step(acked.messages().get(0));
    // backup 2 holds only the first two so far: nothing is answered or visible
    primary.step(new Envelope(2, 0, new Message.Ack(0, 1, 1, 2)));
    Ready logged = primary.ready();
    assertThat(logged.records()).extracting(r -> ((Record.Written) r).seq())
        .containsExactly(1L, 2L, 3L);
    assertThat(logged.messages()).isEmpty();
    c.logs.get(0).addAll(logged.records());
    assertThat(c.replies).isEmpty();
    assertThat(c.nodes.get(0).localValue(0, Bytes.ofLong(0))).isEmpty();
    // a request arriving meanwhile waits for the next round
    c.request(0, new Request(9, 0, Kind.PUT, K, null, v(99)));
    assertThat(c.nodes.get(0).ready().isEmpty()).isTrue();
    c.flush();
    assertThat(c.replies).extracting(Reply::id).containsExactly(0L, 1L, 2L, 9L);
    assertThat(c.replies).allMatch(r -> r.outcome() == Outcome.OK);
    for (int n = 0; n < 3; n++) {
      assertThat(c.nodes.get(n).localValue(0, Bytes.ofLong(2))).as("node %d", n).contains(v(12));
      assertThat(c.nodes.get(n).localValue(0, K)).as("node %d", n).contains(v(99));
    }
  }

  @Test
  void aRoundInterruptedByANewEpochAcknowledgesNothing() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(1)));
    c.request(0, new Request(2, 0, Kind.GET, K, null, null));
    c.request(0, new Request(3, 0, Kind.PUT, Bytes.ofLong(8), null, v(2)));
    c.drain(0); // the round is logged and its replication is on its way
    // the control promotes node 1 before the backups see the round; node 0 does not hear of it
    for (int n = 1; n <= 2; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, new Configure(0, 2, 1, List.of(2))));
    }
    c.flush();
    assertThat(c.replies).extracting(Reply::id).containsExactly(1L, 2L, 3L);
    assertThat(c.replies).noneMatch(r -> r.outcome() == Outcome.OK);
    assertThat(c.replies).extracting(Reply::outcome)
        .containsExactly(Outcome.UNKNOWN, Outcome.FAIL, Outcome.UNKNOWN);
    // its copy holds what its log does, the round's writes too, but it serves none of it
    assertThat(c.nodes.get(0).localValue(0, K)).contains(v(1));
    c.request(0, new Request(4, 0, Kind.GET, K, null, null));
    c.flush();
    assertThat(c.replies).last().extracting(Reply::id, Reply::outcome)
        .containsExactly(4L, Outcome.FAIL);
  }

  @Test
  void aDrainingPrimaryFinishesItsRoundStartsNoOtherAndItsWaitingRequestsFailOnTheHandover() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(1)));
    c.drain(0); // the round is on its way to the backups
    c.nodes.get(0).step(new Envelope(Control.ID, 0, new Drain(0, 1)));
    c.request(0, new Request(2, 0, Kind.PUT, K, null, v(2)));
    c.request(0, new Request(3, 0, Kind.GET, K, null, null));
    c.flush();
    assertThat(c.replies).as("the round in flight is answered, the later requests wait")
        .extracting(Reply::id, Reply::outcome).containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, Outcome.OK));
    assertThat(c.toControl).filteredOn(m -> m instanceof Drained)
        .containsExactly(new Drained(0, 1));
    for (int n = 0; n < 3; n++) {
      assertThat(c.nodes.get(n).localValue(0, K)).as("node %d", n).contains(v(1));
    }
    // the handover: node 1, which holds every write node 0 acknowledged, takes over
    c.configure(0, 2, 1, List.of(2));
    c.flush();
    assertThat(c.replies).extracting(Reply::id, Reply::outcome).containsExactly(
        org.assertj.core.groups.Tuple.tuple(1L, Outcome.OK),
        org.assertj.core.groups.Tuple.tuple(2L, Outcome.FAIL),
        org.assertj.core.groups.Tuple.tuple(3L, Outcome.FAIL));
    c.request(1, new Request(4, 0, Kind.GET, K, null, null));
    c.flush();
    assertThat(c.replies).last().extracting(Reply::outcome, Reply::value)
        .containsExactly(Outcome.OK, v(1));
  }

  @Test
  void aDrainIsAnsweredAtOnceWithoutARoundAndEndsWhenNoConfigurationFollows() {
    Replica primary = c.nodes.get(0);
    primary.step(new Envelope(Control.ID, 0, new Drain(0, 0))); // an older epoch's: ignored
    primary.step(new Envelope(Control.ID, 0, new Drain(0, 1)));
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(1)));
    c.flush();
    assertThat(c.toControl).filteredOn(m -> m instanceof Drained)
        .containsExactly(new Drained(0, 1));
    assertThat(c.replies).isEmpty();
    primary.tick(Timing.DEFAULT.suspectMillis() - 1);
    c.flush();
    assertThat(c.replies).isEmpty();
    primary.tick(Timing.DEFAULT.suspectMillis());
    c.flush();
    assertThat(c.replies).as("the control's change never came: it serves again")
        .extracting(Reply::id, Reply::outcome).containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, Outcome.OK));
  }

  @Test
  void aResumeOfTheDrainsEpochServesAtOnceAndAnotherEpochsIsIgnored() {
    Replica primary = c.nodes.get(0);
    primary.step(new Envelope(Control.ID, 0, new Drain(0, 1)));
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(1)));
    c.flush();
    primary.step(new Envelope(Control.ID, 0, new Message.Resume(0, 2))); // not its epoch
    c.flush();
    assertThat(c.replies).isEmpty();
    primary.step(new Envelope(Control.ID, 0, new Message.Resume(0, 1)));
    c.flush();
    assertThat(c.replies).as("the change is off: it serves again without waiting out the drain")
        .extracting(Reply::id, Reply::outcome).containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, Outcome.OK));
  }

  @Test
  void aBackupTakenOutSaysNothingToThePrimaryThatStillLeadsSoItsRoundCarriesOver() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(1)));
    c.drain(0); // the round's replication is on its way
    // the control takes node 2 out; node 2 hears first
    Configure without2 = new Configure(0, 2, 0, List.of(1));
    c.nodes.get(2).step(new Envelope(Control.ID, 2, without2));
    c.deliverTo(2);
    assertThat(c.inbox.get(0)).extracting(Envelope::message)
        .noneMatch(m -> m instanceof Refuse);
    c.deliverTo(1);
    c.deliverTo(0);
    assertThat(c.replies).as("the round waits for node 2, which is no longer a member").isEmpty();
    for (int n = 0; n < 2; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, without2));
    }
    c.flush();
    assertThat(c.replies).extracting(Reply::id, Reply::outcome).containsExactly(
        org.assertj.core.groups.Tuple.tuple(1L, Outcome.OK));
    // a node taken out of a partition another node now leads does tell the old primary
    Replica gone = new Replica(5, Timing.DEFAULT);
    gone.step(new Envelope(Control.ID, 5, new Configure(0, 3, 1, List.of(2))));
    gone.ready();
    gone.step(new Envelope(0, 5, new Replicate(0, 2, 1, 2, K, v(2))));
    assertThat(gone.ready().messages()).extracting(Envelope::message)
        .containsExactly(new Refuse(0, 3, true));
  }

  @Test
  void aCasInARoundIsDecidedOnTheRoundsEarlierWritesAndAnsweredInItsTurn() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(1)));
    c.request(0, new Request(2, 0, Kind.CAS, K, v(1), v(2))); // holds after the PUT
    c.request(0, new Request(3, 0, Kind.CAS, K, v(1), v(3))); // fails: the CAS before wrote 2
    c.request(0, new Request(4, 0, Kind.CAS, K, null, v(4))); // fails: K is no longer absent
    Replica primary = c.nodes.get(0);
    Ready round = primary.ready();
    // the failures wait for the writes before them: answered now, they would show a value the
    // round has not made visible (and may never, if it is lost)
    assertThat(round.messages()).noneMatch(e -> e.message() instanceof Reply);
    c.route(round);
    c.deliverTo(1);
    c.deliverTo(2);
    // both acknowledgements arrive before the primary's driver asks for the Ready holding its
    // records: the replies come in that same Ready, after the records
    c.inbox.get(0).forEach(primary::step);
    c.inbox.get(0).clear();
    Ready done = primary.ready();
    assertThat(done.records()).extracting(r -> ((Record.Written) r).value())
        .containsExactly(v(1), v(2));
    assertThat(done.messages()).allMatch(e -> e.message() instanceof Reply);
    c.logs.get(0).addAll(done.records());
    c.route(done);
    c.flush();
    assertThat(c.replies).extracting(Reply::id).containsExactly(1L, 2L, 3L, 4L);
    assertThat(c.replies).extracting(Reply::outcome)
        .containsExactly(Outcome.OK, Outcome.OK, Outcome.FAIL, Outcome.FAIL);
    assertThat(c.replies.get(2).why()).contains("found " + v(2));
    for (int n = 0; n < 3; n++) {
      assertThat(c.nodes.get(n).localValue(0, K)).as("node %d", n).contains(v(2));
    }
  }

  @Test
  void readsInARoundSeeTheWritesBeforeThemAndShareOneConfirmationWhenNothingIsWritten() {
    c.request(0, new Request(1, 0, Kind.PUT, K, null, v(5)));
    c.flush();
    c.replies.clear();
    c.request(0, new Request(2, 0, Kind.GET, K, null, null));
    c.request(0, new Request(3, 0, Kind.PUT, K, null, v(6)));
    c.request(0, new Request(4, 0, Kind.GET, K, null, null));
    c.request(0, new Request(5, 0, Kind.PUT, K, null, v(7)));
    Ready mixed = c.nodes.get(0).ready();
    // the writes' acknowledgements confirm the epoch and level for the reads as well
    assertThat(mixed.messages()).extracting(Envelope::message)
        .noneMatch(m -> m instanceof Message.Confirm);
    c.route(mixed);
    c.flush();
    assertThat(c.replies).extracting(Reply::id).containsExactly(2L, 3L, 4L, 5L);
    assertThat(c.replies).allMatch(r -> r.outcome() == Outcome.OK);
    assertThat(c.replies).extracting(Reply::value).containsExactly(v(5), null, v(6), null);
    c.replies.clear();
    for (int i = 0; i < 3; i++) {
      c.request(0, new Request(10 + i, 0, Kind.GET, K, null, null));
    }
    Ready reads = c.nodes.get(0).ready();
    assertThat(reads.records()).isEmpty();
    for (int b = 1; b <= 2; b++) {
      assertThat(messagesTo(reads, b)).singleElement().isInstanceOf(Message.Confirm.class);
    }
    c.route(reads);
    c.flush();
    assertThat(c.replies).extracting(Reply::value).containsExactly(v(7), v(7), v(7));
  }

  // ---- scans

  /** Keys 1..10 and -1 (0xff.., last in unsigned byte order), each valued 100 + key. */
  private void writeScanKeys() {
    long id = 1000;
    for (long k : new long[] {-1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
      c.request(0, new Request(id++, 0, Kind.PUT, Bytes.ofLong(k), null, v(100 + k)));
    }
    c.flush();
    assertThat(c.replies).hasSize(11).allMatch(r -> r.outcome() == Outcome.OK);
    c.replies.clear();
  }

  private static List<Long> keysOf(Page page) {
    return page.entries().keySet().stream().map(Bytes::toLong).toList();
  }

  @Test
  void aScanWaitsForEveryBackupsConfirmationAndAnswersItsRangeInUnsignedOrder() {
    writeScanKeys();
    c.request(0, new Scan(1, 0, 0, Bytes.ofLong(3), Bytes.ofLong(8), 100));
    Ready round = c.nodes.get(0).ready();
    assertThat(round.messages()).extracting(Envelope::message)
        .allMatch(m -> m instanceof Message.Confirm).hasSize(2);
    c.route(round);
    c.deliverTo(1);
    c.deliverTo(0);
    assertThat(c.pages).as("backup 2 has not confirmed").isEmpty();
    c.flush();
    assertThat(c.pages).singleElement().satisfies(page -> {
      assertThat(page.outcome()).isEqualTo(Outcome.OK);
      assertThat(keysOf(page)).containsExactly(3L, 4L, 5L, 6L, 7L);
      assertThat(page.entries().get(Bytes.ofLong(5))).isEqualTo(v(105));
      assertThat(page.more()).isFalse();
    });
    c.pages.clear();
    c.request(0, new Scan(2, 0, 0, Bytes.ofLong(9), null, 100));
    c.flush();
    assertThat(c.pages).singleElement().satisfies(page ->
        assertThat(keysOf(page)).as("no end: -1 is 0xff.., last").containsExactly(9L, 10L, -1L));
  }

  @Test
  void aScanHonoursItsLimitAndSaysWhetherMoreRemainAfterItsLastKey() {
    writeScanKeys();
    List<Long> all = new ArrayList<>();
    Bytes from = Bytes.of(new byte[0]);
    for (int id = 1; id < 20; id++) {
      c.request(0, new Scan(id, 0, 0, from, null, 3));
      c.flush();
      Page page = c.pages.remove(0);
      assertThat(page.entries()).hasSizeBetween(1, 3);
      all.addAll(keysOf(page));
      if (!page.more()) {
        break;
      }
      assertThat(page.entries()).hasSize(3);
      byte[] last = page.entries().lastKey().toArray();
      from = Bytes.of(java.util.Arrays.copyOf(last, last.length + 1)); // the last key, a zero byte
    }
    assertThat(all).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, -1L);
    c.request(0, new Scan(30, 0, 0, Bytes.ofLong(2), Bytes.ofLong(5), 3));
    c.flush();
    assertThat(c.pages).singleElement().satisfies(page -> {
      assertThat(keysOf(page)).containsExactly(2L, 3L, 4L);
      assertThat(page.more()).as("5 is past the range").isFalse();
    });
  }

  @Test
  void aPageStopsBeforeTheEntryThatWouldPassItsByteCap() {
    java.util.TreeMap<Bytes, Bytes> data = new java.util.TreeMap<>();
    for (long k = 1; k <= 3; k++) {
      data.put(Bytes.ofLong(k), Bytes.of(new byte[Replica.PAGE_BYTES * 2 / 5]));
    }
    Page page = Replica.page(new Scan(1, 0, 0, Bytes.of(new byte[0]), null, 10), data);
    assertThat(keysOf(page)).containsExactly(1L, 2L);
    assertThat(page.more()).isTrue();
    data.put(Bytes.ofLong(0), Bytes.of(new byte[Replica.PAGE_BYTES * 2]));
    Page huge = Replica.page(new Scan(2, 0, 0, Bytes.of(new byte[0]), null, 10), data);
    assertThat(keysOf(huge)).as("a first entry whatever its size").containsExactly(0L);
  }

  @Test
  void aScanInTheRoundOfAWriteSeesItExactlyWhenAReadWould() {
    writeScanKeys();
    Bytes key = Bytes.ofLong(5);
    c.request(0, new Request(1, 0, Kind.GET, key, null, null));
    c.request(0, new Scan(2, 0, 0, Bytes.ofLong(4), Bytes.ofLong(7), 10));
    c.request(0, new Request(3, 0, Kind.PUT, key, null, v(55)));
    c.request(0, new Scan(4, 0, 0, Bytes.ofLong(4), Bytes.ofLong(7), 10));
    c.request(0, new Request(5, 0, Kind.GET, key, null, null));
    Ready round = c.nodes.get(0).ready();
    assertThat(round.messages()).as("one round: the write's replication, no confirm")
        .extracting(Envelope::message).allMatch(m -> m instanceof Replicate).hasSize(2);
    c.route(round);
    c.flush();
    assertThat(c.replies).extracting(Reply::id).containsExactly(1L, 3L, 5L);
    assertThat(c.pages).extracting(Page::id).containsExactly(2L, 4L);
    assertThat(c.replies.get(0).value()).isEqualTo(v(105));
    assertThat(c.pages.get(0).entries().get(key)).as("before the write, as read 1")
        .isEqualTo(c.replies.get(0).value());
    assertThat(c.pages.get(1).entries().get(key)).as("after the write, as read 5")
        .isEqualTo(c.replies.get(2).value()).isEqualTo(v(55));
    assertThat(keysOf(c.pages.get(1))).containsExactly(4L, 5L, 6L);
  }

  @Test
  void aScanIsRefusedByADeposedPrimaryAndByABackup() {
    writeScanKeys();
    // the control promotes node 1; node 0 does not hear of it
    c.nodes.get(1).step(new Envelope(Control.ID, 1, new Configure(0, 2, 1, List.of(2))));
    c.nodes.get(2).step(new Envelope(Control.ID, 2, new Configure(0, 2, 1, List.of(2))));
    c.flush();
    c.request(0, new Scan(1, 0, 0, Bytes.of(new byte[0]), null, 10));
    c.request(2, new Scan(2, 0, 0, Bytes.of(new byte[0]), null, 10));
    c.flush();
    assertThat(c.pages).hasSize(2).allSatisfy(page -> {
      assertThat(page.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(page.entries()).isEmpty();
    });
    assertThat(c.pages).filteredOn(page -> page.id() == 1).singleElement()
        .satisfies(page -> assertThat(page.why()).contains("deposed"));
    assertThat(c.pages).filteredOn(page -> page.id() == 2).singleElement()
        .satisfies(page -> assertThat(page.why()).contains("not the primary"));
    c.pages.clear();
    c.request(1, new Scan(3, 0, 0, Bytes.of(new byte[0]), null, 100));
    c.flush();
    assertThat(c.pages).singleElement().satisfies(page -> assertThat(keysOf(page))
        .as("the new primary").containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, -1L));
  }

  @Test
  void aScanWithItsRangeBackwardsOrNoLimitIsRejectedNamingTheProblem() {
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
        () -> new Scan(1, 0, 0, Bytes.ofLong(5), Bytes.ofLong(4), 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after its to");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(
        () -> new Scan(1, 0, 0, Bytes.ofLong(5), null, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
  }

  // ---- splits: partition 0 at modulus 1 (every key) splits into 0 and 1 at modulus 2

  static final int KEYS = 16;

  /** Node 0 primary, 1 and 2 backups of partition 0 at epoch 1 and modulus 1, with 16 keys. */
  private static Cluster numbered() {
    return numbered(new Numbering.Hashed(1, 1));
  }

  /** Node 0 primary, 1 and 2 backups of partition 0 at epoch 1 in {@code n}, with 16 keys. */
  static Cluster numbered(Numbering n) {
    Cluster s = new Cluster(3);
    s.configure(0, 1, 0, List.of(1, 2), n, Set.of(0, 1, 2));
    s.flush();
    for (int i = 0; i < KEYS; i++) {
      s.request(0, new Request(i, 0, Kind.PUT, Bytes.ofLong(i), null, Bytes.ofLong(100 + i)));
      s.flush();
    }
    assertThat(s.replies).hasSize(KEYS).allMatch(r -> r.outcome() == Outcome.OK);
    s.replies.clear();
    return s;
  }

  /** The control's split of partition 0 at epoch 2, told to {@code nodes}. */
  private static void split(Cluster s, Set<Integer> nodes) {
    s.configure(0, 2, 0, List.of(1, 2), 2, nodes);
    s.configure(1, 2, 0, List.of(1, 2), 2, nodes);
  }

  static boolean moves(int key) {
    return new Numbering.Hashed(1, 2).holds(1, Bytes.ofLong(key));
  }

  static int movedKey() {
    return java.util.stream.IntStream.range(0, KEYS).filter(ReplicaTest::moves).findFirst()
        .orElseThrow();
  }

  static int stayingKey() {
    return java.util.stream.IntStream.range(0, KEYS).filter(k -> !moves(k)).findFirst()
        .orElseThrow();
  }

  @Test
  void aSplitDividesThePrimaryAndEveryBackupAndBothHalvesReplicateAndServe() {
    Cluster s = numbered();
    split(s, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      Replica r = s.nodes.get(n);
      assertThat(r.modulus(0)).as("node %d", n).isEqualTo(2);
      assertThat(r.role(1)).as("node %d", n).isEqualTo(n == 0 ? Role.PRIMARY : Role.BACKUP);
      for (int k = 0; k < KEYS; k++) {
        int owner = moves(k) ? 1 : 0;
        assertThat(r.localValue(owner, Bytes.ofLong(k))).as("node %d key %d", n, k)
            .contains(Bytes.ofLong(100 + k));
        assertThat(r.localValue(1 - owner, Bytes.ofLong(k))).as("node %d key %d", n, k)
            .isEmpty();
      }
    }
    Bytes moved = Bytes.ofLong(movedKey());
    Bytes staying = Bytes.ofLong(stayingKey());
    s.request(0, new Request(100, 1, Kind.PUT, moved, null, Bytes.ofLong(7)));
    s.request(0, new Request(101, 0, Kind.PUT, staying, null, Bytes.ofLong(8)));
    s.flush();
    assertThat(s.replies).extracting(Reply::outcome).containsExactly(Outcome.OK, Outcome.OK);
    for (int n = 1; n < 3; n++) {
      assertThat(s.nodes.get(n).localValue(1, moved)).contains(Bytes.ofLong(7));
      assertThat(s.nodes.get(n).localValue(0, staying)).contains(Bytes.ofLong(8));
    }
    s.replies.clear();
    s.request(0, new Request(102, 1, Kind.GET, moved, null, null));
    s.flush();
    assertThat(s.replies).singleElement().extracting(Reply::value).isEqualTo(Bytes.ofLong(7));
  }

  @Test
  void aClientWithThePreSplitTableIsRefusedNotServedFromTheOldPartition() {
    Cluster s = numbered();
    split(s, Set.of(0, 1, 2));
    s.flush();
    s.request(0, new Request(1, 0, Kind.GET, Bytes.ofLong(movedKey()), null, null));
    s.request(0, new Request(2, 0, Kind.PUT, Bytes.ofLong(movedKey()), null, Bytes.ofLong(9)));
    s.flush();
    assertThat(s.replies).hasSize(2).allSatisfy(r -> {
      assertThat(r.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(r.why()).contains("no longer holds");
    });
    assertThat(s.nodes.get(1).localValue(1, Bytes.ofLong(movedKey())))
        .contains(Bytes.ofLong(100 + movedKey()));
  }

  @Test
  void aScanReturnsOnlyItsPartitionsKeysAndIsRefusedInAnotherNumbering() {
    Cluster s = numbered();
    split(s, Set.of(0, 1, 2));
    s.flush();
    Bytes first = Bytes.of(new byte[0]);
    s.request(0, new Scan(1, 1, 2, first, null, 100));
    s.request(0, new Scan(2, 0, 2, first, null, 100));
    s.request(0, new Scan(3, 0, 1, first, null, 100));
    s.flush();
    List<Long> moved = java.util.stream.LongStream.range(0, KEYS).filter(k -> moves((int) k))
        .boxed().toList();
    List<Long> staying = java.util.stream.LongStream.range(0, KEYS).filter(k -> !moves((int) k))
        .boxed().toList();
    s.pages.sort(java.util.Comparator.comparingLong(Page::id));
    assertThat(s.pages).extracting(Page::id).containsExactly(1L, 2L, 3L);
    assertThat(keysOf(s.pages.get(0))).isEqualTo(moved);
    assertThat(keysOf(s.pages.get(1))).isEqualTo(staying);
    assertThat(s.pages.get(2).outcome()).as("routed by the pre-split table")
        .isEqualTo(Outcome.FAIL);
    assertThat(s.pages.get(2).why()).contains("numbered at modulus 2");
  }

  @Test
  void thePreSplitEpochsReplicationAndReadsAreRefusedOnceBackupsSplit() {
    Cluster s = numbered();
    split(s, Set.of(1, 2)); // the primary, node 0, has not heard of it
    s.flush();
    Replica backup = s.nodes.get(1);
    backup.step(new Envelope(0, 1, new Replicate(0, 1, 1, KEYS + 1, K, Bytes.ofLong(9))));
    assertThat(backup.ready().messages()).extracting(Envelope::message)
        .containsExactly(new Refuse(0, 2, true));
    s.request(0, new Request(1, 0, Kind.GET, Bytes.ofLong(movedKey()), null, null));
    s.flush();
    assertThat(s.replies).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(Outcome.FAIL);
      assertThat(r.why()).contains("deposed");
    });
  }

  @Test
  void aBackupThatLearnedOnlyOfTheNewPartitionRefusesTheOldNumbering() {
    Cluster s = numbered();
    // the backups hear of partition 1 only: they divide their copies and fence partition 0 one
    // epoch past the old numbering's, which the split's epoch cannot be below
    s.configure(1, 2, 0, List.of(1, 2), 2, Set.of(1, 2));
    for (int n = 1; n < 3; n++) {
      s.drain(n);
      assertThat(s.nodes.get(n).epoch(0)).isEqualTo(2);
      assertThat(s.nodes.get(n).modulus(0)).isEqualTo(2);
    }
    s.inbox.forEach(List::clear); // their refusals of partition 1's primary, which never heard
    s.request(0, new Request(1, 0, Kind.PUT, Bytes.ofLong(movedKey()), null, Bytes.ofLong(9)));
    s.flush();
    assertThat(s.replies).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isNotEqualTo(Outcome.OK); // never acknowledged in the old numbering
      assertThat(r.why()).contains("deposed");
    });
    for (int n = 1; n < 3; n++) {
      assertThat(s.nodes.get(n).localValue(1, Bytes.ofLong(movedKey())))
          .contains(Bytes.ofLong(100 + movedKey()));
    }
  }

  @Test
  void aBackupThatMissedTheSplitDividesItsCopyOnTheNewNumberingsSnapshot() {
    Cluster s = numbered();
    split(s, Set.of(0, 1)); // node 2 hears nothing from the control
    s.flush();
    Replica late = s.nodes.get(2);
    assertThat(late.role(1)).isEqualTo(Role.BACKUP);
    assertThat(late.localValue(1, Bytes.ofLong(movedKey())))
        .contains(Bytes.ofLong(100 + movedKey()));
    assertThat(late.localValue(0, Bytes.ofLong(movedKey()))).isEmpty();
    assertThat(late.localValue(0, Bytes.ofLong(stayingKey())))
        .contains(Bytes.ofLong(100 + stayingKey()));
  }

  @Test
  void aRestartFromEveryPrefixOfTheRecordsIsBeforeOrAfterTheSplitNeverHalfWay() {
    Cluster s = numbered();
    split(s, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      List<Record> log = s.logs.get(n);
      boolean sawBefore = false;
      boolean sawAfter = false;
      for (int i = 0; i <= log.size(); i++) {
        List<Record> prefix = log.subList(0, i);
        Replica r = Replica.restore(n, Timing.DEFAULT, prefix);
        boolean after = r.modulus(0) == 2;
        sawBefore |= !after;
        sawAfter |= after;
        Set<Integer> written = new HashSet<>();
        for (Record rec : prefix) {
          if (rec instanceof Record.Written w) {
            written.add((int) w.key().toLong());
          } else if (rec instanceof Record.Snapshotted sn) {
            sn.data().keySet().forEach(k -> written.add((int) k.toLong()));
          }
        }
        for (int k = 0; k < KEYS; k++) {
          Bytes key = Bytes.ofLong(k);
          boolean in0 = r.localValue(0, key).isPresent();
          boolean in1 = r.localValue(1, key).isPresent();
          String where = "node " + n + ", prefix " + i + ", key " + k;
          assertThat(in0 && in1).as(where).isFalse();
          assertThat(in1).as(where).isEqualTo(after && moves(k) && written.contains(k));
          assertThat(in0 || in1).as(where).isEqualTo(written.contains(k));
        }
      }
      assertThat(sawBefore && sawAfter).as("node %d", n).isTrue();
    }
  }

  @Test
  void aCheckpointOfASplitPartitionAndOfANeverConfiguredInheritedChildRestoresThem() {
    Cluster s = numbered();
    // node 2 hears only of partition 0's new numbering: it divides, and partition 1 waits there
    // with the moved keys under no configuration
    s.configure(0, 2, 0, List.of(1, 2), 2, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      String at = "node " + n;
      Replica restored = Replica.restore(n, Timing.DEFAULT, s.logs.get(n));
      List<Record> checkpoint = restored.checkpoint();
      assertThat(checkpoint).as(at).extracting(Record::partition).containsExactly(0, 1);
      Record.Checkpoint child = (Record.Checkpoint) checkpoint.get(1);
      assertThat(child.inherited()).as(at).isTrue();
      assertThat(child.configured()).as(at).isFalse();
      assertThat(child.numbering().modulus()).as(at).isEqualTo(2);
      assertThat(child.data()).as(at).containsKey(Bytes.ofLong(movedKey()));
      Replica again = Replica.restore(n, Timing.DEFAULT, checkpoint);
      assertThat(again.checkpoint()).as(at).isEqualTo(checkpoint);
      assertThat(again.modulus(0)).as(at).isEqualTo(2);
      for (int k = 0; k < KEYS; k++) {
        for (int partition = 0; partition < 2; partition++) {
          assertThat(again.localValue(partition, Bytes.ofLong(k))).as(at + " key " + k)
              .isEqualTo(restored.localValue(partition, Bytes.ofLong(k)));
        }
      }
      // the child is reported unconfigured (epoch 0) by both, so the control configures it
      Envelope ping = new Envelope(Control.ID, n, new Message.Ping(1));
      restored.step(ping);
      again.step(ping);
      assertThat(again.ready()).as(at).isEqualTo(restored.ready());
    }
    // once configured, the child serves the keys it inherited from the checkpoint alone
    Cluster later = new Cluster(3);
    for (int n = 0; n < 3; n++) {
      later.nodes.set(n, Replica.restore(n, Timing.DEFAULT,
          Replica.restore(n, Timing.DEFAULT, s.logs.get(n)).checkpoint()));
    }
    later.configure(0, 2, 0, List.of(1, 2), 2, Set.of(0, 1, 2));
    later.configure(1, 2, 0, List.of(1, 2), 2, Set.of(0, 1, 2));
    later.flush();
    later.request(0, new Request(1, 1, Kind.GET, Bytes.ofLong(movedKey()), null, null));
    later.flush();
    assertThat(later.replies).singleElement().extracting(Reply::value)
        .isEqualTo(Bytes.ofLong(100 + movedKey()));
  }

  /** Nodes 0..n-1 whose messages are delivered in order and whose records are kept as synced. */
  static final class Cluster {
    final List<Replica> nodes = new ArrayList<>();
    final List<List<Record>> logs = new ArrayList<>();
    final List<List<Envelope>> inbox = new ArrayList<>();
    final List<Reply> replies = new ArrayList<>();
    final List<Page> pages = new ArrayList<>();
    final List<Message> toControl = new ArrayList<>();

    Cluster(int n) {
      this(n, Replica.SNAPSHOT_PAGE_ENTRIES);
    }

    /** Nodes whose whole copies go in pages of at most {@code pageEntries} entries. */
    Cluster(int n, int pageEntries) {
      for (int i = 0; i < n; i++) {
        nodes.add(new Replica(i, Timing.DEFAULT, pageEntries));
        logs.add(new ArrayList<>());
        inbox.add(new ArrayList<>());
      }
    }

    void configure(int partition, long epoch, int primary, List<Integer> backups) {
      for (int i = 0; i < nodes.size(); i++) {
        nodes.get(i).step(new Envelope(Control.ID, i,
            new Configure(partition, epoch, primary, backups)));
      }
    }

    /** A configuration numbered at {@code modulus} in a table of base 1. */
    void configure(int partition, long epoch, int primary, List<Integer> backups, long modulus,
        Set<Integer> to) {
      configure(partition, epoch, primary, backups, new Numbering.Hashed(1, modulus), to);
    }

    void configure(int partition, long epoch, int primary, List<Integer> backups,
        Numbering numbering, Set<Integer> to) {
      for (int i : to) {
        nodes.get(i).step(new Envelope(Control.ID, i,
            new Configure(partition, epoch, primary, backups, numbering)));
      }
    }

    void request(int node, Message r) {
      nodes.get(node).step(new Envelope(CLIENT, node, r));
    }

    void route(Ready r) {
      for (Envelope e : r.messages()) {
        if (e.to() == CLIENT && e.message() instanceof Page page) {
          pages.add(page);
        } else if (e.to() == CLIENT) {
          replies.add((Reply) e.message());
        } else if (e.to() == Control.ID) {
          toControl.add(e.message());
        } else {
          inbox.get(e.to()).add(e);
        }
      }
    }

    void drain(int node) {
      Ready r = nodes.get(node).ready();
      logs.get(node).addAll(r.records());
      route(r);
    }

    void deliverTo(int node) {
      drain(node);
      List<Envelope> in = new ArrayList<>(inbox.get(node));
      inbox.get(node).clear();
      for (Envelope e : in) {
        nodes.get(node).step(e);
        drain(node);
      }
    }

    void flush() {
      boolean more = true;
      while (more) {
        for (int i = 0; i < nodes.size(); i++) {
          drain(i);
        }
        more = inbox.stream().anyMatch(l -> !l.isEmpty());
        for (int i = 0; i < nodes.size(); i++) {
          deliverTo(i);
        }
      }
      assertThat(toControl).allMatch(m -> m instanceof Levelled || m instanceof Suspect
          || m instanceof Message.Pong || m instanceof Drained);
    }
  }
}
