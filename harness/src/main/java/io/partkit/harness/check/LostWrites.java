package io.partkit.harness.check;

import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Lost acknowledged writes, Jepsen's other question besides linearizability: is every write the
 * system acknowledged visible to the final reads, or superseded by a later one?
 *
 * <p>The workload writes unique values per key, so the final read's value names the one write
 * {@code W} that produced it. An acknowledged write {@code w} (an ok write, or an ok cas: its new
 * value) is lost when {@code W} completed before {@code w} was even invoked: {@code w} took effect
 * after {@code W} (it was acknowledged), so the register cannot hold {@code W}'s value unless
 * {@code w} vanished. When the final value is nil, every acknowledged write of the key is lost;
 * when it is a value nobody wrote, the key is corrupt. A write that might still be superseded by
 * one concurrent with it is not counted: this checker never calls a correct history lossy, and
 * linearizability covers the rest.
 */
public final class LostWrites {

  private LostWrites() {}

  /** One acknowledged write the final read does not account for. */
  public record Lost(Object key, Object value, long invokeIndex, long okIndex, String why) {}

  /**
   * The result.
   *
   * @param keys keys with a final ok read that were checked
   * @param unread keys whose final read never succeeded (their writes are not judged)
   * @param acknowledged acknowledged writes checked
   * @param lost the lost ones
   */
  public record Result(int keys, List<Object> unread, int acknowledged, List<Lost> lost) {
    public Result {
      unread = List.copyOf(unread);
      lost = List.copyOf(lost);
    }

    /** True when nothing acknowledged was lost. */
    public boolean ok() {
      return lost.isEmpty();
    }
  }

  private record Write(Object value, Op invoke, Op completion) {}

  /**
   * Checks a keyed register history.
   *
   * @param ops client operations (invocations and completions, with keys, in history order)
   * @param finalReads per key, the completion of its final ok read; keys with no entry are unread
   * @param keys every key the run used
   */
  public static Result check(List<Op> ops, Map<Object, Op> finalReads, List<?> keys) {
    Map<Object, Op> open = new HashMap<>();
    Map<Object, List<Write>> acked = new LinkedHashMap<>();
    Map<Object, Map<Object, Write>> writers = new HashMap<>();
    for (Op op : ops) {
      if (!op.isClient()) {
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        open.put(op.process(), op);
        if (!"read".equals(op.f())) {
          Object written = written(op);
          writers.computeIfAbsent(op.key(), k -> new HashMap<>())
              .putIfAbsent(written, new Write(written, op, null));
        }
        continue;
      }
      Op invoke = open.remove(op.process());
      if (invoke == null || "read".equals(op.f())) {
        continue;
      }
      Object written = written(invoke);
      Write w = new Write(written, invoke, op);
      if (op.type() == OpType.OK) {
        acked.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(w);
        writers.get(op.key()).put(written, w);
      } else if (op.type() == OpType.FAIL) {
        writers.get(op.key()).remove(written); // surely not written: it cannot explain a read
      }
    }
    List<Object> unread = new ArrayList<>();
    List<Lost> lost = new ArrayList<>();
    int checked = 0;
    int acknowledged = 0;
    for (Object key : keys) {
      Op read = finalReads.get(key);
      List<Write> writes = acked.getOrDefault(key, List.of());
      if (read == null) {
        unread.add(key);
        continue;
      }
      checked++;
      acknowledged += writes.size();
      Object seen = read.value();
      Write producer = seen == null ? null
          : writers.getOrDefault(key, Map.of()).get(seen);
      for (Write w : writes) {
        if (Objects.equals(w.value(), seen)) {
          continue;
        }
        if (seen == null) {
          lost.add(lost(key, w, "the final read found the key absent"));
        } else if (producer == null) {
          lost.add(lost(key, w, "the final read found " + seen + ", a value no write could have"
              + " set"));
        } else if (producer.completion() != null
            && producer.completion().index() < w.invoke().index()) {
          lost.add(lost(key, w, "the final read found " + seen + ", written by the op completed at"
              + " index " + producer.completion().index() + " before this write began"));
        }
      }
    }
    return new Result(checked, unread, acknowledged, lost);
  }

  private static Lost lost(Object key, Write w, String why) {
    return new Lost(key, w.value(), w.invoke().index(), w.completion().index(), why);
  }

  private static Object written(Op invoke) {
    Object v = invoke.value();
    return "cas".equals(invoke.f()) && v instanceof List<?> l && l.size() == 2 ? l.get(1) : v;
  }
}
