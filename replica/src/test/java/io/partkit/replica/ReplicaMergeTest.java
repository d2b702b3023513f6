package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Outcome;
import io.partkit.replica.Message.Refuse;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Message.Reply;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Message.Scan;
import io.partkit.replica.Record.Merge;
import io.partkit.replica.ReplicaTest.Cluster;
import io.partkit.spi.KeyRanges;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Merges on the nodes: each member combines the two halves of a split by one logged record when
 * the merged numbering reaches it, refuses the old numbering of both from then on, and a restart
 * from any prefix of its log finds it before the merge or after it.
 */
class ReplicaMergeTest {

  private static final int KEYS = ReplicaTest.KEYS;
  private static final Numbering HALVES = new Numbering.Hashed(1, 2);
  private static final Numbering MERGED = HALVES.merge(0, 1);

  /** Keys 0..15 in partition 0 of node 0 (backups 1, 2), split in two at epoch 2. */
  private static Cluster split() {
    Cluster s = ReplicaTest.numbered(new Numbering.Hashed(1, 1));
    s.configure(0, 2, 0, List.of(1, 2), HALVES, Set.of(0, 1, 2));
    s.configure(1, 2, 0, List.of(1, 2), HALVES, Set.of(0, 1, 2));
    s.flush();
    return s;
  }

  private static int owner(long key) {
    return HALVES.holds(1, Bytes.ofLong(key)) ? 1 : 0;
  }

  /** One write to every key, each in the half that holds it: values 200 + key. */
  private static void writeAll(Cluster s) {
    for (int k = 0; k < KEYS; k++) {
      s.request(0, new Request(500 + k, owner(k), Kind.PUT, Bytes.ofLong(k), null,
          Bytes.ofLong(200 + k)));
    }
    s.flush();
    assertThat(s.replies).hasSize(KEYS).allMatch(r -> r.outcome() == Outcome.OK);
    s.replies.clear();
  }

  @Test
  void everyMemberCombinesBothHalvesByOneRecordAndTheMergedPartitionServesEveryKey() {
    Cluster s = split();
    writeAll(s);
    s.configure(0, 3, 0, List.of(1, 2), MERGED, Set.of(0, 1, 2));
    for (int n = 0; n < 3; n++) {
      Replica r = s.nodes.get(n);
      s.drain(n);
      assertThat(s.logs.get(n)).as("node %d", n).filteredOn(Merge.class::isInstance)
          .containsExactly(new Merge(0, 1, MERGED));
      assertThat(r.numbering(0)).isEqualTo(MERGED);
      assertThat(r.role(1)).as("node %d", n).isEqualTo(Role.ABSENT);
      for (long k = 0; k < KEYS; k++) {
        assertThat(r.localValue(0, Bytes.ofLong(k))).as("node %d key %d", n, k)
            .contains(Bytes.ofLong(200 + k));
        assertThat(r.localValue(1, Bytes.ofLong(k))).as("node %d key %d", n, k).isEmpty();
      }
    }
    s.flush();
    int moved = ReplicaTest.movedKey();
    s.request(0, new Request(900, 0, Kind.GET, Bytes.ofLong(moved), null, null));
    s.request(0, new Request(901, 0, Kind.PUT, Bytes.ofLong(moved), null, Bytes.ofLong(9)));
    s.request(0, new Request(902, 1, Kind.GET, Bytes.ofLong(moved), null, null));
    s.flush();
    assertThat(s.replies).extracting(Reply::id).containsExactlyInAnyOrder(900L, 901L, 902L);
    assertThat(s.replies).filteredOn(r -> r.id() == 900).singleElement()
        .extracting(Reply::value).isEqualTo(Bytes.ofLong(200 + moved));
    assertThat(s.replies).filteredOn(r -> r.id() == 901).singleElement()
        .extracting(Reply::outcome).isEqualTo(Outcome.OK);
    assertThat(s.replies).filteredOn(r -> r.id() == 902).singleElement()
        .extracting(Reply::outcome).as("the merged half is no partition any more")
        .isEqualTo(Outcome.FAIL);
    for (int n = 1; n < 3; n++) {
      assertThat(s.nodes.get(n).localValue(0, Bytes.ofLong(moved))).contains(Bytes.ofLong(9));
    }
  }

