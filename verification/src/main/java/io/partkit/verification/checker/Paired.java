package io.partkit.verification.checker;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    int n = clientOps.size();
    int[] completionAt = new int[n];
    Arrays.fill(completionAt, -1);
    Map<Object, Integer> open = new HashMap<>();
    int invocations = 0;
    for (int i = 0; i < n; i++) {
      Op op = clientOps.get(i);
      if (op.type() == OpType.INVOKE) {
        open.put(op.process(), i);
        invocations++;
      } else {
        Integer inv = open.remove(op.process());
        if (inv != null) {
          completionAt[inv] = i;
        }
      }
    }
    int[] opId = new int[n];
    Arrays.fill(opId, -1);
    List<Op> given = new ArrayList<>();
    List<Boolean> isInfo = new ArrayList<>();
    int[] returnOwner = new int[n];
    Arrays.fill(returnOwner, -1);
    for (int i = 0; i < n; i++) {
      Op op = clientOps.get(i);
      if (op.type() != OpType.INVOKE) {
        continue;
      }
      int c = completionAt[i];
      Op completion = c < 0 ? null : clientOps.get(c);
      if (completion != null && completion.type() == OpType.FAIL) {
        continue;
      }
      int id = given.size();
      opId[i] = id;
      if (completion != null && completion.type() == OpType.OK) {
        Object v = completion.value() != null ? completion.value() : op.value();
        given.add(completion.withValue(v));
        isInfo.add(false);
        returnOwner[c] = id;
      } else {
        given.add(new Op(op.index(), op.process(), OpType.INFO, op.f(), op.value(), op.key(), op.time(), op.line()));
        isInfo.add(true);
      }
    }
    int[] events = new int[n];
    int e = 0;
    for (int i = 0; i < n; i++) {
      if (opId[i] >= 0) {
        events[e++] = opId[i] << 1;
      } else if (returnOwner[i] >= 0) {
        events[e++] = (returnOwner[i] << 1) | 1;
      }
    }
    boolean[] info = new boolean[given.size()];
    for (int i = 0; i < info.length; i++) {
      info[i] = isInfo.get(i);
    }
    return new Paired(given.toArray(new Op[0]), info, Arrays.copyOf(events, e), invocations);
  }
}
