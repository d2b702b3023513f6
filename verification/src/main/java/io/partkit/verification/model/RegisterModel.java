package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * register and cas-register: the state is the value itself (null for nil). What an :ok read of
 * nil means is chosen by {@link NilReads}.
 */
final class RegisterModel implements Model<Object> {
  private final String name;
  private final Object init;
  private final boolean cas;
  private final NilReads nilReads;

  RegisterModel(String name, Object init, boolean cas, NilReads nilReads) {
    this.name = name;
    this.init = init;
    this.cas = cas;
    this.nilReads = Objects.requireNonNull(nilReads, "nilReads");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Object initialState() {
    return init;
  }

  @Override
  public Step<Object> step(Object state, Op op) {
    Object v = op.value();
    switch (op.f()) {
      case "read":
        // An :info read observed nothing; an :ok read observed its value, except a nil that
        // Knossos' reading takes as "not known".
        if (op.type() == OpType.INFO || !nilReads.constrains(v) || Objects.equals(state, v)) {
          return Step.next(state);
        }
        return Step.inconsistent(
            () -> "read " + Models.show(v) + " but the register holds " + Models.show(state));
      case "write":
        return Step.next(v);
      case "cas":
        if (!cas) {
          return unknownOp(op);
        }
        if (!(v instanceof List) || ((List<?>) v).size() != 2) {
          return Step.inconsistent(() -> "cas expects a value [old new], got " + Models.show(v));
        }
        List<?> pair = (List<?>) v;
        if (Objects.equals(state, pair.get(0))) {
          return Step.next(pair.get(1));
        }
        return Step.inconsistent(
            () ->
                "cas from "
                    + Models.show(pair.get(0))
                    + " to "
                    + Models.show(pair.get(1))
                    + " but the register holds "
                    + Models.show(state));
      default:
        return unknownOp(op);
    }
  }

  private Step<Object> unknownOp(Op op) {
    return Step.inconsistent(() -> name + " has no operation :" + op.f()
        + (cas ? " (it has :read, :write, :cas)" : " (it has :read, :write)"));
  }

  @Override
  public boolean isReadOnly(Op op) {
    return "read".equals(op.f());
  }

  /**
   * An :ok read that constrains the register is legal exactly where the state equals its value,
   * a well-formed cas exactly where it equals the cas's old value (step's first and third
   * cases); a write, an :info read and a read that constrains nothing are legal everywhere, an
   * unknown operation or a malformed cas nowhere.
   */
  @Override
  public Object requiredState(Op op) {
    Object v = op.value();
    switch (op.f()) {
      case "read":
        return op.type() == OpType.INFO || !nilReads.constrains(v) ? NOT_ONE_STATE : v;
      case "cas":
        return cas && v instanceof List && ((List<?>) v).size() == 2
            ? ((List<?>) v).get(0) : NOT_ONE_STATE;
      default:
        return NOT_ONE_STATE;
    }
  }

  /**
   * A write's value (its next state whatever the state), a well-formed cas's new value (its next
   * state wherever it is legal): step's second and third cases. A read keeps the state, an
   * unknown operation or a malformed cas is legal nowhere: no one state.
   */
  @Override
  public Object stateAfter(Op op) {
    Object v = op.value();
    switch (op.f()) {
      case "write":
        return v;
      case "cas":
        return cas && v instanceof List && ((List<?>) v).size() == 2
            ? ((List<?>) v).get(1) : NOT_ONE_STATE;
      default:
        return NOT_ONE_STATE;
    }
  }

  /**
   * A write (its next state is its value whatever the state), an :info read and an :ok read
   * that constrains nothing (legal in every state, which they keep). A cas and a read that
   * constrains look at the state; so does an operation this model does not know (illegal).
   */
  @Override
  public boolean ignoresState(Op op) {
    switch (op.f()) {
      case "write":
        return true;
      case "read":
        return op.type() == OpType.INFO || !nilReads.constrains(op.value());
      default:
        return false;
    }
  }

  /**
   * Unobserved :info writes. An :info operation w that writes a value {@code v} (a
   * {@code write v}, or a {@code cas [old v]}) can be left out of the search when no other
   * operation that could be linearized after w observes {@code v}. Observing {@code v}: an :ok
   * read returning {@code v} (under {@link NilReads#KNOSSOS} a read of nil observes nothing), or
   * a cas, of any outcome, expecting {@code v} ({@code old == v}); writes of {@code v} by other
   * operations do not observe it. "Could be linearized after w": the operation did not return
   * before w was invoked (:info operations never return, so they always could).
   *
   * <p>Why the verdict is unchanged. (1) Valid stays valid: take a linearization containing such
   * an op w (state s before it, v after). The operations linearized after w up to the next one
   * that changes the state all see the state v, so none is an :ok read constraining the register
   * (it would return v, and being after w it did not return before w's call: an observation)
   * nor a cas, which either expects v (the same) or fails on v and is then illegal there; what
   * remains are reads that constrain nothing (:info reads, and :ok reads of nil under KNOSSOS),
   * legal in any state. The next state-changing operation is then a write, which overwrites the
   * state whatever it was, or a cas expecting v (excluded in the same way), or there is none.
   * Removing w therefore leaves every other operation's state the same (s up to the next write
   * instead of v, which nothing between notices), and removing an operation keeps real-time order,
   * so the order without w is a linearization of the reduced history. Several such ops are
   * removed one at a time: removing one changes no other's observers. (2) Invalid stays invalid:
   * w is :info, so a linearization of the reduced history is one of the full history in which w
   * never took effect. Values equal to the initial state need no care: if observed they are
   * kept, if not the argument holds as it stands. Nil is never dropped (kept conservatively).
   * Any operation this model does not know, or a malformed cas, disables the reduction.
   */
  @Override
  public BitSet droppable(List<Op> ops, int[] called, int[] returned) {
    BitSet drop = new BitSet();
    // the distinct values written by :info operations (few): no hashing, no boxing
    int n = ops.size();
    Object[] values = null;
    int distinct = 0;
    for (int i = 0; i < n; i++) {
      Op op = ops.get(i);
      Object v;
      if (op.type() == OpType.INFO
          && (v = written(op)) != null
          && indexOf(values, distinct, v) < 0) {
        if (values == null) {
          values = new Object[Math.min(n, 8)];
        } else if (distinct == values.length) {
          values = java.util.Arrays.copyOf(values, Math.min(n, distinct * 2));
        }
        values[distinct++] = v;
      }
    }
    if (distinct == 0) {
      return drop;
    }
    int[] lastObserver = new int[distinct]; // per value: the latest return of an observer, or -1
    java.util.Arrays.fill(lastObserver, -1);
    for (int i = 0; i < n; i++) {
      Op op = ops.get(i);
      Object v = op.value();
      Object seen;
      switch (op.f()) {
        case "read":
          if (op.type() == OpType.INFO || !nilReads.constrains(v)) {
            continue;
          }
          seen = v;
          break;
        case "write":
          continue;
        case "cas":
          if (!cas || !(v instanceof List) || ((List<?>) v).size() != 2) {
            return drop;
          }
          seen = ((List<?>) v).get(0);
          break;
        default:
          return drop; // unknown operation: no reduction
      }
      int k = indexOf(values, distinct, seen);
      if (k >= 0 && returned[i] > lastObserver[k]) {
        lastObserver[k] = returned[i];
      }
    }
    for (int i = 0; i < n; i++) {
      Op op = ops.get(i);
      Object v;
      if (op.type() == OpType.INFO
          && (v = written(op)) != null
          && lastObserver[indexOf(values, distinct, v)] < called[i]) {
        drop.set(i);
      }
    }
    return drop;
  }

  private static int indexOf(Object[] values, int count, Object v) {
    for (int k = 0; k < count; k++) {
      if (values[k].equals(v)) {
        return k;
      }
    }
    return -1;
  }

  /** The value an operation writes (write v, cas [old v]), or null (none, nil, or malformed). */
  private Object written(Op op) {
    Object v = op.value();
    if ("write".equals(op.f())) {
      return v;
    }
    if (cas && "cas".equals(op.f()) && v instanceof List && ((List<?>) v).size() == 2) {
      return ((List<?>) v).get(1);
    }
    return null;
  }

  @Override
  public String toString() {
    return "("
        + name
        + " "
        + Models.show(init)
        + (nilReads == NilReads.STRICT ? " :strict-nil" : "")
        + ")";
  }
}
