package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import io.partkit.verification.model.Model;
import io.partkit.verification.model.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference for differential tests: tries every order of the operations that respects
 * real time (an operation may go next unless some unplaced :ok operation returned before it was
 * invoked), with :info operations optional, and no cache. Written independently of the checker
 * (its own pairing, no linked list), so the two can only agree by both being right.
 */
final class BruteForce {
  private BruteForce() {}

  private record Call(Op op, int call, int ret, boolean info) {}

  static boolean linearizable(Model<?> model, History history) {
    return linearizable(model, history, false);
  }

  /**
   * As {@link #linearizable(Model, History)}; with {@code nilIsWildcard}, Knossos' rule for the
   * register models is applied here, before the model sees anything, so that {@code model} can be
   * the strict one: an :ok {@code :read} of nil becomes a read whose result is unknown (it must
   * still be placed), and a {@code [:read k nil]} micro-op of an :ok {@code :txn} is dropped.
   */
  static boolean linearizable(Model<?> model, History history, boolean nilIsWildcard) {
    List<Call> calls = new ArrayList<>();
    Map<Object, Integer> openAt = new HashMap<>();
    List<Op> ops = history.ops();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      if (!op.isClient()) {
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        openAt.put(op.process(), i);
        continue;
      }
      int at = openAt.remove(op.process());
      Op inv = ops.get(at);
      switch (op.type()) {
        case OK:
          Op given = op.withValue(op.value() != null ? op.value() : inv.value());
          calls.add(new Call(nilIsWildcard ? wildcard(given) : given, at, i, false));
          break;
        case INFO:
          calls.add(
              new Call(
                  new Op(
                      inv.index(),
                      inv.process(),
                      OpType.INFO,
                      inv.f(),
                      inv.value(),
                      inv.key(),
                      -1,
                      0),
                  at,
                  Integer.MAX_VALUE,
                  true));
          break;
        default:
          break; // :fail did not happen
      }
    }
    for (int at : openAt.values()) {
      Op inv = ops.get(at);
      calls.add(
          new Call(
              new Op(
                  inv.index(), inv.process(), OpType.INFO, inv.f(), inv.value(), inv.key(), -1, 0),
              at,
              Integer.MAX_VALUE,
              true));
    }
    return search(cast(model), calls, new boolean[calls.size()], cast(model).initialState());
  }

  private static Op wildcard(Op op) {
    if (op.f().equals("read") && op.value() == null) {
      return new Op(op.index(), op.process(), OpType.INFO, op.f(), null, op.key(), -1, 0);
    }
    if (op.f().equals("txn") && op.value() instanceof List) {
      List<Object> kept = new ArrayList<>();
      for (Object mop : (List<?>) op.value()) {
        if (!(mop instanceof List
            && ((List<?>) mop).size() == 3
            && "read".equals(((List<?>) mop).get(0))
            && ((List<?>) mop).get(2) == null)) {
          kept.add(mop);
        }
      }
      return op.withValue(java.util.Collections.unmodifiableList(kept));
    }
    return op;
  }

  @SuppressWarnings("unchecked")
  private static Model<Object> cast(Model<?> m) {
    return (Model<Object>) m;
  }

  private static boolean search(
      Model<Object> model, List<Call> calls, boolean[] placed, Object state) {
    boolean allOkPlaced = true;
    for (int i = 0; i < calls.size(); i++) {
      if (!placed[i] && !calls.get(i).info()) {
        allOkPlaced = false;
      }
    }
    if (allOkPlaced) {
      return true;
    }
    for (int i = 0; i < calls.size(); i++) {
      if (placed[i] || !mayGoNext(calls, placed, i)) {
        continue;
      }
      Step<Object> step = model.step(state, calls.get(i).op());
      if (step instanceof Step.Next) {
        placed[i] = true;
        boolean ok = search(model, calls, placed, ((Step.Next<Object>) step).state());
        placed[i] = false;
        if (ok) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean mayGoNext(List<Call> calls, boolean[] placed, int i) {
    for (int j = 0; j < calls.size(); j++) {
      if (j != i && !placed[j] && calls.get(j).ret() < calls.get(i).call()) {
        return false;
      }
    }
    return true;
  }
}
