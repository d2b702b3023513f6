package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Suspect;
import io.partkit.replica.Record.ControlState;
import io.partkit.replica.strategy.StrategyPlacement;
import io.partkit.spi.Partitioners;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A control restarted from every prefix of the records a run produced: it rebuilds the durable
 * state of the record it ends on, never hands out an epoch again with another configuration,
 * promotes only level members, and settles (a move resumed or rolled back) once nodes answer.
 */
class ControlRestartTest {

  private static final Timing TIMING = Timing.DEFAULT;
  private static final int PARTITIONS = 3;
  private static final int REPLICAS = 3;
  private static final List<Integer> MEMBERS = List.of(0, 1, 2, 3, 4);

  /**
   * The nodes as the test plays them: each holds the epochs it was configured at, answers
   * heartbeats with them when up, and as primary reports its level some of the time.
   */
  private static final class Cluster extends FakeNodes {
    final Random random;
    /** Every record the control produced, in order. */
    final List<Record> records = new ArrayList<>();
    /** Every configuration sent, with how many records were durable before it left. */
    final List<Sent> sent = new ArrayList<>();
    int nextNode = MEMBERS.size();
    long now;
    /** In how many of ten levellings a primary's report reaches the control. */
    final int reportedOfTen;

    Cluster(long seed, int reportedOfTen) {
      random = new Random(seed);
      this.reportedOfTen = reportedOfTen;
      for (int n : MEMBERS) {
        held.put(n, new TreeMap<>());
      }
    }

    /** Acts on the control's Ready: its records first, then its messages (lost to a down node). */
    void drain(Control c) {
      Ready r = c.ready();
      records.addAll(r.records());
      for (Envelope e : r.messages()) {
        if (e.message() instanceof Configure cf) {
          sent.add(new Sent(records.size(), cf));
          configure(e.to(), cf, () -> random.nextInt(10) < reportedOfTen);
        }
      }
    }

    /** Ten milliseconds: what nodes sent, heartbeats from the up nodes, a tick. */
    void step(Control c) {
      now += 10;
      deliver(c);
      c.tick(now);
      drain(c);
    }

    /** Now and then a node goes down or comes back, or an operator acts. */
    void chaos(Control c) {
      int roll = random.nextInt(200);
      List<Integer> nodes = new ArrayList<>(held.keySet());
      int n = nodes.get(random.nextInt(nodes.size()));
      if (roll < 4) {
        if (!down.remove(n) && down.size() < 1) {
          down.add(n);
        }
      } else if (roll < 6) {
        c.migrate(random.nextInt(PARTITIONS), n);
      } else if (roll < 7 && c.partitions() < 2 * PARTITIONS) {
        c.split(c.partitionIds().get(random.nextInt(c.partitions())));
      } else if (roll < 8) {
        int p = c.partitionIds().get(random.nextInt(c.partitions()));
        Configure cf = c.configuration(p);
        if (cf.backups().size() > 0) {
          toControl.add(new Envelope(cf.primary(), Control.ID, new Suspect(p, cf.epoch(),
              Set.of(cf.backups().get(random.nextInt(cf.backups().size()))))));
        }
      } else if (roll < 9 && held.size() < 8) {
        held.put(nextNode, new TreeMap<>());
        c.join(nextNode++);
      }
      drain(c);
    }
  }

  private record Sent(int durableBefore, Configure configure) {}

  @Test
  void aRestartFromEveryPrefixOfARunsRecordsContinuesConsistently() {
    restartsFromEveryPrefix(null);
  }

  @Test
  void aRestartUnderAStrategysPlacementFromEveryPrefixContinuesConsistently() {
    restartsFromEveryPrefix(StrategyPlacement.of(
        Partitioners.load().provider("rendezvous").orElseThrow()));
  }

  /** A fresh control, placing copies by {@code placement} or, when null, by its own rule. */
  private static Control fresh(Placement placement) {
    return placement == null ? new Control(TIMING, PARTITIONS, REPLICAS, MEMBERS)
        : new Control(TIMING, PARTITIONS, REPLICAS, MEMBERS, placement);
  }

