package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * multi-register: Knossos' {@code :txn} of {@code [:read k v]} / {@code [:write k v]} micro-ops.
 * The state is an unmodifiable map from register to value; absent registers hold nil. What a
 * {@code [:read k nil]} in an :ok txn means is chosen by {@link NilReads}.
 */
final class MultiRegisterModel implements Model<Map<Object, Object>> {
  private final Map<Object, Object> init;
  private final NilReads nilReads;

  MultiRegisterModel(Map<?, ?> init, NilReads nilReads) {
    this.nilReads = Objects.requireNonNull(nilReads, "nilReads");
    Map<Object, Object> m = new HashMap<>();
    init.forEach((k, v) -> {
      if (v != null) {
        m.put(k, v); // nil and absent are the same register value: keep one representation
      }
    });
    this.init = Map.copyOf(m);
  }

  @Override
  public String name() {
    return "multi-register";
  }

  @Override
  public Map<Object, Object> initialState() {
    return init;
  }

  @Override
  public Step<Map<Object, Object>> step(Map<Object, Object> state, Op op) {
    if (!"txn".equals(op.f())) {
      return Step.inconsistent(
          () -> "multi-register has no operation :" + op.f() + " (it has :txn)");
    }
    if (!(op.value() instanceof List)) {
      return Step.inconsistent(
          () -> "txn expects a list of [:read k v] / [:write k v], got " + Models.show(op.value()));
    }
    Map<Object, Object> next = null;
    for (Object o : (List<?>) op.value()) {
      if (!(o instanceof List) || ((List<?>) o).size() != 3) {
        return Step.inconsistent(
            () -> "txn micro-op must be [:read k v] or [:write k v], got " + Models.show(o));
      }
      List<?> mop = (List<?>) o;
      Object k = mop.get(1);
      Object v = mop.get(2);
      Map<Object, Object> current = next == null ? state : next;
      if ("read".equals(mop.get(0))) {
        Object actual = current.get(k);
        // In an :info txn the reads' results are unknown; an :ok read is exact, except a nil
        // that Knossos' reading takes as "not known" (strict: nil = never written).
        if (op.type() != OpType.INFO && nilReads.constrains(v) && !Objects.equals(actual, v)) {
          return Step.inconsistent(() -> "read " + Models.show(v) + " from " + Models.show(k)
              + " but it holds " + Models.show(actual));
        }
      } else if ("write".equals(mop.get(0))) {
        if (next == null) {
          next = new HashMap<>(state);
        }
        if (v == null) {
          next.remove(k);
        } else {
          next.put(k, v);
        }
      } else {
        return Step.inconsistent(
            () -> "txn micro-op must be :read or :write, got " + Models.show(mop.get(0)));
      }
    }
    return Step.next(next == null ? state : Map.copyOf(next));
  }

  /** A txn of reads only. */
  @Override
  public boolean isReadOnly(Op op) {
    if (!"txn".equals(op.f()) || !(op.value() instanceof List)) {
      return false;
    }
    for (Object o : (List<?>) op.value()) {
      if (!(o instanceof List)
          || ((List<?>) o).size() != 3
          || !"read".equals(((List<?>) o).get(0))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return "(multi-register "
        + Models.show(init)
        + (nilReads == NilReads.STRICT ? " :strict-nil" : "")
        + ")";
  }
}