  @Test
  void theOldNumberingsReplicationReadsAndScansAreRefusedOnceBackupsMerged() {
    Cluster s = split();
    s.configure(0, 3, 0, List.of(1, 2), MERGED, Set.of(1, 2)); // node 0 has not heard yet
    s.drain(1);
    s.drain(2);
    s.inbox.forEach(List::clear);
    Replica backup = s.nodes.get(1);
    // the higher half's old replication is stale: fenced one epoch past its last
    backup.step(new Envelope(0, 1, new Replicate(1, 2, 1, 99, ReplicaTest.K, Bytes.ofLong(9))));
    assertThat(backup.ready().messages()).extracting(Envelope::message)
        .containsExactly(new Refuse(1, 3, true));
    int moved = ReplicaTest.movedKey();
    s.request(0, new Request(1, 1, Kind.PUT, Bytes.ofLong(moved), null, Bytes.ofLong(9)));
    s.request(0, new Request(2, 0, Kind.GET, Bytes.ofLong(ReplicaTest.stayingKey()), null,
        null));
    s.flush();
    assertThat(s.replies).hasSize(2).allSatisfy(r ->
        assertThat(r.outcome()).as("%s", r).isNotEqualTo(Outcome.OK));
    // a scan routed by the halves' numbering is refused by the merged partition
    s.configure(0, 3, 0, List.of(1, 2), MERGED, Set.of(0));
    s.flush();
    s.request(0, new Scan(3, 0, 2, Bytes.of(new byte[0]), null, 100));
    s.request(0, new Scan(4, 0, 1, Bytes.of(new byte[0]), null, 100));
    s.request(0, new Scan(5, 0, 1, Bytes.of(new byte[0]), null, 100, 1));
    s.flush();
    s.pages.sort(java.util.Comparator.comparingLong(Message.Page::id));
    assertThat(s.pages).extracting(Message.Page::outcome)
        .containsExactly(Outcome.FAIL, Outcome.FAIL, Outcome.OK);
    assertThat(s.pages.get(1).why()).contains("generation 1");
    assertThat(s.pages.get(2).entries()).hasSize(KEYS);
  }

  @Test
  void aRestartFromAnyPrefixOfTheLogFindsTheNodeBeforeOrAfterTheMerge() {
    Cluster s = split();
    writeAll(s);
    s.configure(0, 3, 0, List.of(1, 2), MERGED, Set.of(0, 1, 2));
    s.flush();
    List<Record> log = s.logs.get(1);
    int at = log.indexOf(new Merge(0, 1, MERGED));
    assertThat(at).isPositive();
    for (int cut : List.of(at, at + 1, log.size())) {
      Replica r = Replica.restore(1, Timing.DEFAULT, log.subList(0, cut));
      for (long k = 0; k < KEYS; k++) {
        int p = cut <= at ? owner(k) : 0;
        assertThat(r.localValue(p, Bytes.ofLong(k))).as("cut %d key %d", cut, k)
            .contains(Bytes.ofLong(200 + k));
        if (cut > at) {
          assertThat(r.localValue(1, Bytes.ofLong(k))).as("cut %d key %d", cut, k).isEmpty();
        }
      }
      assertThat(r.numbering(0)).isEqualTo(cut <= at ? HALVES : MERGED);
      // the checkpoint of the restored node gives the same node again
      Replica again = Replica.restore(1, Timing.DEFAULT, r.checkpoint());
      assertThat(again.numbering(0)).isEqualTo(r.numbering(0));
      assertThat(again.epoch(1)).isEqualTo(r.epoch(1));
    }
  }

