package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
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
        return Step.inconsistent(() -> "read " + Models.show(v) + " but the register holds " + Models.show(state));
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
        return Step.inconsistent(() -> "cas from " + Models.show(pair.get(0)) + " to " + Models.show(pair.get(1))
            + " but the register holds " + Models.show(state));
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

  @Override
  public String toString() {
    return "(" + name + " " + Models.show(init) + (nilReads == NilReads.STRICT ? " :strict-nil" : "") + ")";
  }
}
