package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Level;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.ReplicaTest.Cluster;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * How a new level reaches backups: by name when their state is of the primary's level (forward by
 * the offer's writes, back by undoing their own), whole otherwise; and a joining backup copied
 * while its partition serves.
 */
class ReplicaLevelTest {

  static final int CLIENT = ReplicaTest.CLIENT;
  static final Bytes K = Bytes.ofLong(7);
  static final Bytes OTHER = Bytes.ofLong(8);

  /** Node 0 primary, 1 and 2 backups of partition 0 at epoch 1, levelled; node 3 spare. */
  private final Cluster c = new Cluster(4);

  ReplicaLevelTest() {
    for (int n = 0; n < 3; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, new Configure(0, 1, 0, List.of(1, 2))));
    }
    c.flush();
  }

  private void put(long id, Bytes key, long value) {
    c.request(0, new Request(id, 0, Kind.PUT, key, null, Bytes.ofLong(value)));
  }

  private List<Message> sentTo(Ready r, int to) {
    return r.messages().stream().filter(e -> e.to() == to).map(Envelope::message).toList();
  }

  @Test
  void aFailoverLevelsTheBackupsByNameWithoutCopyingThePartition() {
    for (int i = 0; i < 20; i++) {
      put(i, Bytes.ofLong(100 + i), i);
      c.flush();
    }
    c.nodes.get(1).step(new Envelope(Control.ID, 1, new Configure(0, 2, 1, List.of(2))));
    Ready level = c.nodes.get(1).ready();
    assertThat(sentTo(level, 2)).singleElement().isInstanceOfSatisfying(Level.class, l -> {
      assertThat(l.seq()).isEqualTo(20);
      assertThat(l.fromEpoch()).isEqualTo(1);
    });
    c.logs.get(1).addAll(level.records());
    c.route(level);
    c.nodes.get(2).step(new Envelope(Control.ID, 2, new Configure(0, 2, 1, List.of(2))));
    c.flush();
    assertThat(c.logs.get(2)).last().isInstanceOfSatisfying(Record.Rebased.class, r -> {
      assertThat(r.put()).isEmpty();
      assertThat(r.removed()).isEmpty();
      assertThat(r.seq()).isEqualTo(20);
    });
    assertThat(c.logs.get(2)).noneMatch(r -> r instanceof Record.SnapshotPage s && s.epoch() == 2);
    c.request(1, new Request(99, 0, Kind.PUT, K, null, Bytes.ofLong(5)));
    c.flush();
    assertThat(c.replies).last().extracting(Reply::id, Reply::outcome)
        .containsExactly(99L, Outcome.OK);
    assertThat(c.nodes.get(2).localValue(0, K)).contains(Bytes.ofLong(5));
  }

  @Test
  void aBackupAheadOfTheNewPrimaryUndoesWhatItAloneHolds() {
    put(1, K, 1);
    c.flush();
    put(2, K, 2);
    put(3, OTHER, 3);
    Ready round = c.nodes.get(0).ready();
    // the round reaches backup 2 only; then node 1 is made primary
    round.messages().stream().filter(e -> e.to() == 2).forEach(e -> c.nodes.get(2).step(e));
    c.nodes.get(2).ready();
    assertThat(c.nodes.get(2).localValue(0, K)).contains(Bytes.ofLong(2));
    for (int n = 1; n <= 2; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, new Configure(0, 2, 1, List.of(2))));
    }
    c.flush();
    Replica backup = c.nodes.get(2);
    assertThat(backup.localValue(0, K)).contains(Bytes.ofLong(1));
    assertThat(backup.localValue(0, OTHER)).isEmpty();
    assertThat(c.logs.get(2)).last().isInstanceOfSatisfying(Record.Rebased.class, r -> {
      assertThat(r.put()).containsEntry(K, Bytes.ofLong(1)).hasSize(1);
      assertThat(r.removed()).containsExactly(OTHER);
      assertThat(r.seq()).isEqualTo(1);
    });
    // and a restart from its log says the same
    Replica restarted = Replica.restore(2, Timing.DEFAULT, c.logs.get(2));
    assertThat(restarted.localValue(0, K)).contains(Bytes.ofLong(1));
    assertThat(restarted.localValue(0, OTHER)).isEmpty();
  }

  @Test
  void aBackupBehindTheNewPrimaryTakesTheOffersLastWrites() {
    put(1, K, 1);
    c.flush();
    put(2, K, 2);
    Ready round = c.nodes.get(0).ready();
    round.messages().stream().filter(e -> e.to() == 1).forEach(e -> c.nodes.get(1).step(e));
    c.nodes.get(1).ready();
    for (int n = 1; n <= 2; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, new Configure(0, 2, 1, List.of(2))));
    }
    c.flush();
    assertThat(c.nodes.get(2).localValue(0, K)).contains(Bytes.ofLong(2));
    assertThat(c.logs.get(2)).last().isInstanceOf(Record.Rebased.class);
  }

  @Test
  void aBackupOfAnotherHistoryIsSentTheWholePartition() {
    put(1, K, 1);
    c.flush();
    // node 3 holds a copy of another level (its own, as a lone primary) at the same seq
    c.nodes.get(3).step(new Envelope(Control.ID, 3, new Configure(5, 1, 3, List.of())));
    c.nodes.get(3).step(new Envelope(CLIENT, 3, new Request(9, 5, Kind.PUT, K, null,
        Bytes.ofLong(66))));
    c.flush();
    for (int n = 0; n < 4; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, new Configure(0, 2, 0, List.of(1, 3))));
    }
    c.flush();
    assertThat(c.logs.get(3)).anyMatch(r -> r instanceof Record.SnapshotPage s
        && s.partition() == 0 && s.epoch() == 2 && s.last());
    assertThat(c.nodes.get(3).localValue(0, K)).contains(Bytes.ofLong(1));
  }

  @Test
  void aJoiningBackupIsCopiedWhileThePartitionServesAndCountsOnceCaughtUp() {
    put(1, K, 1);
    c.flush();
    Configure join = new Configure(0, 2, 0, List.of(1, 2, 3), Numbering.NONE,
        new TreeSet<>(List.of(3)));
    for (int n = 0; n < 4; n++) {
      c.nodes.get(n).step(new Envelope(Control.ID, n, join));
    }
    Ready level = c.nodes.get(0).ready();
    c.logs.get(0).addAll(level.records());
    c.route(level);
    c.deliverTo(3); // it holds nothing of the partition: it refuses the offer by name
    c.deliverTo(0);
    // the whole copy to the joining node is held back: the partition serves without it
    assertThat(c.inbox.get(3)).singleElement().extracting(Envelope::message)
        .isInstanceOf(Snapshot.class);
    List<Envelope> held = List.copyOf(c.inbox.get(3));
    c.inbox.get(3).clear();
    c.deliverTo(1);
    c.deliverTo(2);
    c.deliverTo(0);
    assertThat(c.toControl).noneMatch(m -> m instanceof Levelled l && l.epoch() == 2);
    put(2, K, 2);
    c.drain(0);
    c.inbox.get(3).clear(); // its replication is lost too
    for (int i = 0; i < 3; i++) {
      c.deliverTo(1);
      c.deliverTo(2);
      c.deliverTo(0);
    }
    assertThat(c.replies).last().extracting(Reply::id, Reply::outcome)
        .containsExactly(2L, Outcome.OK);
    // the copy arrives, behind: it is caught up from the primary's last writes and then counts
    held.forEach(e -> c.nodes.get(3).step(e));
    c.drain(3);
    c.deliverTo(0);
    assertThat(c.toControl).noneMatch(m -> m instanceof Levelled l && l.epoch() == 2);
    c.nodes.get(0).tick(Timing.DEFAULT.resendMillis());
    c.flush();
    assertThat(c.nodes.get(3).localValue(0, K)).contains(Bytes.ofLong(2));
    assertThat(c.toControl).anyMatch(m -> m instanceof Levelled l && l.epoch() == 2);
    // from now on a round waits for it
    put(3, K, 3);
    c.drain(0);
    c.inbox.get(3).clear();
    for (int i = 0; i < 3; i++) {
      c.deliverTo(1);
      c.deliverTo(2);
      c.deliverTo(0);
    }
    assertThat(c.replies).last().extracting(Reply::id).isEqualTo(2L);
    c.nodes.get(0).tick(2 * Timing.DEFAULT.resendMillis());
    c.flush();
    assertThat(c.replies).last().extracting(Reply::id, Reply::outcome)
        .containsExactly(3L, Outcome.OK);
    assertThat(c.logs.get(3)).anyMatch(r -> r instanceof Record.Written w && w.seq() == 3);
  }

  @Test
  void aCopyInPagesTakesTheWritesThatArriveWithItAndARestartFromItsLogHoldsThem() {
    Cluster paged = new Cluster(3, 2);
    for (int n = 0; n < 2; n++) {
      paged.nodes.get(n).step(new Envelope(Control.ID, n, new Configure(0, 1, 0, List.of(1))));
    }
    paged.flush();
    for (int i = 0; i < 7; i++) {
      paged.request(0, new Request(i, 0, Kind.PUT, Bytes.ofLong(100 + i), null,
          Bytes.ofLong(i)));
      paged.flush();
    }
    Configure join = new Configure(0, 2, 0, List.of(1, 2), Numbering.NONE,
        new TreeSet<>(List.of(2)));
    for (int n = 0; n < 3; n++) {
      paged.nodes.get(n).step(new Envelope(Control.ID, n, join));
    }
    paged.drain(0);
    paged.deliverTo(2); // refuses the offer: it holds nothing
    paged.deliverTo(1);
    paged.deliverTo(0); // the primary serves, and starts node 2's copy in pages of two
    List<Envelope> sent = new ArrayList<>(paged.inbox.get(2));
    paged.inbox.get(2).clear();
    assertThat(sent).extracting(e -> ((Snapshot) e.message()).page())
        .as("a page a turn, not the whole copy at once").startsWith(0, 1).doesNotContain(3);
    // the partition takes writes while the copy is under way: over a key its pages have not
    // reached, and of a key it did not hold
    Bytes last = Bytes.ofLong(106);
    Bytes added = Bytes.ofLong(200);
    paged.request(0, new Request(50, 0, Kind.PUT, last, null, Bytes.ofLong(60)));
    paged.request(0, new Request(51, 0, Kind.PUT, added, null, Bytes.ofLong(1)));
    paged.drain(0);
    paged.deliverTo(1);
    paged.deliverTo(0);
    assertThat(paged.replies).extracting(Reply::id, Reply::outcome).endsWith(
        org.assertj.core.groups.Tuple.tuple(50L, Outcome.OK),
        org.assertj.core.groups.Tuple.tuple(51L, Outcome.OK));
    while (sent.stream().noneMatch(e -> e.message() instanceof Snapshot s && s.last())) {
      paged.drain(0);
      sent.addAll(paged.inbox.get(2));
      paged.inbox.get(2).clear();
    }
    List<Snapshot> pages = sent.stream().filter(e -> e.message() instanceof Snapshot)
        .map(e -> (Snapshot) e.message()).toList();
    assertThat(pages).extracting(Snapshot::page).containsExactly(0, 1, 2, 3);
    assertThat(pages).extracting(Snapshot::last).containsExactly(false, false, false, true);
    assertThat(pages).as("the pages are the partition as of the copy's seq")
        .allMatch(s -> s.seq() == 7).noneMatch(s -> s.data().containsKey(added))
        .filteredOn(s -> s.data().containsKey(last)).singleElement()
        .satisfies(s -> assertThat(s.data().get(last)).isEqualTo(Bytes.ofLong(6)));
    // half the copy arrives, then everything else in the order it was sent
    int half = sent.indexOf(sent.stream().filter(e -> e.message() instanceof Snapshot s
        && s.page() == 1).findFirst().orElseThrow());
    sent.subList(0, half + 1).forEach(e -> paged.nodes.get(2).step(e));
    paged.drain(2);
    assertThat(paged.nodes.get(2).localValue(0, added)).isEmpty();
    sent.subList(half + 1, sent.size()).forEach(e -> paged.nodes.get(2).step(e));
    paged.flush();
    Replica joined = paged.nodes.get(2);
    assertThat(joined.localValue(0, last)).contains(Bytes.ofLong(60));
    assertThat(joined.localValue(0, added)).contains(Bytes.ofLong(1));
    assertThat(joined.localData(0)).hasSize(8).isEqualTo(paged.nodes.get(0).localData(0));
    assertThat(paged.toControl).anyMatch(m -> m instanceof Levelled l && l.epoch() == 2);
    Replica restarted = Replica.restore(2, Timing.DEFAULT, paged.logs.get(2), 2);
    assertThat(restarted.localData(0)).isEqualTo(joined.localData(0));
    // a restart from the log cut between two pages holds what it held before the copy
    int mid = paged.logs.get(2).indexOf(paged.logs.get(2).stream()
        .filter(r -> r instanceof Record.SnapshotPage p && p.page() == 1).findFirst()
        .orElseThrow());
    Replica cut = Replica.restore(2, Timing.DEFAULT, paged.logs.get(2).subList(0, mid + 1), 2);
    assertThat(cut.localData(0)).isEmpty();
    assertThat(cut.checkpoint()).filteredOn(r -> r instanceof Record.SnapshotPage).hasSize(2);
  }
  @Test
  void aCopyKeepsAFewPagesInFlightAndGoesOnAsItsBackupTakesThem() {
    Cluster paged = new Cluster(2, 1); // a page an entry
    paged.nodes.get(0).step(new Envelope(Control.ID, 0, new Configure(0, 1, 0, List.of())));
    paged.flush();
    int keys = 3 * Replica.COPY_WINDOW;
    for (int i = 0; i < keys; i++) {
      paged.request(0, new Request(i, 0, Kind.PUT, Bytes.ofLong(i), null, Bytes.ofLong(i)));
      paged.flush();
    }
    Configure join = new Configure(0, 2, 0, List.of(1), Numbering.NONE, new TreeSet<>(List.of(1)));
    for (int n = 0; n < 2; n++) {
      paged.nodes.get(n).step(new Envelope(Control.ID, n, join));
    }
    paged.drain(0);
    paged.deliverTo(1); // refuses the offer: it holds nothing
    paged.deliverTo(0);
    for (int i = 0; i < keys; i++) {
      paged.drain(0); // nothing taken yet: no page past the window
    }
    List<Envelope> inFlight = List.copyOf(paged.inbox.get(1));
    assertThat(inFlight).extracting(e -> ((Snapshot) e.message()).page())
        .containsExactly(java.util.stream.IntStream.range(0, Replica.COPY_WINDOW).boxed()
            .toArray(Integer[]::new));
    // the first page arrives twice (a duplicate): taken once, answered twice
    paged.inbox.get(1).add(0, inFlight.get(0));
    paged.nodes.get(1).step(paged.inbox.get(1).remove(0));
    paged.nodes.get(1).step(paged.inbox.get(1).remove(0));
    Ready answers = paged.nodes.get(1).ready();
    assertThat(answers.records()).filteredOn(r -> r instanceof Record.SnapshotPage).hasSize(1);
    long level = ((Snapshot) inFlight.get(0).message()).level();
    assertThat(answers.messages()).extracting(Envelope::message).containsExactly(
        new Message.Taken(0, 2, level, keys, 0), new Message.Taken(0, 2, level, keys, 0));
    answers.messages().forEach(e -> paged.nodes.get(0).step(e));
    for (int i = 0; i < keys; i++) {
      paged.drain(0);
    }
    assertThat(paged.inbox.get(1)).extracting(e -> ((Snapshot) e.message()).page())
        .as("one page more for the one taken").containsExactly(1, 2, 3, Replica.COPY_WINDOW);
    paged.flush();
    assertThat(paged.nodes.get(1).localData(0)).hasSize(keys)
        .isEqualTo(paged.nodes.get(0).localData(0));
    assertThat(paged.toControl).anyMatch(m -> m instanceof Levelled l && l.epoch() == 2);
  }
}
