package io.partkit.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Bytes;
import io.partkit.replica.Envelope;
import io.partkit.replica.Message.Configure;
import io.partkit.replica.Numbering;
import io.partkit.replica.Message.Kind;
import io.partkit.replica.Message.Request;
import io.partkit.replica.Record;
import io.partkit.replica.Timing;
import io.partkit.replica.mutants.Mutant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * One simulated node's disk across restarts: every second restart compacts its log to the
 * restored core's checkpoint, so does the durable log's growth while running, and a damaged
 * checkpoint is detected as a damaged write is, or, under the planted bug, served.
 */
class SimNodeTest {

  private static final Bytes KEY = Bytes.ofLong(3);

  private final VirtualTime time = new VirtualTime();

  /** Node 0, the sole member of partition 0, holding {@code KEY} = 41 durably. */
  private SimNode node(Mutant mutant) {
    SimNode n = new SimNode(0, time, new Random(1),
        new SimNetwork(time, new Random(2), new Random(3)), Timing.DEFAULT, mutant);
    n.start();
    // the control names the node's incarnation first: it takes configurations from then on
    n.receive(new Envelope(io.partkit.replica.Control.ID, 0,
        new io.partkit.replica.Message.Ping(1, n.core.incarnation(), List.of())));
    n.receive(new Envelope(io.partkit.replica.Control.ID, 0,
        new Configure(0, 1, 0, List.of(), new Numbering.Hashed(1, 1))));
    put(n, 1, 41);
    return n;
  }

  /** The node's durable records after the first, which names its incarnation. */
  private static List<Record> compacted(SimNode n) {
    List<Record> log = n.durableRecords();
    assertThat(log.get(0)).isEqualTo(new Record.Born(n.core.incarnation()));
    return log.subList(1, log.size());
  }

  private void put(SimNode n, long id, long value) {
    n.receive(new Envelope(SimNetwork.CLIENT_BASE, 0,
        new Request(id, 0, Kind.PUT, KEY, null, Bytes.ofLong(value))));
    time.runUntil(time.now() + 100);
  }

  @Test
  void everySecondRestartCompactsTheLogToACheckpointThatHoldsEveryWrite() {
    SimNode n = node(null);
    int grown = n.durableRecords().size();
    assertThat(grown).isGreaterThan(1);
    n.crash(false);
    assertThat(n.restart()).isTrue();
    assertThat(compacted(n)).singleElement().isInstanceOf(Record.Checkpoint.class);
    assertThat(n.core.localValue(0, KEY)).contains(Bytes.ofLong(41));

    put(n, 2, 42);
    n.crash(false);
    assertThat(n.restart()).isTrue();
    // the second restart keeps the log as it grew: the checkpoint, a level, the write
    assertThat(compacted(n)).hasSizeGreaterThan(2).first()
        .isInstanceOf(Record.Checkpoint.class);
    n.crash(false);
    assertThat(n.restart()).isTrue();
    assertThat(compacted(n)).singleElement().isInstanceOf(Record.Checkpoint.class);
    assertThat(n.core.localValue(0, KEY)).contains(Bytes.ofLong(42));
  }

  @Test
  void whileRunningTheDurableLogIsCompactedAsItGrowsAndARestartFindsTheLastWrite() {
    SimNode n = node(null);
    int largest = 0;
    boolean compacted = false;
    for (int i = 2; i < 3 * SimNode.COMPACT_RECORDS; i++) {
      put(n, i, 100 + i);
      List<Record> log = compacted(n);
      largest = Math.max(largest, log.size());
      compacted |= log.get(0) instanceof Record.Checkpoint;
    }
    assertThat(compacted).as("compacted while running").isTrue();
    assertThat(largest).as("the log never grows far past the threshold")
        .isLessThanOrEqualTo(SimNode.COMPACT_RECORDS + 4);
    assertThat(n.durableRecords().stream().filter(Record.Checkpoint.class::isInstance))
        .as("one checkpoint record for the node's one partition, at the log's start").hasSize(1);
    n.crash(false);
    assertThat(n.restart()).isTrue();
    assertThat(n.core.localValue(0, KEY))
        .contains(Bytes.ofLong(100 + 3 * SimNode.COMPACT_RECORDS - 1));
  }

  @Test
  void aPartitionOfMoreThanAPageIsCompactedToACheckpointInPagesThatARestartTakesWhole() {
    SimNode n = node(null);
    for (long k = 10; k < 30; k++) {
      n.receive(new Envelope(SimNetwork.CLIENT_BASE, 0,
          new Request(k, 0, Kind.PUT, Bytes.ofLong(k), null, Bytes.ofLong(k * 7))));
      time.runUntil(time.now() + 100);
    }
    n.crash(false);
    assertThat(n.restart()).isTrue();
    List<Record> log = compacted(n);
    List<Record> pages = log.stream().filter(Record.CheckpointPage.class::isInstance).toList();
    // 21 entries of 24 bytes, four a page of 96 bytes: five pages, the last in the checkpoint
    assertThat(pages).hasSize(5);
    assertThat(log).hasSize(6).last().isInstanceOf(Record.Checkpoint.class)
        .extracting(r -> ((Record.Checkpoint) r).pages()).isEqualTo(5);
    n.crash(false);
    assertThat(n.restart()).isTrue();
    n.crash(false);
    assertThat(n.restart()).isTrue();
    for (long k = 10; k < 30; k++) {
      assertThat(n.core.localValue(0, Bytes.ofLong(k))).as("key %d", k)
          .contains(Bytes.ofLong(k * 7));
    }
    assertThat(n.core.localValue(0, KEY)).contains(Bytes.ofLong(41));
  }

  @Test
  void aDamagedCheckpointIsDetectedAtRestartOrUnderThePlantedBugServed() {
    for (Mutant mutant : new Mutant[] {null, Mutant.UNCHECKED_RECORDS}) {
      SimNode n = node(mutant);
      n.crash(true);
      assertThat(n.restart()).isTrue();
      n.crash(true);
      assertThat(n.damageLastValue()).isTrue();
      assertThat(n.damagedRecord()).as("the checkpoint, the log's only value, after its birth")
          .isEqualTo(1);
      if (mutant == null) {
        assertThat(n.restart()).as("a damaged checkpoint stops the node").isFalse();
        assertThat(n.up()).isFalse();
      } else {
        assertThat(n.restart()).isTrue();
        assertThat(n.core.localValue(0, KEY)).isPresent().get().isNotEqualTo(Bytes.ofLong(41));
      }
    }
  }
}
