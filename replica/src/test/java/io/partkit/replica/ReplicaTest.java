package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Refuse;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Snapshot;
import io.partkit.replica.Message.Suspect;
import java.util.ArrayList;
import java.util.List;
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
    assertThat(first.records()).singleElement().isInstanceOf(Record.Written.class);
    assertThat(first.messages()).extracting(Envelope::message)
        .allMatch(m -> m instanceof Replicate).hasSize(2);
    c.route(first);
    c.deliverTo(1); // backup 1 acknowledges
    c.deliverTo(0);
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
  void aFailedCasChangesNothingAndNeedsNoRoundTrip() {
    c.request(0, new Request(1, 0, Kind.CAS, K, Bytes.ofLong(5), Bytes.ofLong(6)));
    Ready r = c.nodes.get(0).ready();
    assertThat(r.records()).isEmpty();
    assertThat(r.messages()).singleElement().extracting(e -> ((Reply) e.message()).outcome())
        .isEqualTo(Outcome.FAIL);
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
    assertThat(level.messages()).extracting(Envelope::message)
        .allMatch(m -> m instanceof Snapshot).hasSize(2);
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

  /** Nodes 0..n-1 whose messages are delivered in order and whose records are kept as synced. */
  static final class Cluster {
    final List<Replica> nodes = new ArrayList<>();
    final List<List<Record>> logs = new ArrayList<>();
    final List<List<Envelope>> inbox = new ArrayList<>();
    final List<Reply> replies = new ArrayList<>();
    final List<Message> toControl = new ArrayList<>();

    Cluster(int n) {
      for (int i = 0; i < n; i++) {
        nodes.add(new Replica(i, Timing.DEFAULT));
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

    void request(int node, Request r) {
      nodes.get(node).step(new Envelope(CLIENT, node, r));
    }

    void route(Ready r) {
      for (Envelope e : r.messages()) {
        if (e.to() == CLIENT) {
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
          || m instanceof Message.Pong);
    }
  }
}