  @Test
  void aMergeOfKeyRangesTakesTheSplitsCutAwayAndTheMergedRangeSplitsAgainElsewhere() {
    Numbering whole = Numbering.of(KeyRanges.of(List.of()), 0);
    Numbering at8 = whole.split(0, Bytes.ofLong(8));
    Numbering merged = at8.merge(0, 1);
    Numbering at4 = merged.split(0, Bytes.ofLong(4));
    Cluster s = ReplicaTest.numbered(whole);
    s.configure(0, 2, 0, List.of(1, 2), at8, Set.of(0, 1, 2));
    s.configure(1, 2, 0, List.of(1, 2), at8, Set.of(0, 1, 2));
    s.flush();
    s.configure(0, 3, 0, List.of(1, 2), merged, Set.of(0, 1, 2));
    s.flush();
    s.configure(0, 4, 0, List.of(1, 2), at4, Set.of(0, 1, 2));
    s.configure(1, 4, 0, List.of(1, 2), at4, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      Replica r = s.nodes.get(n);
      for (long k = 0; k < KEYS; k++) {
        Bytes key = Bytes.ofLong(k);
        assertThat(r.localValue(k < 4 ? 0 : 1, key)).as("node %d key %d", n, k)
            .contains(Bytes.ofLong(100 + k));
        assertThat(r.localValue(k < 4 ? 1 : 0, key)).as("node %d key %d", n, k).isEmpty();
      }
      assertThat(r.numbering(1)).isEqualTo(at4);
    }
    s.request(0, new Request(1, 1, Kind.PUT, Bytes.ofLong(5), null, Bytes.ofLong(7)));
    s.flush();
    assertThat(s.replies).singleElement().extracting(Reply::outcome).isEqualTo(Outcome.OK);
    assertThat(s.nodes.get(2).localValue(1, Bytes.ofLong(5))).contains(Bytes.ofLong(7));
  }

  @Test
  void aMergeFurtherDownTheLineLeavesTheSiblingOfTheMergedPartitionAlone() {
    // 0 and 1 at modulus 2; 1 split into 1 and 3 at modulus 4, which merge back: 1 at
    // modulus 2, one generation on. A node holding 0 must not take that for a merge of 0 and 1.
    Numbering quarters = HALVES.split(1, null);
    Numbering back = quarters.merge(1, 1);
    assertThat(back.modulus()).isEqualTo(2);
    Cluster s = split();
    s.configure(1, 3, 0, List.of(1, 2), back, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      Replica r = s.nodes.get(n);
      assertThat(s.logs.get(n)).as("node %d", n).noneMatch(Merge.class::isInstance);
      assertThat(r.numbering(0)).as("node %d", n).isEqualTo(HALVES);
      assertThat(r.role(0)).as("node %d", n).isEqualTo(n == 0 ? Role.PRIMARY : Role.BACKUP);
      for (long k = 0; k < KEYS; k++) {
        assertThat(r.localValue(owner(k), Bytes.ofLong(k))).as("node %d key %d", n, k)
            .contains(Bytes.ofLong(100 + k));
      }
    }
    s.request(0, new Request(1, 0, Kind.GET, Bytes.ofLong(ReplicaTest.stayingKey()), null,
        null));
    s.flush();
    assertThat(s.replies).singleElement().extracting(Reply::outcome).isEqualTo(Outcome.OK);
  }

  @Test
  void aLateConfigurationOfTheMergedHalfNeitherSplitsTheMergeAgainNorRevivesTheHalf() {
    Cluster s = split();
    writeAll(s);
    s.configure(0, 3, 0, List.of(1, 2), MERGED, Set.of(0, 1, 2));
    s.flush();
    // the higher half's configuration of before the merge, delivered late (duplicated)
    s.configure(1, 2, 0, List.of(1, 2), HALVES, Set.of(0, 1, 2));
    s.flush();
    for (int n = 0; n < 3; n++) {
      Replica r = s.nodes.get(n);
      assertThat(r.numbering(0)).as("node %d", n).isEqualTo(MERGED);
      assertThat(r.role(1)).as("node %d", n).isEqualTo(Role.ABSENT);
      assertThat(s.logs.get(n)).as("node %d: the first split only", n)
          .filteredOn(Record.Split.class::isInstance).hasSize(1);
      for (long k = 0; k < KEYS; k++) {
        assertThat(r.localValue(0, Bytes.ofLong(k))).as("node %d key %d", n, k)
            .contains(Bytes.ofLong(200 + k));
      }
    }
  }
}
