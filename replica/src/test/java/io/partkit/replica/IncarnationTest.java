package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import io.partkit.replica.Message.Levelled;
import io.partkit.replica.Message.Ping;
import io.partkit.replica.Message.Pong;
import io.partkit.replica.Message.Replicate;
import io.partkit.replica.Record.ControlState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node restarted on a wiped disk under its number is another incarnation: the control counts
 * what the earlier one held lost (durably), and the node takes no configuration and answers no
 * replica traffic until a heartbeat names it, taking every partition's configuration first.
 */
class IncarnationTest {

  static final long FIRST = 11;
  static final long WIPED = 22;

  // ---- the node

  @Test
  void aNodeTakesNoConfigurationAndAnswersNoReplicaTrafficUntilAHeartbeatNamesIt() {
    Replica r = new Replica(1, Timing.DEFAULT);
    assertThat(r.incarnate(FIRST)).isEqualTo(FIRST);
    assertThat(r.ready().records()).containsExactly(new Record.Born(FIRST));
    Configure c = new Configure(0, 3, 0, List.of(1, 2));
    r.step(new Envelope(Control.ID, 1, c));
    r.step(new Envelope(0, 1, new Replicate(0, 3, 1, 1, Bytes.ofLong(1), Bytes.ofLong(2))));
    Ready ready = r.ready();
    assertThat(ready.records()).as("no configuration taken").isEmpty();
    assertThat(ready.messages()).as("no answer to the replica traffic").isEmpty();
    assertThat(r.epoch(0)).isZero();

    r.step(new Envelope(Control.ID, 1, new Ping(1, 999, List.of(c)))); // another incarnation's
    assertThat(r.epoch(0)).isZero();
    assertThat(r.ready().messages()).singleElement().satisfies(e ->
        assertThat(((Pong) e.message()).acknowledged()).isFalse());

    Configure fence = new Configure(5, 7, 2, List.of(3)); // a partition it is no member of
    r.step(new Envelope(Control.ID, 1, new Ping(2, FIRST, List.of(c, fence))));
    assertThat(r.epoch(0)).as("the fences are taken first").isEqualTo(3);
    assertThat(r.role(0)).isEqualTo(Role.BACKUP);
    assertThat(r.epoch(5)).isEqualTo(7);
    assertThat(r.role(5)).isEqualTo(Role.ABSENT);
    Ready answered = r.ready();
    assertThat(answered.records()).hasSize(2);
    assertThat(answered.messages()).singleElement().satisfies(e ->
        assertThat(((Pong) e.message()).acknowledged()).isTrue());
    // fenced: an older epoch's primary of partition 5 is refused as stale
    r.step(new Envelope(4, 1, new Replicate(5, 6, 1, 1, Bytes.ofLong(1), Bytes.ofLong(2))));
    assertThat(r.ready().messages()).singleElement().satisfies(e ->
        assertThat(e.message()).isEqualTo(new Message.Refuse(5, 7, true)));
  }

  @Test
  void aRestoredNodeKeepsItsIncarnationAndACheckpointHoldsIt() {
    Replica r = new Replica(1, Timing.DEFAULT);
    r.incarnate(FIRST);
    List<Record> log = new ArrayList<>(r.ready().records());
    Replica again = Replica.restore(1, Timing.DEFAULT, log);
    assertThat(again.incarnate(WIPED)).as("its log names one").isEqualTo(FIRST);
    assertThat(again.checkpoint()).contains(new Record.Born(FIRST));
    assertThat(Replica.restore(1, Timing.DEFAULT, List.of()).incarnate(WIPED)).isEqualTo(WIPED);
  }

  // ---- the control

  private final Control control = new Control(Timing.DEFAULT, 1, 3, List.of(0, 1, 2, 3));
  private long now;
  private final List<Envelope> sent = new ArrayList<>();

  /** Each node answers as incarnation {@code incarnations[n]}, holding the table's epoch. */
  private void advance(long millis, long... incarnations) {
    for (long t = 0; t < millis; t += 10) {
      now += 10;
      for (int n = 0; n < incarnations.length; n++) {
        Configure c = control.configuration(0);
        boolean holds = c.members().contains(n) && incarnations[n] == FIRST;
        control.step(new Envelope(n, Control.ID, new Pong(0,
            holds ? Map.of(0, c.epoch()) : Map.of(), Map.of(), incarnations[n], true)));
      }
      control.tick(now);
      sent.addAll(control.ready().messages());
    }
  }

  @Test
  void anotherIncarnationLosesWhatTheEarlierHeldDurablyAndIsFencedBeforeItTakesAnything() {
    advance(100, FIRST, FIRST, FIRST, FIRST);
    Configure c = control.configuration(0);
    control.step(new Envelope(c.primary(), Control.ID, new Levelled(0, c.epoch())));
    assertThat(control.configuration(0).primary()).isZero();
    assertThat(control.levelMembers(0)).containsExactly(0, 1, 2);
    long epoch = control.configuration(0).epoch();

    // node 0, the primary, answers as another incarnation, not yet named
    now += 10;
    control.step(new Envelope(0, Control.ID, new Pong(0, Map.of(), Map.of(), WIPED, false)));
    ControlState durable = (ControlState) control.ready().records().get(0);
    assertThat(durable.incarnations()).containsEntry(0, WIPED);
    assertThat(durable.rows().get(0).lost()).containsExactly(0);
    assertThat(control.levelMembers(0)).doesNotContain(0);

    // a control restored from that record still never lets node 0 serve its lost copy
    Control restored = Control.restore(Timing.DEFAULT, 3, List.of(durable));
    for (Control k : List.of(control, restored)) {
      sent.clear();
      long t = now;
      for (int i = 0; i < Timing.DEFAULT.downMillis() / 10 + 20; i++) {
        t += 10;
        for (int n = 0; n < 4; n++) {
          Configure now0 = k.configuration(0);
          boolean holds = n != 0 && now0.members().contains(n);
          k.step(new Envelope(n, Control.ID, new Pong(0, holds ? Map.of(0, now0.epoch())
              : Map.of(), Map.of(), n == 0 ? WIPED : FIRST, n != 0)));
        }
        k.tick(t);
        sent.addAll(k.ready().messages());
      }
      assertThat(k.configuration(0).primary()).as("failed over to a level backup").isIn(1, 2);
      assertThat(k.configuration(0).epoch()).isGreaterThan(epoch);
      assertThat(sent).filteredOn(e -> e.to() == 0 && e.message() instanceof Ping)
          .allSatisfy(e -> {
            Ping p = (Ping) e.message();
            assertThat(p.incarnation()).isEqualTo(WIPED);
            assertThat(p.fences()).as("every partition's configuration, never it as primary")
                .singleElement().satisfies(f -> assertThat(f.primary()).isNotZero());
          });
      assertThat(sent).filteredOn(e -> e.to() == 1 && e.message() instanceof Ping)
          .allSatisfy(e -> assertThat(((Ping) e.message()).fences()).isEmpty());
    }
  }

  @Test
  void theFirstIncarnationHeardIsRecordedWithoutLosingAnything() {
    advance(30, FIRST, FIRST, FIRST, FIRST);
    Configure c = control.configuration(0);
    control.step(new Envelope(c.primary(), Control.ID, new Levelled(0, c.epoch())));
    ControlState durable = control.durableState();
    assertThat(durable.incarnations()).containsOnlyKeys(0, 1, 2, 3);
    assertThat(durable.rows().get(0).lost()).isEmpty();
    assertThat(control.levelMembers(0)).containsExactly(0, 1, 2);
  }
}
