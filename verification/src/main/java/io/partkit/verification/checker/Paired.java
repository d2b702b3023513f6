package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One key's client operations, paired into what the search needs: per operation the op the
 * model is given and whether it is :info, and the call/return events in history order
 * (encoded op * 2, plus 1 for a return). :fail operations are dropped: they did not happen.
 *
 * @param ops per operation, the op given to the model
 * @param info per operation, true for :info (no return event)
 * @param events the events in order
 * @param invocations how many invocations the key had, :fail included
 */
record Paired(Op[] ops, boolean[] info, int[] events, int invocations) {

  /**
   * Pairs a validated history's client operations of one key. An :ok gives the model the
   * completion (its value, or the invocation's when the completion has none); an :info, or an
   * invocation never completed, gives the invocation with type INFO.
   */
  static Paired of(List<Op> clientOps) {
    return pair(clientOps, false);
  }

  /**
   * Pairs a whole history (non-client operations are skipped) while testing, in the same pass,
   * that no client operation has a key and that it is well-formed by the rules of
   * {@code History.validate()}: null when either fails (the caller then splits by key, or asks
   * validate() for the messages). One pass instead of four for the common single-register history.
   */
  static Paired ofWellFormed(List<Op> historyOps) {
    return pair(historyOps, true);
  }

  private static Paired pair(List<Op> list, boolean strict) {
    if (strict) {
      for (Op op : list) { // a keyed history, known from its first client operation: no arrays
        if (op.isClient()) {
          if (op.key() != null) {
            return null;
          }
          break;
        }
      }
    }
    int n = list.size();
    Op[] events = list.toArray(new Op[0]);
    int[] completionAt = new int[n]; // per invocation: its completion's position, or -1
    ProcessTable open = new ProcessTable();
    int invocations = 0;
    for (int i = 0; i < n; i++) {
      Op op = events[i];
      if (strict && (!op.isClient() || op.key() != null)) {
        if (op.isClient()) {
          return null; // keyed: split by key first
        }
        events[i] = null;
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        if (open.put(op.process(), i) >= 0 && strict) {
          return null;
        }
        completionAt[i] = -1;
        invocations++;
      } else {
        int inv = open.remove(op.process());
        if (inv >= 0) {
          completionAt[inv] = i;
          if (strict
              && (op.type() != OpType.INFO && !events[inv].f().equals(op.f())
                  || !Objects.equals(events[inv].key(), op.key()))) {
            return null;
          }
        } else if (strict) {
          return null;
        }
      }
    }
    return build(events, n, completionAt, invocations);
  }

  private static Paired build(Op[] events, int n, int[] completionAt, int invocations) {
    int[] owner = new int[n]; // per event kept: its operation id, else -1
    Arrays.fill(owner, -1);
    Op[] given = new Op[invocations];
    boolean[] info = new boolean[invocations];
    int ids = 0;
    for (int i = 0; i < n; i++) {
      Op op = events[i];
      if (op == null || op.type() != OpType.INVOKE) {
        continue;
      }
      int c = completionAt[i];
      Op completion = c < 0 ? null : events[c];
      if (completion != null && completion.type() == OpType.FAIL) {
        continue;
      }
      int id = ids++;
      owner[i] = id;
      if (completion != null && completion.type() == OpType.OK) {
        given[id] =
            completion.value() != null || op.value() == null
                ? completion
                : completion.withValue(op.value());
        owner[c] = id;
      } else {
        given[id] =
            new Op(
                op.index(),
                op.process(),
                OpType.INFO,
                op.f(),
                op.value(),
                op.key(),
                op.time(),
                op.line());
        info[id] = true;
      }
    }
    int[] encoded = new int[n];
    int e = 0;
    for (int i = 0; i < n; i++) {
      if (owner[i] >= 0) {
        encoded[e++] = (owner[i] << 1) | (events[i].type() == OpType.INVOKE ? 0 : 1);
      }
    }
    return new Paired(
        Arrays.copyOf(given, ids),
        Arrays.copyOf(info, ids),
        Arrays.copyOf(encoded, e),
        invocations);
  }

  /**
   * These operations without the :info ones the model says can be dropped
   * ({@link io.partkit.verification.model.Model#droppable}); this when there are none.
   */
  Paired reduced(io.partkit.verification.model.Model<?> model) {
    int n = ops.length;
    boolean anyInfo = false;
    for (boolean b : info) {
      anyInfo |= b;
    }
    if (!anyInfo) {
      return this; // only :info operations can be dropped
    }
    int[] called = new int[n];
    int[] returned = new int[n];
    java.util.Arrays.fill(returned, Integer.MAX_VALUE);
    for (int k = 0; k < events.length; k++) {
      int ev = events[k];
      if ((ev & 1) == 0) {
        called[ev >>> 1] = k;
      } else {
        returned[ev >>> 1] = k;
      }
    }
    return without(model.droppable(java.util.Arrays.asList(ops), called, returned));
  }

  /**
   * These operations without the :info ones {@code drop} names (positions in {@link #ops()};
   * positions of :ok operations are ignored), renumbered in order; {@code invocations} is kept.
   * This, unchanged, when nothing is dropped.
   */
  Paired without(java.util.BitSet drop) {
    int n = ops.length;
    int[] newId = new int[n];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      newId[i] = info[i] && drop.get(i) ? -1 : kept++;
    }
    if (kept == n) {
      return this;
    }
    Op[] keptOps = new Op[kept];
    boolean[] keptInfo = new boolean[kept];
    for (int i = 0; i < n; i++) {
      if (newId[i] >= 0) {
        keptOps[newId[i]] = ops[i];
        keptInfo[newId[i]] = info[i];
      }
    }
    int[] keptEvents = new int[events.length];
    int e = 0;
    for (int ev : events) {
      int id = newId[ev >>> 1];
      if (id >= 0) {
        keptEvents[e++] = (id << 1) | (ev & 1);
      }
    }
    return new Paired(keptOps, keptInfo, Arrays.copyOf(keptEvents, e), invocations);
  }
}
