package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Models;
import java.util.ArrayList;
import java.util.List;

/**
 * One process writing 0, 1, 2, ... one write after another: the history whose cache grew as n^2
 * with a history-long bitset per configuration. Run in a JVM of its own (with a small -Xmx) by
 * {@link ScaleTest}: {@code java -Xmx64m -cp ... io.partkit.verification.checker.SequentialWrites 100000}
 * prints the verdict and exits 0 when it is valid.
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

  public static void main(String[] args) {
    int writes = Integer.parseInt(args[0]);
    History h = history(writes);
    Analysis a = Linearizability.check(Models.casRegister(null), h);
    System.out.println(a.verdict() + " " + a.nanos() / 1_000_000 + " ms" + (a.cause() == null ? "" : " " + a.cause()));
    System.exit(a.verdict() == Verdict.VALID ? 0 : 1);
  }
}