  private static Control restore(Placement placement, List<Record> records) {
    return placement == null ? Control.restore(TIMING, REPLICAS, records)
        : Control.restore(TIMING, REPLICAS, placement, records);
  }

  private static void restartsFromEveryPrefix(Placement placement) {
    for (long seed = 1; seed <= 6; seed++) {
      Cluster run = new Cluster(seed, 7);
      Control original = fresh(placement);
      run.drain(original);
      for (int i = 0; i < 600; i++) {
        run.chaos(original);
        run.step(original);
      }
      assertThat(run.records).as("seed %d", seed).hasSizeGreaterThan(5);
      recordsPrecedeTheConfigurationsTheyAnnounce(seed, run);
      for (int k = 0; k <= run.records.size(); k++) {
        List<Record> prefix = run.records.subList(0, k);
        Control restored = k == 0 ? fresh(placement) : restore(placement, prefix);
        if (k > 0) {
          assertThat(restored.durableState()).as("seed %d prefix %d", seed, k)
              .isEqualTo(run.records.get(k - 1));
        }
        continueAfterRestart(seed, k, run, restored);
      }
    }
  }

  /** Every configuration left after a record holding its epoch for its partition was durable. */
  private static void recordsPrecedeTheConfigurationsTheyAnnounce(long seed, Cluster run) {
    for (Sent s : run.sent) {
      assertThat(s.durableBefore()).as("seed %d: %s", seed, s.configure()).isPositive();
      ControlState state = (ControlState) run.records.get(s.durableBefore() - 1);
      long epoch = state.rows().stream()
          .filter(r -> r.partition() == s.configure().partition())
          .mapToLong(ControlState.Row::epoch).findFirst().orElse(-1);
      assertThat(epoch).as("seed %d: %s", seed, s.configure())
          .isGreaterThanOrEqualTo(s.configure().epoch());
    }
  }

  /**
   * The restored control runs on against the nodes as the crash left them: only configurations
   * whose records were durable had left. It keeps its hands off for a down-time, reuses no
   * epoch, promotes only level members, and settles once every node answers.
   */
  private static void continueAfterRestart(long seed, int k, Cluster original, Control c) {
    // every report arrives now: what the crash lost the restored control must level again
    Cluster run = new Cluster(seed * 1_000 + k, 10);
    run.now = original.now + 500;
    run.held.clear();
    run.nextNode = original.nextNode;
    for (int n : c.durableState().nodes()) {
      run.held.put(n, new TreeMap<>());
    }
    Map<String, Configure> issued = new HashMap<>();
    for (Sent s : original.sent) {
      if (s.durableBefore() <= k) {
        Configure cf = s.configure();
        issued.put(cf.partition() + "@" + cf.epoch(), cf);
        for (int n : cf.members()) {
          TreeMap<Integer, Long> h = run.held.get(n);
          if (h != null && h.getOrDefault(cf.partition(), 0L) < cf.epoch()) {
            h.put(cf.partition(), cf.epoch());
          }
        }
      }
    }
    String at = "seed " + seed + " restored from " + k + " records";
    Map<Integer, Configure> before = configurations(c);
    run.down.add(run.held.firstKey()); // one node stays silent through the grace
    for (long t = 0; t < TIMING.downMillis() - 20; t += 10) {
      run.step(c);
    }
    assertThat(configurations(c)).as(at + ": no change within a down-time").isEqualTo(before);
    for (int i = 0; i < 300; i++) {
      Map<Integer, Configure> was = configurations(c);
      if (i % 3 == 0) {
        run.chaos(c);
      }
      run.step(c);
      for (int p : c.partitionIds()) {
        Configure now = c.configuration(p);
        Configure old = was.get(p);
        if (old != null && now.primary() != old.primary()) {
          // a change keeps the level members it keeps, and no report of the new epoch is in
          assertThat(c.levelMembers(p)).as(at + ": promoted %s of partition %d", now.primary(), p)
              .contains(now.primary());
        }
      }
    }
    for (Sent s : run.sent) {
      Configure cf = s.configure();
      Configure same = issued.get(cf.partition() + "@" + cf.epoch());
      if (same != null) {
        assertThat(cf).as(at + ": epoch %d of partition %d again", cf.epoch(), cf.partition())
            .isEqualTo(same);
      }
    }
    run.down.clear();
    for (int i = 0; i < 1_000 && !c.settled(); i++) {
      run.step(c);
    }
    assertThat(c.unsettled()).as(at).isEmpty();
  }

