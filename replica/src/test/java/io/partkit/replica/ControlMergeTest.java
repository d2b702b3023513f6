package io.partkit.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.replica.Message.Configure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The control's merges: committed only when the two halves of a split have one configuration,
 * all level and heard, as a new numbering one generation on at an epoch past both; refused with
 * the reason otherwise.
 */
class ControlMergeTest {

  /** Stands in for nodes 0..3 that take every configuration and report each new epoch level. */
  private static final class Nodes extends FakeNodes {
    final Control control;
    final List<Record> records = new ArrayList<>();
    long now;

    Nodes(Control control) {
      this.control = control;
      for (int n = 0; n < 4; n++) {
        held.put(n, new TreeMap<>());
      }
    }

    /** {@code millis} of ticks: heartbeats answered, configurations taken and reported. */
    void run(long millis) {
      for (long t = 0; t < millis; t += 10) {
        now += 10;
        deliver(control);
        control.tick(now);
        Ready r = control.ready();
        records.addAll(r.records());
        for (Envelope e : r.messages()) {
          if (e.message() instanceof Configure c) {
            configure(e.to(), c, () -> true);
          }
        }
      }
    }
  }

  private static Nodes settled() {
    Nodes n = new Nodes(new Control(Timing.DEFAULT, 1, 3, List.of(0, 1, 2, 3)));
    n.run(200);
    return n;
  }

  @Test
  void aMergeUndoesASplitAtAnEpochPastBothHalvesWithTheLevelOfBoth() {
    Nodes n = settled();
    Control c = n.control;
    assertThat(c.split(0)).contains(1);
    n.run(200);
    assertThat(c.whyNotMerge(1)).isEmpty();
    long before = Math.max(c.configuration(0).epoch(), c.configuration(1).epoch());
    List<Integer> members = c.configuration(0).members();
    assertThat(c.merge(1)).contains(0);
    Configure merged = c.configuration(0);
    assertThat(c.partitionIds()).containsExactly(0);
    assertThat(merged.epoch()).isEqualTo(before + 1);
    assertThat(merged.members()).isEqualTo(members);
    assertThat(merged.numbering()).isEqualTo(new Numbering.Hashed(1, 1, 1));
    assertThat(c.levelMembers(0)).containsExactlyElementsOf(members);
    for (long k = 0; k < 32; k++) {
      assertThat(c.partitionOf(Bytes.ofLong(k))).as("key %d", k).isZero();
    }
    n.run(200);
    // the record holds the merged table: a restored control numbers and configures alike
    Control restored = Control.restore(Timing.DEFAULT, 3, n.records);
    assertThat(restored.partitionIds()).containsExactly(0);
    assertThat(restored.configuration(0)).isEqualTo(c.configuration(0));
  }

  @Test
  void aMergedPartitionSplitsAgainOnlyOnceEveryMemberHoldsItMerged() {
    Nodes n = settled();
    Control c = n.control;
    c.split(0);
    n.run(200);
    n.down.add(2); // node 2 does not hear of the merge
    c.merge(1);
    n.run(50);
    assertThat(c.split(0)).as("node 2 has not said it holds the merge").isEmpty();
    n.down.remove(2);
    n.run(50);
    assertThat(c.split(0)).contains(1);
    assertThat(c.configuration(1).numbering()).isEqualTo(new Numbering.Hashed(1, 2, 1));
    assertThat(c.configuration(1).epoch()).isGreaterThan(c.configuration(0).epoch() - 1);
  }

  @Test
  void aMergeIsRefusedWithTheReasonWhenItIsNotSafeAsTheTableStands() {
    Nodes n = settled();
    Control c = n.control;
    assertThat(c.whyNotMerge(0)).hasValueSatisfying(w -> assertThat(w)
        .contains("one of the first table's"));
    assertThat(c.whyNotMerge(7)).hasValueSatisfying(w -> assertThat(w)
        .contains("no partition 7"));
    c.split(0);
    assertThat(c.whyNotMerge(1)).as("the split's epoch is not heard yet")
        .hasValueSatisfying(w -> assertThat(w).contains("not heard holding"));
    n.run(200);
    c.split(1);
    n.run(200);
    assertThat(c.whyNotMerge(0)).hasValueSatisfying(w -> assertThat(w)
        .contains("split further"));
    assertThat(c.merge(0)).isEmpty();
    assertThat(c.merge(3)).contains(1);
    n.run(200);
    // the halves on other nodes: the control moves nothing to merge them
    int outside = 3;
    assertThat(c.configuration(1).members()).doesNotContain(outside);
    assertThat(c.migrate(1, outside)).isTrue();
    n.run(500);
    assertThat(c.configuration(1).members()).contains(outside);
    assertThat(c.whyNotMerge(1)).hasValueSatisfying(w -> assertThat(w)
        .contains("other configurations").contains("move them onto one primary"));
    // a member down
    Nodes m = settled();
    m.control.split(0);
    m.run(200);
    int member = m.control.configuration(1).members().get(2);
    m.down.add(member);
    m.run(Timing.DEFAULT.downMillis() + 20);
    Optional<String> why = m.control.whyNotMerge(1);
    assertThat(why).isPresent();
    assertThat(m.control.merge(1)).as("refused: %s", why).isEmpty();
    assertThat(m.control.partitionIds()).containsExactly(0, 1);
  }
}
