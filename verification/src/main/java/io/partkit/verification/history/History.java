package io.partkit.verification.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A history: the events in the order they happened, and where they came from.
 *
 * @param source a file name or description, used in messages
 * @param ops the events in order (clients and non-clients)
 */
public record History(String source, List<Op> ops) {

  public History {
    Objects.requireNonNull(source, "source");
    ops = List.copyOf(ops);
  }

  /** A history built in code. */
  public static History of(String source, List<Op> ops) {
    return new History(source, ops);
  }

  /**
   * Checks that the history is well-formed: each client process has at most one open invocation,
   * every completion follows an invocation of the same function (and key) by the same process.
   * An {@code :info} completion may name another function: it only says the invocation's outcome
   * is unknown (Knossos' own generated histories complete a crashed operation as
   * {@code (info p :crash nil)}, and Knossos reads the invocation as pending), so it closes the
   * open invocation whatever its {@code :f}; the invocation's function and value are what count.
   * Invocations still open at the end are allowed: like Knossos, the checker treats them as
   * {@code :info}. Non-client operations (e.g. the nemesis) are not checked.
   *
   * @return one message per problem, empty when the history is well-formed
   */
  public List<String> validate() {
    List<String> problems = new ArrayList<>();
    Map<Object, Op> open = new HashMap<>();
    for (Op op : ops) {
      if (!op.isClient()) {
        continue;
      }
      Op pending = open.get(op.process());
      if (op.type() == OpType.INVOKE) {
        if (pending != null) {
          problems.add(where(op) + "process " + op.process() + " invokes :" + op.f()
              + " while its invocation of :" + pending.f() + " at " + where(pending).trim()
              + " is still open (a process has one operation at a time)");
        }
        open.put(op.process(), op);
      } else {
        if (pending == null) {
          problems.add(
              where(op)
                  + "process "
                  + op.process()
                  + " has :"
                  + op.type().jepsenName()
                  + " :"
                  + op.f()
                  + " without an open invocation (expected an :invoke by the same process first)");
          continue;
        }
        if (op.type() != OpType.INFO && !pending.f().equals(op.f())) {
          problems.add(where(op) + "process " + op.process() + " completes :" + op.f()
              + " but its open invocation at " + where(pending).trim() + " is :" + pending.f());
        } else if (!Objects.equals(pending.key(), op.key())) {
          problems.add(
              where(op)
                  + "process "
                  + op.process()
                  + " completes key "
                  + Values.toEdn(op.key())
                  + " but its open invocation at "
                  + where(pending).trim()
                  + " has key "
                  + Values.toEdn(pending.key()));
        }
        open.remove(op.process());
      }
    }
    return problems;
  }

  private String where(Op op) {
    return op.line() > 0 ? "line " + op.line() + ": " : "index " + op.index() + ": ";
  }

  /** True when some client operation carries a {@code :key}. */
  public boolean hasKeys() {
    for (Op op : ops) {
      if (op.key() != null && op.isClient()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Splits the client operations by {@code :key}, keeping their order (the P-compositionality
   * split: Horn and Kroening 2015). Operations without a key go under the key {@code null}.
   */
  public Map<Object, List<Op>> clientOpsByKey() {
    Map<Object, List<Op>> byKey = new LinkedHashMap<>();
    for (Op op : ops) {
      if (op.isClient()) {
        byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
      }
    }
    return byKey;
  }
}
