package io.partkit.harness;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.Values;

/**
 * One line of a stored {@code history.edn}, as Jepsen writes it: an op map, registers as {@code
 * [k v]} tuples in {@code :value} as Jepsen's {@code independent} does. Shared by {@code verify}'s
 * store and the simulator's, so that both histories read alike.
 */
public final class HistoryEdn {

  private HistoryEdn() {}

  /** A Jepsen op map; a client op's value is the tuple {@code [key value]}. */
  public static String line(Op op) {
    StringBuilder sb = new StringBuilder("{:index ").append(op.index())
        .append(", :time ").append(op.time())
        .append(", :type :").append(op.type().jepsenName())
        .append(", :process ").append(op.isClient() ? op.process().toString() : ":" + op.process())
        .append(", :f :").append(op.f())
        .append(", :value ");
    if (op.isClient()) {
      sb.append('[').append(Values.toEdn(op.key())).append(' ').append(Values.toEdn(op.value()))
          .append(']');
    } else {
      sb.append(Values.toEdn(op.value()));
    }
    return sb.append('}').toString();
  }
}
