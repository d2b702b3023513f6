package io.partkit.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pairing invocations with completions, including many processes (its table grows). */
class PairedTest {

  @Test
  void pairsOkInfoFailAndOpenInvocationsOfThousandsOfProcesses() {
    List<Op> ops = new ArrayList<>();
    int processes = 5000;
    for (int p = 0; p < processes; p++) {
      ops.add(Op.of(ops.size(), p, OpType.INVOKE, "write", (long) p));
    }
    for (int p = 0; p < processes; p++) {
      OpType t =
          p % 4 == 0 ? OpType.OK : p % 4 == 1 ? OpType.FAIL : p % 4 == 2 ? OpType.INFO : null;
      if (t != null) {
        ops.add(Op.of(ops.size(), p, t, "write", t == OpType.OK ? (long) p : null));
      }
    }
    Paired paired = Paired.of(ops);
    assertThat(paired.invocations()).isEqualTo(processes);
    assertThat(paired.ops()).hasSize(processes * 3 / 4); // the :fail quarter did not happen
    int ok = 0;
    for (int i = 0; i < paired.ops().length; i++) {
      Op o = paired.ops()[i];
      assertThat(paired.info()[i]).isEqualTo(o.type() == OpType.INFO);
      // the invocation's value for :info, the completion's for :ok
      assertThat(o.value()).isEqualTo(o.process());
      ok += paired.info()[i] ? 0 : 1;
    }
    assertThat(ok).isEqualTo(processes / 4);
    // events: every kept call, and a return for every :ok
    assertThat(paired.events()).hasSize(paired.ops().length + ok);
  }

  @Test
  void anOkWithoutValueGetsItsInvocationsValue() {
    Paired paired =
        Paired.of(
            List.of(
                Op.of(0, 7, OpType.INVOKE, "write", 3L), Op.of(1, 7, OpType.OK, "write", null)));
    assertThat(paired.ops()[0].type()).isEqualTo(OpType.OK);
    assertThat(paired.ops()[0].value()).isEqualTo(3L);
    assertThat(paired.events()).containsExactly(0, 1);
  }

  @Test
  void processesOfAnyKindAndSizeArePairedByEquality() {
    // small Longs go to the direct table, large and negative ones and strings to the hash table
    Object[] processes = {0L, 65_535L, 65_536L, 1L << 40, -3L, 7L};
    List<Op> ops = new ArrayList<>();
    for (Object p : processes) {
      ops.add(new Op(ops.size(), p, OpType.INVOKE, "write", 1L, null, -1, 0));
    }
    for (int i = processes.length - 1; i >= 0; i--) {
      ops.add(new Op(ops.size(), processes[i], OpType.OK, "write", (long) i, null, -1, 0));
    }
    Paired paired = Paired.of(ops);
    for (int id = 0; id < processes.length; id++) {
      assertThat(paired.ops()[id].process()).isEqualTo(processes[id]);
      // each invocation got its own completion
      assertThat(paired.ops()[id].value()).isEqualTo((long) id);
    }
    ProcessTable t = new ProcessTable();
    assertThat(t.put(5L, 1)).isEqualTo(-1);
    assertThat(t.put(5L, 2)).isEqualTo(1);
    assertThat(t.remove(5L)).isEqualTo(2);
    assertThat(t.remove(5L)).isEqualTo(-1);
    assertThat(t.remove(70_000L)).isEqualTo(-1);
    assertThat(t.put(70_000L, 3)).isEqualTo(-1);
    assertThat(t.remove(70_000L)).isEqualTo(3);
    assertThat(t.get(70_000L)).isEqualTo(-1);
    // many large and negative Longs (the long-keyed table grows) and other values: get, put, remove
    // agree with a map
    java.util.Map<Object, Integer> ref = new java.util.HashMap<>();
    java.util.Random rnd = new java.util.Random(3);
    for (int i = 0; i < 20_000; i++) {
      Object k = switch (rnd.nextInt(4)) {
        case 0 -> (long) rnd.nextInt(200) * 1_000_003L - 50_000_000L;
        case 1 -> (long) rnd.nextInt(100);
        case 2 -> "s" + rnd.nextInt(50);
        default -> java.util.List.of((long) rnd.nextInt(20));
      };
      int expected = ref.getOrDefault(k, -1);
      switch (rnd.nextInt(3)) {
        case 0 -> {
          assertThat(t.put(k, i)).as("put %s", k).isEqualTo(expected);
          ref.put(k, i);
        }
        case 1 -> {
          assertThat(t.remove(k)).as("remove %s", k).isEqualTo(expected);
          ref.put(k, -1);
        }
        default -> assertThat(t.get(k)).as("get %s", k).isEqualTo(expected);
      }
    }
  }
}
