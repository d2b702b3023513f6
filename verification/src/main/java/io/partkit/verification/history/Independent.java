package io.partkit.verification.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Jepsen's {@code jepsen.independent} histories: many independent objects in one history, each
 * client value a tuple {@code [k v]} (a read {@code [3 nil]}, a write {@code [3 7]}, a cas
 * {@code [3 [7 8]]}). Splitting turns each tuple into {@code :key k} and {@code :value v}, so the
 * checker checks every key on its own (P-compositionality), as {@code independent/checker} does
 * before it calls Knossos.
 *
 * <p>The rule {@link Mode#AUTO} uses to recognise such a history, chosen so that no plain
 * history of the built-in models matches it: there is at least one client invocation, no client
 * operation has a {@code :key} already, and every client invocation's value is a 2-element
 * vector {@code [k v]} whose {@code k} is not a collection (a multi-register txn of two micro-ops
 * is a vector of vectors) and, for {@code :cas}, whose {@code v} is itself a 2-element vector (a
 * plain cas is {@code [old new]} with a scalar {@code new}). A plain register history has reads
 * whose invocation value is nil, so it never matches.
 */
public final class Independent {
  private Independent() {}

  /** Whether to split a history by the keys of its {@code [k v]} values. */
  public enum Mode {
    /** Split when {@link #looksIndependent(History)}: the command line's default. */
    AUTO,
    /** Always split; a client invocation without a {@code [k v]} value is bad input. */
    YES,
    /** Never split: values are checked as they are. */
    NO
  }

  /**
   * The history split per key, as {@code mode} says.
   *
   * @throws HistoryParseException with {@link Mode#YES}, for an invocation whose value is not
   *     {@code [k v]}; in any split mode, for an {@code :ok} completion whose value is neither
   *     nil nor {@code [k v]} with its invocation's {@code k}
   */
  public static History apply(History history, Mode mode) throws HistoryParseException {
    Objects.requireNonNull(mode, "mode");
    boolean split = mode == Mode.YES || (mode == Mode.AUTO && looksIndependent(history));
    return split ? split(history) : history;
  }

  /** True when the history matches the rule in the class comment. */
  public static boolean looksIndependent(History history) {
    boolean any = false;
    for (Op op : history.ops()) {
      if (!op.isClient()) {
        continue;
      }
      if (op.key() != null) {
        return false;
      }
      if (op.type() == OpType.INVOKE) {
        if (!isTuple(op)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  static boolean isTuple(Op op) {
    if (!(op.value() instanceof List) || ((List<?>) op.value()).size() != 2) {
      return false;
    }
    List<?> kv = (List<?>) op.value();
    return isTuple(op.f(), kv.get(0), kv.get(1));
  }

  /** The rule for an invocation of {@code f} whose value is the vector {@code [k v]}. */
  static boolean isTuple(String f, Object k, Object v) {
    if (k instanceof Collection || k instanceof Map) {
      return false;
    }
    return !f.equals("cas") || (v instanceof List && ((List<?>) v).size() == 2);
  }

  /**
   * Splits every client operation's {@code [k v]} into key and value. A completion takes its
   * invocation's key; its value is the {@code v} of its own {@code [k v]}, or kept as it is when it
   * is not one and the operation did not succeed ({@code :fail}/{@code :info} may carry an error).
   *
   * @throws HistoryParseException for an invocation without {@code [k v]}, or an {@code :ok}
   *     whose value is not nil nor {@code [k v]} with its invocation's key
   */
  public static History split(History history) throws HistoryParseException {
    List<Op> out = new ArrayList<>(history.ops().size());
    Map<Object, Object> openKey = new HashMap<>();
    for (Op op : history.ops()) {
      if (!op.isClient()) {
        out.add(op);
        continue;
      }
      if (op.type() == OpType.INVOKE) {
        if (!(op.value() instanceof List) || ((List<?>) op.value()).size() != 2) {
          throw notATuple(history.source(), op);
        }
        List<?> kv = (List<?>) op.value();
        openKey.put(op.process(), kv.get(0));
        out.add(with(op, kv.get(0), kv.get(1)));
        continue;
      }
      if (!openKey.containsKey(op.process())) {
        out.add(op); // a completion without invocation: validation reports it with its line
        continue;
      }
      Object k = openKey.remove(op.process());
      Object v = op.value();
      if (v instanceof List
          && ((List<?>) v).size() == 2
          && Objects.equals(((List<?>) v).get(0), k)) {
        out.add(with(op, k, ((List<?>) v).get(1)));
      } else if (v == null || op.type() != OpType.OK) {
        out.add(with(op, k, v));
      } else {
        throw notItsKey(history.source(), op, k);
      }
    }
    return new History(history.source(), out);
  }

  static HistoryParseException notATuple(String source, Op op) {
    return new HistoryParseException(
        source,
        op.line(),
        "expected an independent value [k v] in "
            + op
            + " (Jepsen's jepsen.independent tuples; give --independent no to check values as"
            + " they are)");
  }

  static HistoryParseException notItsKey(String source, Op op, Object k) {
    return new HistoryParseException(
        source,
        op.line(),
        "expected the value [" + Values.toEdn(k) + " v] (the key of its invocation) in " + op);
  }

  static Op with(Op op, Object key, Object value) {
    return new Op(op.index(), op.process(), op.type(), op.f(), value, key, op.time(), op.line());
  }
}
