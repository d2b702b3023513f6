package io.partkit.harness.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partkit.harness.system.Operation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RegisterWorkloadTest {

  private static List<Operation> draw(long seed, int worker, int count) {
    RegisterWorkload w = new RegisterWorkload(seed, 4, 2, 10);
    List<Operation> ops = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ops.add(w.next(worker));
    }
    return ops;
  }

  @Test
  void aGroupsOperationsReplayFromTheSeed() {
    assertThat(draw(42, 1, 50)).isEqualTo(draw(42, 1, 50));
    assertThat(draw(42, 1, 50)).isNotEqualTo(draw(43, 1, 50));
  }

  @Test
  void keysRotateAfterOpsPerKeyAndWrittenValuesAreUniquePerKey() {
    RegisterWorkload w = new RegisterWorkload(7, 4, 2, 10);
    Set<String> written = new HashSet<>();
    Set<Long> keysOfGroup0 = new HashSet<>();
    for (int i = 0; i < 30; i++) {
      Operation op = w.next(i % 2); // workers 0 and 1 share group 0
      keysOfGroup0.add(op.key());
      if (!op.f().equals(Operation.READ)) {
        long v = op.f().equals(Operation.WRITE) ? (Long) op.value() : op.casNew();
        assertThat(written.add(op.key() + "/" + v)).as("value %s on key %s is fresh", v, op.key())
            .isTrue();
      }
    }
    assertThat(keysOfGroup0).hasSize(3);
    Operation other = w.next(2); // group 1 takes its own key
    assertThat(keysOfGroup0).doesNotContain(other.key());
    assertThat(w.keys()).hasSize(4);
  }

  @Test
  void casExpectsTheValueTheGroupLastSaw() {
    RegisterWorkload w = new RegisterWorkload(3, 1, 1, 1000);
    Operation first = w.next(0);
    w.observe(0, first.key(), 99L);
    for (int i = 0; i < 50; i++) {
      Operation op = w.next(0);
      if (op.f().equals(Operation.CAS)) {
        assertThat(op.casExpected()).isEqualTo(99L);
        return;
      }
    }
    throw new AssertionError("no cas in 50 operations of seed 3");
  }

  @Test
  void refusesCountsBelowOne() {
    assertThatThrownBy(() -> new RegisterWorkload(1, 0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
  }
}
