package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Models;
import java.util.ArrayList;
import java.util.List;

/**
 * One process writing 0, 1, 2, ... one write after another: the history whose cache grew as n^2
 * with a history-long bitset per configuration; and the same writes by two processes, each
 * overlapping the next, so that the search caches configurations all along (a sequential history
 * is now searched without the cache). Run in a JVM of its own (with a small -Xmx) by
 * {@link ScaleTest}:
 * {@code java -Xmx64m -cp ... io.partkit.verification.checker.SequentialWrites 100000
 * [overlapping]} prints the verdict and exits 0 when it is valid.
 */
final class SequentialWrites {
  private SequentialWrites() {}

  static History history(int writes) {
    List<Op> ops = new ArrayList<>(2 * writes);
    for (int i = 0; i < writes; i++) {
      Long v = (long) i;
      ops.add(Op.of(ops.size(), 0, OpType.INVOKE, "write", v));
      ops.add(Op.of(ops.size(), 0, OpType.OK, "write", v));
    }
    return History.of(writes + " sequential writes", ops);
  }

  /**
   * Writes 0..n-1 alternately by processes 0 and 1, write i invoked before write i-1 returns, then
   * a read of the last.
   */
  static History overlapping(int writes) {
    List<Op> ops = new ArrayList<>(2 * writes + 2);
    ops.add(Op.of(0, 0, OpType.INVOKE, "write", 0L));
    for (int i = 1; i < writes; i++) {
      ops.add(Op.of(ops.size(), i % 2, OpType.INVOKE, "write", (long) i));
      ops.add(Op.of(ops.size(), (i - 1) % 2, OpType.OK, "write", (long) (i - 1)));
    }
    ops.add(Op.of(ops.size(), (writes - 1) % 2, OpType.OK, "write", (long) (writes - 1)));
    ops.add(Op.of(ops.size(), 2, OpType.INVOKE, "read", null));
    ops.add(Op.of(ops.size(), 2, OpType.OK, "read", (long) (writes - 1)));
    return History.of(writes + " overlapping writes", ops);
  }

  public static void main(String[] args) {
    int writes = Integer.parseInt(args[0]);
    History h =
        args.length > 1 && args[1].equals("overlapping") ? overlapping(writes) : history(writes);
    Analysis a = Linearizability.check(Models.casRegister(null), h);
    System.out.println(
        a.verdict()
            + " "
            + a.nanos() / 1_000_000
            + " ms"
            + (a.cause() == null ? "" : " " + a.cause()));
    System.exit(a.verdict() == Verdict.VALID ? 0 : 1);
  }
}
