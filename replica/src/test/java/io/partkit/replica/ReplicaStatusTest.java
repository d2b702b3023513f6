package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Request;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Replica#status}: what a node reports of each partition it knows, from its state alone
 * (the same before and after a restart from its records), and that asking changes nothing.
 */
class ReplicaStatusTest {

  static final Bytes K = Bytes.ofLong(7);

  @Test
  void aPrimaryAndItsBackupsReportRolesEpochLevelWritesAndKeys() {
    ReplicaTest.Cluster c = new ReplicaTest.Cluster(3);
    c.configure(0, 1, 0, List.of(1, 2));
    c.flush();
    for (long k = 0; k < 5; k++) {
      c.request(0, new Request(k + 1, 0, Kind.PUT, Bytes.ofLong(k), null, Bytes.ofLong(k)));
      c.flush();
    }
    Replica.Status primary = c.nodes.get(0).status(0);
    assertThat(primary.role()).isEqualTo(Role.PRIMARY);
    assertThat(primary.epoch()).isEqualTo(1);
    assertThat(primary.primary()).isZero();
    assertThat(primary.backups()).containsExactly(1, 2);
    assertThat(primary.joining()).isEmpty();
    assertThat(primary.levelled()).isTrue();
    assertThat(primary.serving()).isTrue();
    assertThat(primary.keys()).isEqualTo(5);
    assertThat(primary.seq()).as("five writes in the level").isEqualTo(5);
    assertThat(primary.level()).isPositive();
    assertThat(primary.state()).isEqualTo(c.nodes.get(0).stateName(0));
    assertThat(primary.queued()).isZero();
    assertThat(primary.copiesSending()).isZero();
    for (int n = 1; n <= 2; n++) {
      Replica.Status backup = c.nodes.get(n).status(0);
      assertThat(backup.role()).as("node %d", n).isEqualTo(Role.BACKUP);
      assertThat(backup.primary()).isZero();
      assertThat(backup.epoch()).isEqualTo(1);
      assertThat(backup.level()).as("the primary's level").isEqualTo(primary.level());
      assertThat(backup.levelled()).isTrue();
      assertThat(backup.serving()).as("a backup serves no one").isFalse();
      assertThat(backup.keys()).isEqualTo(5);
      assertThat(backup.seq()).isEqualTo(5);
      assertThat(backup.copyArriving()).isFalse();
    }
    assertThat(c.nodes.get(0).statuses()).containsExactly(primary);
  }

  /**
   * {@link Replica#medianKey}: the key at index keys / 2 in unsigned order, on the primary and
   * its backup alike; none for an empty copy or an unknown partition; asking changes nothing.
   */
  @Test
  void theMedianKeyIsTheMiddleKeyInUnsignedOrderAndNoneWhenEmpty() {
    ReplicaTest.Cluster c = new ReplicaTest.Cluster(2);
    c.configure(0, 1, 0, List.of(1));
    c.flush();
    assertThat(c.nodes.get(0).medianKey(0)).as("no key yet").isEmpty();
    assertThat(c.nodes.get(0).medianKey(5)).as("no such partition").isEmpty();
    // written out of order, one key with the sign bit set: unsigned order puts it last
    long[] keys = {0x80L << 56, 3, 1, 4, 2};
    for (int i = 0; i < keys.length; i++) {
      c.request(0, new Request(i + 1, 0, Kind.PUT, Bytes.ofLong(keys[i]), null,
          Bytes.ofLong(i)));
      c.flush();
      if (i == 0) {
        assertThat(c.nodes.get(0).medianKey(0)).as("one key: itself")
            .hasValue(Bytes.ofLong(keys[0]));
      }
    }
    // 1, 2, 3, 4, 0x80..: index 5 / 2 = 2
    assertThat(c.nodes.get(0).medianKey(0)).hasValue(Bytes.ofLong(3));
    assertThat(c.nodes.get(1).medianKey(0)).as("the backup's copy").hasValue(Bytes.ofLong(3));
    c.request(0, new Request(9, 0, Kind.PUT, Bytes.ofLong(0), null, Bytes.ofLong(9)));
    c.flush();
    // 0, 1, 2, 3, 4, 0x80..: index 6 / 2 = 3, the upper half's first key
    Replica.Status before = c.nodes.get(0).status(0);
    assertThat(c.nodes.get(0).medianKey(0)).hasValue(Bytes.ofLong(3));
    assertThat(c.nodes.get(0).status(0)).as("asking changes nothing").isEqualTo(before);
  }

