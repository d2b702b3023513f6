package io.partkit.verification.model;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.List;
import java.util.Objects;

/**
 * fifo-queue: {@code :enqueue x}, {@code :dequeue} returning the head. The state is an
 * unmodifiable list, head first. A dequeue of nil observed an empty queue. An {@code :info}
 * dequeue (result unknown) removes the head if there is one.
 */
final class FifoQueueModel implements Model<List<Object>> {
  @Override
  public String name() {
    return "fifo-queue";
  }

  @Override
  public List<Object> initialState() {
    return List.of();
  }

  @Override
  public Step<List<Object>> step(List<Object> state, Op op) {
    Object v = op.value();
    switch (op.f()) {
      case "enqueue": {
        if (v == null) {
            return Step.inconsistent(
                "a queue cannot hold nil: nil is what a dequeue of an empty queue returns");
        }
        Object[] next = state.toArray(new Object[state.size() + 1]);
        next[state.size()] = v;
        return Step.next(List.of(next));
      }
      case "dequeue": {
        if (op.type() == OpType.INFO) {
            return Step.next(
                state.isEmpty() ? state : state.subList(1, state.size()).stream().toList());
        }
        if (v == null) {
            return state.isEmpty()
                ? Step.next(state)
                : Step.inconsistent(
                    () -> "dequeued nothing but the queue holds " + Models.show(state));
        }
        if (!state.isEmpty() && Objects.equals(state.get(0), v)) {
          return Step.next(List.copyOf(state.subList(1, state.size())));
        }
          return Step.inconsistent(
              () -> "dequeued " + Models.show(v) + " but the queue is " + Models.show(state));
      }
      default:
        return Step.inconsistent(
            () -> "fifo-queue has no operation :" + op.f() + " (it has :enqueue, :dequeue)");
    }
  }

  @Override
  public String toString() {
    return "(fifo-queue)";
  }
}
