package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.HashMap;
import java.util.Map;

/**
 * unordered-queue: {@code :enqueue x}, {@code :dequeue} returning any element present. The state
 * is an unmodifiable multiset (element to count). A dequeue of nil observed an empty queue.
 *
 * <p>Limitation, shared with Knossos: an {@code :info} dequeue whose element is unknown cannot be
 * modelled by one next state (it could have removed any element), so it is only linearized when
 * the history names its element; otherwise the checker treats it as never having happened.
 */
final class UnorderedQueueModel implements Model<Map<Object, Integer>> {
  @Override
  public String name() {
    return "unordered-queue";
  }

  @Override
  public Map<Object, Integer> initialState() {
    return Map.of();
  }

  @Override
  public Step<Map<Object, Integer>> step(Map<Object, Integer> state, Op op) {
    Object v = op.value();
    switch (op.f()) {
      case "enqueue": {
        if (v == null) {
            return Step.inconsistent(
                "a queue cannot hold nil: nil is what a dequeue of an empty queue returns");
        }
        Map<Object, Integer> next = new HashMap<>(state);
        next.merge(v, 1, Integer::sum);
        return Step.next(Map.copyOf(next));
      }
      case "dequeue": {
        if (v == null) {
          if (op.type() == OpType.INFO) {
              return Step.inconsistent(
                  "an :info dequeue with unknown element is not linearized (see unordered-queue)");
          }
            return state.isEmpty()
                ? Step.next(state)
                : Step.inconsistent(
                    () -> "dequeued nothing but the queue holds " + Models.show(state.keySet()));
        }
        Integer count = state.get(v);
        if (count == null) {
            return Step.inconsistent(
                () ->
                    "dequeued "
                        + Models.show(v)
                        + " but the queue holds "
                        + Models.show(state.keySet()));
        }
        Map<Object, Integer> next = new HashMap<>(state);
        if (count == 1) {
          next.remove(v);
        } else {
          next.put(v, count - 1);
        }
        return Step.next(Map.copyOf(next));
      }
      default:
        return Step.inconsistent(
            () -> "unordered-queue has no operation :" + op.f() + " (it has :enqueue, :dequeue)");
    }
  }

  @Override
  public String toString() {
    return "(unordered-queue)";
  }
}