  @Test
  void aPartitionNeverHeardOfIsAbsentAtEpochZero() {
    Replica r = new Replica(4, Timing.DEFAULT);
    Replica.Status s = r.status(9);
    assertThat(s.role()).isEqualTo(Role.ABSENT);
    assertThat(s.epoch()).isZero();
    assertThat(s.numbering()).isEqualTo(Numbering.NONE);
    assertThat(s.primary()).isEqualTo(-1);
    assertThat(s.keys()).isZero();
    assertThat(r.statuses()).isEmpty();
    assertThat(r.ready().isEmpty()).as("asking made nothing").isTrue();
  }

  @Test
  void aRestartedPrimaryReportsTheSameCopyButDoesNotServeUntilItLevelledAgain() {
    ReplicaTest.Cluster c = new ReplicaTest.Cluster(2);
    c.configure(0, 1, 0, List.of(1));
    c.flush();
    c.request(0, new Request(1, 0, Kind.PUT, K, null, Bytes.ofLong(1)));
    c.flush();
    Replica.Status before = c.nodes.get(0).status(0);
    Replica restarted = Replica.restore(0, Timing.DEFAULT, c.logs.get(0));
    Replica.Status after = restarted.status(0);
    assertThat(after.role()).isEqualTo(Role.PRIMARY);
    assertThat(after.keys()).isEqualTo(before.keys());
    assertThat(after.seq()).isEqualTo(before.seq());
    assertThat(after.epoch()).isEqualTo(before.epoch());
    assertThat(before.serving()).isTrue();
    assertThat(after.serving()).as("it levels its backups first").isFalse();
  }

  @Test
  void aPrimaryWithAJoiningBackupNamesItAndTheCopyItSendsAndTheBackupTheCopyArriving() {
    ReplicaTest.Cluster c = new ReplicaTest.Cluster(2, 1); // copies in pages of one entry
    c.nodes.get(0).step(new Envelope(Control.ID, 0, new Configure(0, 1, 0, List.of())));
    c.flush();
    for (long k = 0; k < 10; k++) {
      c.request(0, new Request(k + 1, 0, Kind.PUT, Bytes.ofLong(k), null, Bytes.ofLong(k)));
      c.flush();
    }
    Configure joined = new Configure(0, 2, 0, List.of(1), Numbering.NONE,
        new java.util.TreeSet<>(List.of(1)));
    c.nodes.get(0).step(new Envelope(Control.ID, 0, joined));
    c.nodes.get(1).step(new Envelope(Control.ID, 1, joined));
    // the level is offered by name; the fresh backup, holding no state of it, is sent the
    // whole copy, a window of pages at a time
    Replica.Status primary = c.nodes.get(0).status(0);
    for (int step = 0; step < 5 && primary.copiesSending() == 0; step++) {
      c.drain(0);
      c.deliverTo(1);
      c.drain(1);
      c.deliverTo(0);
      primary = c.nodes.get(0).status(0);
    }
    assertThat(primary.epoch()).isEqualTo(2);
    assertThat(primary.backups()).containsExactly(1);
    assertThat(primary.joining()).containsExactly(1);
    assertThat(primary.copiesSending()).isEqualTo(1);
    assertThat(primary.serving()).as("a joining backup holds up nothing").isTrue();
    c.deliverTo(1);
    Replica.Status arriving = c.nodes.get(1).status(0);
    assertThat(arriving.copyArriving()).as("some pages of ten taken").isTrue();
    assertThat(arriving.levelled()).isFalse();
    c.flush();
    Replica.Status done = c.nodes.get(0).status(0);
    assertThat(done.joining()).as("level once it took the whole copy").isEmpty();
    assertThat(done.copiesSending()).isZero();
    Replica.Status backup = c.nodes.get(1).status(0);
    assertThat(backup.keys()).isEqualTo(10);
    assertThat(backup.levelled()).isTrue();
    assertThat(backup.copyArriving()).isFalse();
  }
}
