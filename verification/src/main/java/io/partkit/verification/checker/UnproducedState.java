package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.Values;
import io.partkit.verification.model.Model;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An exact refutation that needs no search: an :ok operation legal in one state only
 * ({@link Model#requiredState}) whose state neither the initial state is nor any operation invoked
 * before the operation returned can leave ({@link Model#stateAfter}) has no place in any
 * linearization. At its linearization point, which is before its return, the state is the initial
 * one or the one the last operation linearized before it left, and that operation was invoked
 * before that point. Crashed operations count as able to leave their state at any time (they
 * may have happened), so the rule holds whatever they did, at any concurrency.
 *
 * <p>Why it exists: a history with hundreds of crashed operations pending where such an operation
 * comes is one the search cannot refute (it would try every combination of crashed operations
 * the earlier :ok operations could have used), while this takes one pass. It decides only that
 * kind of invalid history (a read or cas of a value nothing wrote, e.g. a corrupted or
 * misattributed value); others are left to the search.
 */
final class UnproducedState {

  private UnproducedState() {}

  /**
   * The evidence against the first :ok operation (by return) that needs a state nothing before it
   * can produce, or null if there is none or a model hook the rule needs is missing (an
   * operation that may change the state without naming the one state it leaves).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Evidence refute(Model<?> model, Paired paired) {
    Model<Object> m = (Model) model;
    Op[] ops = paired.ops();
    Set<Object> produced = new HashSet<>();
    produced.add(m.initialState());
    Object[] leaves = new Object[ops.length];
    for (int i = 0; i < ops.length; i++) {
      leaves[i] = m.isReadOnly(ops[i]) ? null : m.stateAfter(ops[i]);
      if (leaves[i] == Model.NOT_ONE_STATE) {
        return null;
      }
    }
    for (int e : paired.events()) {
      int op = e >>> 1;
      if ((e & 1) == 0) {
        if (!m.isReadOnly(ops[op])) {
          produced.add(leaves[op]);
        }
        continue;
      }
      Object need = m.requiredState(ops[op]);
      if (need != Model.NOT_ONE_STATE && !produced.contains(need)) {
        return new Evidence(ops[op], "it needs the state " + Values.toEdn(need)
            + ", which is not the initial state and which no operation invoked before it"
            + " returned can leave", List.of());
      }
    }
    return null;
  }
}
