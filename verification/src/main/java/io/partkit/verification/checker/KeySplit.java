package io.partkit.verification.checker;

import io.partkit.verification.history.History;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A keyed history's client operations split by {@code :key} in one pass that also tests
 * well-formedness (the rules of {@link WellFormed#quickly}) and pairs each invocation with its
 * completion, so that neither a second pass over the whole history nor a per-key pairing pass
 * (with its process table) is needed: on 100 keys x 1,000 operations those three passes, each
 * touching every operation's objects again, cost as much as the searches. Keys keep the order of
 * their first operation, as {@link History#clientOpsByKey()}.
 */
final class KeySplit {
  private KeySplit() {}

  /** One key's client operations in history order, with each invocation's completion position. */
  static final class Part {
    final Object key;
    Op[] ops = new Op[16];
    int[] completionAt = new int[16]; // per invocation: its completion's position in ops, or -1
    int size;
    int invocations;

    Part(Object key) {
      this.key = key;
    }

    int add(Op op) {
      if (size == ops.length) {
        ops = Arrays.copyOf(ops, size * 2);
        completionAt = Arrays.copyOf(completionAt, size * 2);
      }
      ops[size] = op;
      completionAt[size] = -1;
      return size++;
    }

    Paired pair() {
      return Paired.of(ops, size, completionAt, invocations);
    }
  }

  /**
   * The parts, or null when the history may not be well-formed (the caller then asks
   * {@code History.validate()} for the messages).
   */
  static List<Part> ofWellFormed(List<Op> historyOps) {
    int n = historyOps.size();
    ProcessTable open = new ProcessTable();
    int[] partOf = new int[n];
    int[] localAt = new int[n];
    ProcessTable index = new ProcessTable(); // key -> part (a process table maps any value to an int)
    int nullPart = -1;
    List<Part> parts = new ArrayList<>();
    Op[] ops = historyOps.toArray(new Op[0]);
    for (int i = 0; i < n; i++) {
      Op op = ops[i];
      if (!op.isClient()) {
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        if (open.put(op.process(), i) >= 0) {
          return null;
        }
        Object key = op.key();
        int p = key == null ? nullPart : index.get(key);
        if (p < 0) {
          p = parts.size();
          if (key == null) {
            nullPart = p;
          } else {
            index.put(key, p);
          }
          parts.add(new Part(key));
        }
        Part part = parts.get(p);
        partOf[i] = p;
        localAt[i] = part.add(op);
        part.invocations++;
      } else {
        int at = open.remove(op.process());
        if (at < 0) {
          return null;
        }
        Op invocation = ops[at];
        if (!invocation.f().equals(op.f()) || !Objects.equals(invocation.key(), op.key())) {
          return null;
        }
        Part part = parts.get(partOf[at]);
        int c = part.add(op); // first: add() may replace completionAt
        part.completionAt[localAt[at]] = c;
      }
    }
    return parts;
  }
}
