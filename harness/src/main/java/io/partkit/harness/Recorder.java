package io.partkit.harness;

import io.partkit.harness.system.Outcome;
import io.partkit.verification.history.Op;
import io.partkit.verification.history.OpType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The history as it happens: every event gets the next index and its time in nanoseconds since
 * the run started. One lock orders the events, so the history's order is a real-time order: an
 * invocation recorded after a completion really began after it ended.
 */
final class Recorder {

  static final String NEMESIS = "nemesis";

  private final long startNanos;
  private final List<Op> ops = new ArrayList<>();
  /** The indexes of the failures that were mismatches ({@code Outcome#mismatch}). */
  private final Set<Long> mismatches = new HashSet<>();

  Recorder(long startNanos) {
    this.startNanos = startNanos;
  }

  /** Records a client event on register {@code key}. */
  synchronized Op client(long process, OpType type, String f, Object value, long key) {
    Op op = new Op(ops.size(), process, type, f, value, key, System.nanoTime() - startNanos, 0);
    ops.add(op);
    return op;
  }

  /**
   * Records a client completion on register {@code key}, noting whether it is a mismatch (the
   * history's events have no field for it).
   */
  synchronized Op client(long process, Outcome outcome, String f, long key) {
    Op op = client(process, outcome.type(), f, outcome.value(), key);
    if (outcome.mismatch()) {
      mismatches.add(op.index());
    }
    return op;
  }

  /** The indexes of the completions recorded as mismatches. */
  synchronized Set<Long> mismatches() {
    return Set.copyOf(mismatches);
  }

  /** Records a nemesis event. */
  synchronized Op nemesis(OpType type, String f, Object value) {
    Op op = new Op(ops.size(), NEMESIS, type, f, value, null, System.nanoTime() - startNanos, 0);
    ops.add(op);
    return op;
  }

  synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  long elapsedNanos() {
    return System.nanoTime() - startNanos;
  }
}