  private static Map<Integer, Configure> configurations(Control c) {
    Map<Integer, Configure> m = new TreeMap<>();
    for (int p : c.partitionIds()) {
      m.put(p, c.configuration(p));
    }
    return m;
  }

  @Test
  void aRestoredControlReplacesASilentPrimaryOnlyAfterAFullDownTime() {
    Control c = new Control(TIMING, 1, 3, List.of(0, 1, 2, 3));
    List<Record> records = new ArrayList<>(c.ready().records());
    Control r = Control.restore(TIMING, 3, records);
    Configure first = r.configuration(0);
    long t = 100_000;
    for (; t < 100_000 + TIMING.downMillis(); t += 10) {
      for (int n : List.of(1, 2, 3)) {
        r.step(new Envelope(n, Control.ID, new Pong(0, n == 3 ? Map.of() : Map.of(0, 1L))));
      }
      r.tick(t);
      assertThat(r.configuration(0)).as("at %d", t).isEqualTo(first);
      r.ready();
    }
    for (; t < 100_000 + 2 * TIMING.downMillis(); t += 10) {
      for (int n : List.of(1, 2, 3)) {
        r.step(new Envelope(n, Control.ID, new Pong(0, n == 3 ? Map.of() : Map.of(0, 1L))));
      }
      r.tick(t);
      r.ready();
    }
    assertThat(r.configuration(0).primary()).isEqualTo(1);
    assertThat(r.configuration(0).epoch()).isGreaterThan(first.epoch());
  }

  @Test
  void aRestoredControlLevelsAgainWhatItDoesNotKnowToBeLevel() {
    Control c = new Control(TIMING, 1, 3, List.of(0, 1, 2, 3));
    c.migrate(0, 3);
    c.tick(10);
    List<Record> records = new ArrayList<>(c.ready().records());
    assertThat(c.configuration(0).members()).containsExactly(0, 1, 2, 3);
    Control r = Control.restore(TIMING, 3, records);
    assertThat(r.moving(0)).isTrue();
    assertThat(r.levelMembers(0)).containsExactly(0, 1, 2);
    long epoch = r.configuration(0).epoch();
    for (long t = 1_000; t <= 1_000 + TIMING.downMillis(); t += 10) {
      for (int n : List.of(0, 1, 2, 3)) {
        r.step(new Envelope(n, Control.ID, new Pong(0, Map.of(0, epoch))));
      }
      r.tick(t);
      r.ready();
    }
    assertThat(r.configuration(0).members()).containsExactly(0, 1, 2, 3);
    assertThat(r.configuration(0).epoch()).isEqualTo(epoch + 1);
    r.step(new Envelope(0, Control.ID, new Levelled(0, epoch + 1)));
    r.tick(1_010 + TIMING.downMillis());
    assertThat(r.ready().messages()).extracting(Envelope::message)
        .contains(new Message.Drain(0, epoch + 1)); // the move resumed: its cut-over is next
    r.step(new Envelope(0, Control.ID, new Message.Drained(0, epoch + 1)));
    assertThat(r.configuration(0).members()).containsExactly(3, 1, 2);
  }

  @Test
  void restoringNothingIsAClearError() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> Control.restore(TIMING, 3, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no control state");
  }
}
