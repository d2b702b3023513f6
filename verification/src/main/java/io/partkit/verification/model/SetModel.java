package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/** set: {@code :add x} and {@code :read} of the whole set. The state is an unmodifiable set. */
final class SetModel implements Model<Set<Object>> {
  @Override
  public String name() {
    return "set";
  }

  @Override
  public Set<Object> initialState() {
    return Set.of();
  }

  @Override
  public Step<Set<Object>> step(Set<Object> state, Op op) {
    Object v = op.value();
    switch (op.f()) {
      case "add": {
        if (v == null) {
          return Step.inconsistent("set cannot add nil");
        }
        if (state.contains(v)) {
          return Step.next(state);
        }
        Set<Object> next = new HashSet<>(state);
        next.add(v);
        return Step.next(Set.copyOf(next));
      }
      case "read": {
        if (op.type() == OpType.INFO) {
          return Step.next(state);
        }
        if (v != null && !(v instanceof Collection)) {
            return Step.inconsistent(
                () -> "set read must return a collection, got " + Models.show(v));
        }
        // nil reads as the empty set
        Set<Object> seen = v == null ? Set.of() : new HashSet<>((Collection<?>) v);
          return seen.equals(state)
              ? Step.next(state)
              : Step.inconsistent(
                  () -> "read " + Models.show(v) + " but the set is " + Models.show(state));
      }
      default:
        return Step.inconsistent(() -> "set has no operation :" + op.f() + " (it has :add, :read)");
    }
  }

  @Override
  public boolean isReadOnly(Op op) {
    return "read".equals(op.f());
  }

  @Override
  public String toString() {
    return "(set)";
  }
}
